import { describe, expect, it } from "vitest";
import { deliveryPriceFor, offeredFulfillments } from "./pricing";

const distance = {
  enabled: true,
  type: "distance" as const,
  ranges: [
    { fromKm: 5, toKm: 10, price: 35 },
    { fromKm: 0, toKm: 5, price: 20 },
    { fromKm: 10, toKm: null, price: 50 },
  ],
};

describe("delivery price and fulfillments", () => {
  it("distance ranges: sorted, touching ranges go to the first, open-ended last, outside refused", () => {
    const settings = { delivery: distance, pickup: null, dineIn: null };
    const at = (km: number | null) => deliveryPriceFor(settings, { type: "delivery", distanceKm: km });
    expect(at(4.2)).toEqual({ ok: true, price: 20 });
    expect(at(5)).toEqual({ ok: true, price: 20 });
    expect(at(7)).toEqual({ ok: true, price: 35 });
    expect(at(400)).toEqual({ ok: true, price: 50 });
    expect(at(null)).toEqual({ ok: false, param: "fulfillment.distanceKm", reason: "distance_required" });
    const bounded = { ...settings, delivery: { ...distance, ranges: distance.ranges.slice(0, 2) } };
    expect(deliveryPriceFor(bounded, { type: "delivery", distanceKm: 12 })).toMatchObject({
      reason: "out_of_range",
    });
  });

  it("the page offers delivery when enabled (with ranges if by distance), pickup unless false, dine-in only when true", () => {
    expect(offeredFulfillments({ delivery: distance, pickup: null, dineIn: null })).toEqual([
      "delivery",
      "pickup",
    ]);
    expect(
      offeredFulfillments({ delivery: { ...distance, ranges: [] }, pickup: false, dineIn: true }),
    ).toEqual(["dine_in"]);
    expect(offeredFulfillments({ delivery: null, pickup: true, dineIn: false })).toEqual(["pickup"]);
  });
});
