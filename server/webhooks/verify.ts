import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Webhook signatures (docs/webhooks.md, "Signature").
 *
 * `X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with the endpoint's
 * 64-hex `signingSecret` taken as ASCII bytes (no derivation, not hex-decoded). No spaces in the header.
 *
 * This file depends on node:crypto only, so receivers can copy it as is.
 */

/** Hex HMAC-SHA256 of `<t>.<rawBody>` keyed with the secret's ASCII bytes. */
export function computeSignature(secret: string, timestamp: number, rawBody: string | Buffer): string {
  const hmac = createHmac("sha256", Buffer.from(secret, "utf8"));
  hmac.update(`${timestamp}.`);
  hmac.update(rawBody);
  return hmac.digest("hex");
}

/** The X-Service-Signature header value for a body sent at `timestamp` (unix seconds). */
export function signatureHeader(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, rawBody)}`;
}

export type VerifyOptions = {
  /** Maximum |now - t| in seconds (docs/webhooks.md, "Signature": 300). */
  toleranceSec?: number;
  /** The current time (Date or unix milliseconds); default the clock. */
  now?: Date | number;
};

/**
 * Verifies an `X-Service-Signature` header against the RAW request body (the exact bytes received, never
 * re-serialized JSON). False when the header is missing or malformed, when `t` is further than `toleranceSec`
 * (default 300) from now, or when no `v1=` value matches. The comparison is constant-time.
 *
 * ```ts
 * if (!verifyWebhookSignature(rawBody, req.headers["x-service-signature"], secret)) return res.status(401).end();
 * ```
 */
export function verifyWebhookSignature(
  rawBody: string | Buffer,
  header: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): boolean {
  if (typeof header !== "string" || header.length === 0 || header.length > 4096) return false;
  let timestamp: number | null = null;
  const candidates: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) return false;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t") {
      if (!/^\d{1,12}$/.test(value) || timestamp !== null) return false;
      timestamp = Number(value);
    } else if (key === "v1") {
      candidates.push(value);
    }
  }
  if (timestamp === null || candidates.length === 0) return false;
  const nowMs = options.now === undefined ? Date.now() : Number(options.now);
  const toleranceSec = options.toleranceSec ?? 300;
  if (Math.abs(nowMs / 1000 - timestamp) > toleranceSec) return false;

  const expected = Buffer.from(computeSignature(secret, timestamp, rawBody), "utf8");
  let matched = false;
  for (const candidate of candidates) {
    const given = Buffer.from(candidate.toLowerCase(), "utf8");
    // Equal lengths only: timingSafeEqual throws otherwise; the length of a hex digest is not a secret.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched;
}
