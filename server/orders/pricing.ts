import { roundMoney } from "./options";

/**
 * The delivery price and the ways an order can reach the customer (docs/api.md, "Orders"). Pure and free of
 * server-only imports: the checkout page shows the same delivery price the server will charge.
 */

export type FulfillmentType = "delivery" | "pickup" | "dine_in";

export type DeliverySettings = {
  enabled?: boolean;
  type?: "fixed" | "distance" | null;
  fixedPrice?: number | null;
  ranges?: Array<{ fromKm: number; toKm?: number | null; price: number }> | null;
} | null;

export type FulfillmentSettings = {
  delivery: DeliverySettings;
  pickup: boolean | null;
  dineIn: boolean | null;
};

export type DeliveryPrice =
  | { ok: true; price: number }
  | { ok: false; param: "fulfillment.type" | "fulfillment.distanceKm"; reason: DeliveryRefusal };

export type DeliveryRefusal =
  | "no_pickup"
  | "no_dine_in"
  | "no_delivery"
  | "distance_required"
  | "out_of_range";

const REFUSAL_TEXT: Record<DeliveryRefusal, { en: string; es: string; pt: string }> = {
  no_pickup: {
    en: "This storefront does not offer pickup.",
    es: "Esta tienda no ofrece recogida.",
    pt: "Esta loja não oferece retirada.",
  },
  no_dine_in: {
    en: "This storefront does not offer dine-in.",
    es: "Esta tienda no ofrece consumo en el local.",
    pt: "Esta loja não oferece consumo no local.",
  },
  no_delivery: {
    en: "This storefront does not deliver.",
    es: "Esta tienda no hace entregas a domicilio.",
    pt: "Esta loja não faz entregas.",
  },
  distance_required: {
    en: "This storefront charges delivery by distance: send distanceKm.",
    es: "Esta tienda cobra la entrega por distancia: envía distanceKm.",
    pt: "Esta loja cobra a entrega por distância: envie distanceKm.",
  },
  out_of_range: {
    en: "The address is outside the delivery area.",
    es: "La dirección está fuera de la zona de entrega.",
    pt: "O endereço está fora da área de entrega.",
  },
};

/** Why delivery was refused, in en, es and pt (the detail of the API's 400). */
export function describeDeliveryRefusal(reason: DeliveryRefusal): { en: string; es: string; pt: string } {
  return REFUSAL_TEXT[reason];
}

/**
 * deliveryPrice from the storefront's delivery settings: 0 for pickup and dine-in (refused when the storefront
 * sets them to false), the fixed price for `type: fixed`, the range containing `distanceKm` for `type:
 * distance` (ranges sorted by `fromKm`; where two ranges touch, the first one wins).
 */
export function deliveryPriceFor(
  settings: FulfillmentSettings,
  fulfillment: { type: FulfillmentType; distanceKm: number | null },
): DeliveryPrice {
  if (fulfillment.type === "pickup") {
    return settings.pickup === false
      ? { ok: false, param: "fulfillment.type", reason: "no_pickup" }
      : { ok: true, price: 0 };
  }
  if (fulfillment.type === "dine_in") {
    return settings.dineIn === false
      ? { ok: false, param: "fulfillment.type", reason: "no_dine_in" }
      : { ok: true, price: 0 };
  }
  const delivery = settings.delivery;
  if (!delivery?.enabled) return { ok: false, param: "fulfillment.type", reason: "no_delivery" };
  if (delivery.type === "fixed") return { ok: true, price: roundMoney(delivery.fixedPrice ?? 0) };
  if (delivery.type !== "distance") return { ok: true, price: 0 };
  if (fulfillment.distanceKm === null) {
    return { ok: false, param: "fulfillment.distanceKm", reason: "distance_required" };
  }
  const distance = fulfillment.distanceKm;
  const range = [...(delivery.ranges ?? [])]
    .sort((a, b) => a.fromKm - b.fromKm)
    .find((r) => distance >= r.fromKm && (r.toKm == null || distance <= r.toKm));
  if (!range) return { ok: false, param: "fulfillment.distanceKm", reason: "out_of_range" };
  return { ok: true, price: roundMoney(range.price) };
}

/**
 * What a customer may choose on the public page (docs/api.md, "Public storefront"): delivery when it is enabled
 * (and, priced by distance, has at least one range), pickup unless the storefront sets `pickup: false`, dine-in
 * only when it sets `dineIn: true`. Orders from the page are refused anything else; the merchant's own /v1
 * orders keep the wider rule of `deliveryPriceFor`.
 */
export function offeredFulfillments(settings: FulfillmentSettings): FulfillmentType[] {
  const offered: FulfillmentType[] = [];
  const delivery = settings.delivery;
  if (delivery?.enabled && (delivery.type !== "distance" || (delivery.ranges?.length ?? 0) > 0)) {
    offered.push("delivery");
  }
  if (settings.pickup !== false) offered.push("pickup");
  if (settings.dineIn === true) offered.push("dine_in");
  return offered;
}
