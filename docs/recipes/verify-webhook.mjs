import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Verifies a Marea webhook delivery. `rawBody`: the request body exactly as received (Buffer or string, never
 * re-serialized JSON); `header`: the X-Service-Signature value; `secret`: the endpoint's signingSecret.
 */
export function verifyMareaSignature(rawBody, header, secret, toleranceSec = 300) {
  if (typeof header !== "string") return false;
  let timestamp = null;
  const signatures = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (key === "t") timestamp = value;
    else if (key === "v1") signatures.push(value);
  }
  if (!timestamp || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSec) return false;
  // The key is the secret's 64 hex characters as ASCII bytes (not hex-decoded).
  const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest();
  return signatures.some((v1) => {
    const given = Buffer.from(v1, "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

// With Express, keep the body raw for this route:
// app.post("/webhooks/marea", express.raw({ type: "application/json" }), (req, res) => {
//   if (!verifyMareaSignature(req.body, req.get("X-Service-Signature"), process.env.MAREA_SIGNING_SECRET)) {
//     return res.sendStatus(401);
//   }
//   const event = JSON.parse(req.body.toString("utf8"));
//   // skip event.eventId if you have processed it already; answer within 5 seconds
//   res.sendStatus(204);
// });
