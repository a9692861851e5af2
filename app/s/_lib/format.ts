/** Money and times as the storefront's customers read them (its language, its currency, its time zone). */

const moneyFormatters = new Map<string, Intl.NumberFormat>();

/** `formatMoney(12.5, "es", "MXN")` -> "$12.50" (Intl.NumberFormat in the storefront's language). */
export function formatMoney(amount: number, language: string, currency: string): string {
  const key = `${language}:${currency}`;
  let formatter = moneyFormatters.get(key);
  if (!formatter) {
    formatter = new Intl.NumberFormat(language, { style: "currency", currency });
    moneyFormatters.set(key, formatter);
  }
  return formatter.format(amount);
}

/** "14:30" in the storefront's zone. */
export function formatTime(date: Date, language: string, timeZone: string): string {
  return new Intl.DateTimeFormat(language, {
    timeZone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(date);
}

/** "14:30" today, else "Monday 09:00" (weekday in the storefront's language and zone). */
export function formatOpening(date: Date, now: Date, language: string, timeZone: string): string {
  const day = (d: Date) => new Intl.DateTimeFormat("en-CA", { timeZone }).format(d);
  if (day(date) === day(now)) return formatTime(date, language, timeZone);
  return new Intl.DateTimeFormat(language, {
    timeZone,
    weekday: "long",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(date);
}

/** Percent saved by a sale price, rounded down (never overstates). */
export function discountPercent(price: number, salePrice: number | null): number | null {
  if (salePrice === null || price <= 0 || salePrice >= price) return null;
  const percent = Math.floor(((price - salePrice) / price) * 100);
  return percent > 0 ? percent : null;
}
