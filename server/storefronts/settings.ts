import { defaultTimeZoneFor } from "./time-zones";

/**
 * Storefront settings outside the /v1 Storefront object (docs/api.md, "Storefront settings"): the time zone of its
 * schedule and the payment methods customers choose from. Pure: the page and the services read them the same
 * way.
 */

const CASH: Record<string, string> = { es: "Efectivo", en: "Cash", pt: "Dinheiro" };

/** The payment method names the public page offers: the merchant's list, else cash in the storefront's language. */
export function paymentMethodsFor(stored: readonly string[] | null | undefined, language: string): string[] {
  if (stored && stored.length > 0) return [...stored];
  return [CASH[language] ?? CASH.en ?? "Cash"];
}

/** The storefront's time zone: the one the merchant set, else the currency's default (time-zones.ts). */
export function timeZoneFor(row: { timeZone: string | null; currency: string }): string {
  return row.timeZone ?? defaultTimeZoneFor(row.currency);
}
