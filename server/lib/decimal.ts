/**
 * `value` rounded to `scale` decimal places exactly as PostgreSQL stores it in a `numeric(p, scale)` column:
 * the number's shortest decimal form (what the driver sends, `String(value)`) rounded half away from zero.
 * Lets a service know the stored value before the row comes back (product create answers from the row it
 * sends). Values too small for `String` to write without an exponent (< 1e-6) round to 0 at scales below 6.
 */
export function roundLikeNumeric(value: number, scale: number): number {
  const text = String(value);
  if (/e/i.test(text)) return Math.abs(value) < 10 ** -(scale + 1) ? 0 : value;
  const negative = text.startsWith("-");
  const [whole = "0", fraction = ""] = (negative ? text.slice(1) : text).split(".");
  if (fraction.length <= scale) return value;
  let digits = BigInt(`${whole}${fraction.slice(0, scale)}`);
  if ((fraction[scale] ?? "0") >= "5") digits += 1n;
  if (scale === 0) return negative ? -Number(digits) : Number(digits);
  const padded = digits.toString().padStart(scale + 1, "0");
  const rounded = Number(`${padded.slice(0, -scale)}.${padded.slice(-scale)}`);
  return negative ? -rounded : rounded;
}
