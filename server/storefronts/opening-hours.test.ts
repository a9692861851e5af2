import { describe, expect, it } from "vitest";
import { openingState, type Schedule, secondsUntilChange } from "./opening-hours";
import { canonicalTimeZone, defaultTimeZoneFor } from "./time-zones";

// docs/api.md, "Opening hours": the state the public page shows and the rule that refuses orders while closed.
const week = (day: NonNullable<Schedule>[keyof NonNullable<Schedule>]): NonNullable<Schedule> => ({
  monday: day,
  tuesday: day,
  wednesday: day,
  thursday: day,
  friday: day,
  saturday: day,
  sunday: day,
});
const nineToFive = { open: "09:00", close: "17:00", closed: null };
// 2026-06-01 is a Monday. Mexico City is UTC-6 all year (no daylight saving since 2022).
const mexico = (iso: string) => new Date(`${iso}-06:00`);

describe("opening hours", () => {
  it("no schedule is always open", () => {
    expect(openingState(null, "UTC", new Date())).toEqual({
      isOpen: true,
      isAlwaysOpen: true,
      opensAt: null,
      closesAt: null,
    });
  });

  it("open between open and close, in the storefront's time zone", () => {
    const schedule = week(nineToFive);
    const inside = openingState(schedule, "America/Mexico_City", mexico("2026-06-01T10:30:00"));
    expect(inside).toMatchObject({ isOpen: true, closesAt: mexico("2026-06-01T17:00:00") });
    // 16:30 UTC is 10:30 in Mexico City but 18:30 in Madrid (UTC+2 in June).
    expect(openingState(schedule, "Europe/Madrid", new Date("2026-06-01T16:30:00Z")).isOpen).toBe(false);
    const after = openingState(schedule, "America/Mexico_City", mexico("2026-06-01T17:00:00"));
    expect(after).toMatchObject({ isOpen: false, opensAt: mexico("2026-06-02T09:00:00") });
    expect(secondsUntilChange(after, mexico("2026-06-01T17:00:00"))).toBe(16 * 3600);
  });

  it("closed days (null, closed: true, or no times) are skipped to the next opening", () => {
    const schedule: NonNullable<Schedule> = {
      ...week(null),
      monday: { open: "09:00", close: "17:00", closed: true },
      tuesday: { open: null, close: "17:00", closed: null },
      thursday: nineToFive,
    };
    const state = openingState(schedule, "America/Mexico_City", mexico("2026-06-01T10:00:00"));
    expect(state).toEqual({
      isOpen: false,
      isAlwaysOpen: false,
      opensAt: mexico("2026-06-04T09:00:00"),
      closesAt: null,
    });
    // Later the same day the next opening is a week away.
    expect(openingState(schedule, "America/Mexico_City", mexico("2026-06-04T18:00:00")).opensAt).toEqual(
      mexico("2026-06-11T09:00:00"),
    );
    expect(openingState(week(null), "UTC", new Date()).opensAt).toBeNull();
  });

  it("overnight hours run past midnight into the next day, even when that day is closed", () => {
    const schedule: NonNullable<Schedule> = {
      ...week(null),
      friday: { open: "20:00", close: "02:00", closed: null },
    };
    // Friday 2026-06-05, Saturday 2026-06-06.
    expect(openingState(schedule, "America/Mexico_City", mexico("2026-06-05T23:00:00"))).toMatchObject({
      isOpen: true,
      closesAt: mexico("2026-06-06T02:00:00"),
    });
    expect(openingState(schedule, "America/Mexico_City", mexico("2026-06-06T01:59:00")).isOpen).toBe(true);
    expect(openingState(schedule, "America/Mexico_City", mexico("2026-06-06T02:00:00")).isOpen).toBe(false);
    expect(openingState(schedule, "America/Mexico_City", mexico("2026-06-05T19:59:00")).isOpen).toBe(false);
  });

  it("24:00 closes at midnight; openings that touch across midnight are one; equal times are 24 hours", () => {
    const late: NonNullable<Schedule> = {
      ...week(null),
      monday: { open: "18:00", close: "24:00", closed: null },
      tuesday: { open: "00:00", close: "03:00", closed: null },
    };
    expect(openingState(late, "America/Mexico_City", mexico("2026-06-01T23:59:00"))).toMatchObject({
      isOpen: true,
      closesAt: mexico("2026-06-02T03:00:00"),
    });
    const allDay = week({ open: "00:00", close: "00:00", closed: false });
    expect(openingState(allDay, "America/Mexico_City", mexico("2026-06-03T03:00:00")).isOpen).toBe(true);
  });

  it("daylight saving: wall-clock hours hold on both sides of the change", () => {
    // Madrid moves from UTC+1 to UTC+2 on 2026-03-29 (a Sunday).
    const schedule = week(nineToFive);
    expect(openingState(schedule, "Europe/Madrid", new Date("2026-03-28T08:30:00Z")).isOpen).toBe(true); // 09:30 +1
    expect(openingState(schedule, "Europe/Madrid", new Date("2026-03-30T07:30:00Z")).isOpen).toBe(true); // 09:30 +2
    expect(openingState(schedule, "Europe/Madrid", new Date("2026-03-30T06:30:00Z"))).toMatchObject({
      isOpen: false,
      opensAt: new Date("2026-03-30T07:00:00Z"),
    });
  });

  it("an unknown zone name falls back to UTC instead of failing", () => {
    expect(openingState(week(nineToFive), "Mars/Olympus", new Date("2026-06-01T10:00:00Z")).isOpen).toBe(
      true,
    );
  });
});

describe("time zones", () => {
  it("default from the currency's country where one zone serves it, else UTC", () => {
    expect(defaultTimeZoneFor("MXN")).toBe("America/Mexico_City");
    expect(defaultTimeZoneFor("BRL")).toBe("America/Sao_Paulo");
    expect(defaultTimeZoneFor("USD")).toBe("UTC");
    expect(defaultTimeZoneFor("EUR")).toBe("UTC");
  });

  it("names are checked with Intl and kept in their canonical spelling", () => {
    expect(canonicalTimeZone("america/mexico_city")).toBe("America/Mexico_City");
    expect(canonicalTimeZone("Mars/Olympus")).toBeNull();
    expect(canonicalTimeZone("")).toBeNull();
    expect(canonicalTimeZone("America/Mexico_City; drop table")).toBeNull();
  });
});
