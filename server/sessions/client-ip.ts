import { isIPv6 } from "node:net";

/**
 * The client address the sign-in rate limits count against: the LAST entry of `X-Forwarded-For`.
 *
 * Next.js fills `X-Forwarded-For` with the socket's peer only when the request has none, so:
 * - behind one reverse proxy that appends the peer it saw (nginx `$proxy_add_x_forwarded_for`, Caddy, most
 *   platforms), the last entry is the real client and cannot be forged;
 * - exposed directly, a client can send its own header and pick its bucket. The per-address limits hold
 *   either way, so the worst case is the per-IP limit being sidestepped, not the codes being guessable.
 *
 * IPv6 addresses count per /64 (one subscriber usually holds a whole /64); IPv4-mapped IPv6 as IPv4.
 */
export function clientIp(request: Request): string | null {
  const header = request.headers.get("x-forwarded-for");
  const last = header?.split(",").at(-1)?.trim() ?? request.headers.get("x-real-ip")?.trim();
  if (!last) return null;
  return normalizeIp(last);
}

export function normalizeIp(raw: string): string | null {
  let value = raw.trim().toLowerCase();
  // "[::1]:1234" or "1.2.3.4:5678"
  const bracketed = value.match(/^\[([^\]]+)\](?::\d+)?$/);
  if (bracketed?.[1]) value = bracketed[1];
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(value)) value = value.replace(/:\d+$/, "");
  if (value.startsWith("::ffff:") && /^::ffff:\d+\.\d+\.\d+\.\d+$/.test(value)) value = value.slice(7);
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(value)) return value;
  if (!isIPv6(value)) return null;
  return `${expandIpv6(value).slice(0, 4).join(":")}::/64`;
}

function expandIpv6(value: string): string[] {
  const [head = "", tail = ""] = value.split("::");
  const left = head ? head.split(":") : [];
  const right = value.includes("::") && tail ? tail.split(":") : [];
  const missing = 8 - left.length - right.length;
  const groups = value.includes("::") ? [...left, ...Array(missing).fill("0"), ...right] : left;
  return groups.map((g) => g.replace(/^0+(?=.)/, ""));
}
