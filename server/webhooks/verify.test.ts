import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { computeSignature, signatureHeader, verifyWebhookSignature } from "./verify";

// docs/webhooks.md, "Signature" 1-3 (key = the 64 hex characters as ASCII bytes) and "Delivery" (no spaces in
// the header).
const secret = "a3f1".repeat(16);
const body = '{"type":"user.verified","eventId":"7d9f0c6e-4a53-4c1b-9d8e-2f1a0b3c4d5e","data":{"n":1.50}}';
const now = 1_767_225_600_000;
const t = now / 1000;

function independentHmac(key: string, ts: number, raw: string): string {
  return createHmac("sha256", Buffer.from(key, "ascii")).update(`${ts}.${raw}`).digest("hex");
}

describe("signatureHeader", () => {
  it("is t=<unix>,v1=<hex HMAC-SHA256 of '<t>.<raw body>'> keyed with the secret's ASCII bytes", () => {
    expect(signatureHeader(secret, t, body)).toBe(`t=${t},v1=${independentHmac(secret, t, body)}`);
    // Not keyed with the hex-decoded 32 bytes ("no derivation").
    const decodedKey = createHmac("sha256", Buffer.from(secret, "hex")).update(`${t}.${body}`).digest("hex");
    expect(computeSignature(secret, t, body)).not.toBe(decodedKey);
  });
});

describe("verifyWebhookSignature", () => {
  const header = `t=${t},v1=${independentHmac(secret, t, body)}`;

  it("accepts the exact raw body (string or Buffer) within 300 s", () => {
    expect(verifyWebhookSignature(body, header, secret, { now })).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), header, secret, { now })).toBe(true);
    expect(verifyWebhookSignature(body, header, secret, { now: now + 300_000 })).toBe(true);
    expect(verifyWebhookSignature(body, header, secret, { now: now - 300_000 })).toBe(true);
  });

  it('rejects a stale or future t beyond the tolerance (docs/webhooks.md, "Signature": 300 seconds)', () => {
    expect(verifyWebhookSignature(body, header, secret, { now: now + 301_000 })).toBe(false);
    expect(verifyWebhookSignature(body, header, secret, { now: now - 301_000 })).toBe(false);
    expect(verifyWebhookSignature(body, header, secret, { now: now + 20_000, toleranceSec: 10 })).toBe(false);
  });

  it("rejects another secret, a changed body and re-serialized JSON (the raw body must be used)", () => {
    expect(verifyWebhookSignature(body, header, "b".repeat(64), { now })).toBe(false);
    expect(verifyWebhookSignature(body.replace("1.50", "1.5"), header, secret, { now })).toBe(false);
    expect(verifyWebhookSignature(JSON.stringify(JSON.parse(body), null, 1), header, secret, { now })).toBe(
      false,
    );
  });

  it("rejects a t that does not match the signed one (replaying the signature with a fresh t)", () => {
    const sig = independentHmac(secret, t, body);
    expect(verifyWebhookSignature(body, `t=${t + 60},v1=${sig}`, secret, { now })).toBe(false);
  });

  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["no v1", `t=${t}`],
    ["no t", `v1=${independentHmac(secret, t, body)}`],
    ["t not a number", `t=abc,v1=${independentHmac(secret, t, body)}`],
    ["two t values", `t=${t},t=${t},v1=${independentHmac(secret, t, body)}`],
    ["garbage", "nonsense"],
    ["truncated signature", `t=${t},v1=${independentHmac(secret, t, body).slice(0, 63)}`],
  ])("rejects a malformed header: %s", (_label, value) => {
    expect(verifyWebhookSignature(body, value, secret, { now })).toBe(false);
  });

  it("accepts when one of several v1 values matches", () => {
    const good = independentHmac(secret, t, body);
    expect(verifyWebhookSignature(body, `t=${t},v1=${"0".repeat(64)},v1=${good}`, secret, { now })).toBe(
      true,
    );
  });
});
