/**
 * A storefront's time zone (docs/api.md, "Opening hours"): an IANA name kept as a storefront setting (not a key of
 * the /v1 Storefront object). Until the merchant sets one, it follows the currency: the zone of the currency's
 * country when one zone serves (nearly) all of it, else UTC.
 */

/**
 * Currencies whose country keeps (nearly) all its people in one zone. Countries spread over several zones (USD,
 * CAD, AUD, RUB, ...) and shared currencies (EUR, XAF, XOF, XCD, ...) are not here: they default to UTC, and
 * the merchant sets the zone in the dashboard.
 */
const CURRENCY_TIME_ZONES: Record<string, string> = {
  ARS: "America/Argentina/Buenos_Aires",
  BOB: "America/La_Paz",
  BRL: "America/Sao_Paulo",
  CLP: "America/Santiago",
  COP: "America/Bogota",
  CRC: "America/Costa_Rica",
  CUP: "America/Havana",
  DOP: "America/Santo_Domingo",
  GTQ: "America/Guatemala",
  HNL: "America/Tegucigalpa",
  MXN: "America/Mexico_City",
  NIO: "America/Managua",
  PAB: "America/Panama",
  PEN: "America/Lima",
  PYG: "America/Asuncion",
  SVC: "America/El_Salvador",
  UYU: "America/Montevideo",
  VES: "America/Caracas",
  JMD: "America/Jamaica",
  TTD: "America/Port_of_Spain",
  GBP: "Europe/London",
  CHF: "Europe/Zurich",
  SEK: "Europe/Stockholm",
  NOK: "Europe/Oslo",
  DKK: "Europe/Copenhagen",
  PLN: "Europe/Warsaw",
  CZK: "Europe/Prague",
  HUF: "Europe/Budapest",
  RON: "Europe/Bucharest",
  TRY: "Europe/Istanbul",
  UAH: "Europe/Kyiv",
  MAD: "Africa/Casablanca",
  EGP: "Africa/Cairo",
  NGN: "Africa/Lagos",
  KES: "Africa/Nairobi",
  ZAR: "Africa/Johannesburg",
  AOA: "Africa/Luanda",
  MZN: "Africa/Maputo",
  CVE: "Atlantic/Cape_Verde",
  INR: "Asia/Kolkata",
  JPY: "Asia/Tokyo",
  KRW: "Asia/Seoul",
  CNY: "Asia/Shanghai",
  PHP: "Asia/Manila",
  THB: "Asia/Bangkok",
  VND: "Asia/Ho_Chi_Minh",
  ILS: "Asia/Jerusalem",
  AED: "Asia/Dubai",
  SAR: "Asia/Riyadh",
  NZD: "Pacific/Auckland",
};

export const DEFAULT_TIME_ZONE = "UTC";

/** The zone a storefront without its own uses: the currency's (see above), else UTC. */
export function defaultTimeZoneFor(currency: string): string {
  return CURRENCY_TIME_ZONES[currency] ?? DEFAULT_TIME_ZONE;
}

/**
 * The canonical spelling of an IANA time zone name this runtime knows (`america/mexico_city` ->
 * `America/Mexico_City`), or null.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!/^[A-Za-z0-9_+\-/]{1,64}$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}
