import { isIPv4, isIPv6 } from "node:net";
import { sql } from "drizzle-orm";
import type { Db } from "@/server/db/client";
import { sha256Hex } from "@/server/lib/crypto";
import { OAuthError } from "./errors";
import { oauthRateLimits } from "./tables";

/**
 * The unauthenticated endpoints' limits (docs/security.md, "OAuth"): fixed windows counted per client address
 * AND per network (an IPv4 /24, an IPv6 /48), so one client cannot spend what everyone shares, and a single
 * subscriber or cloud tenant cannot get around the per-address figure by rotating addresses inside its network.
 */

/** One window of one kind of work: how long, and how many per address, per network and (optionally) in all. */
export type WindowedLimit = {
  name: string;
  windowSeconds: number;
  perIp: number;
  perNetwork: number;
  /** A ceiling for the whole service (a storage backstop), or none. */
  global?: number;
};

/** The bucket of a client whose address is unknown: counted all together, never skipped. */
const UNKNOWN = "unknown";

/**
 * The network an address belongs to: its /24 (IPv4) or /48 (IPv6). `clientIp` gives IPv6 as its /64
 * (`2001:db8:1:2::/64`), plain addresses as they are; anything else is its own network.
 */
export function networkOf(ip: string): string {
  if (isIPv4(ip)) return `${ip.split(".").slice(0, 3).join(".")}.0/24`;
  const address = ip.split("/")[0] ?? "";
  if (!isIPv6(address)) return ip;
  const [head = "", tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = address.includes("::") && tail ? tail.split(":") : [];
  const groups = address.includes("::")
    ? [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 3)
    .map((group) => group.toLowerCase().replace(/^0+(?=.)/, ""))
    .join(":")}::/48`;
}

/**
 * Counts one unit of `limit` for `ip` (atomic `insert … on conflict … returning`, one statement for every bucket)
 * and refuses past any bucket with 429 `temporarily_unavailable` and the seconds until the window ends. Counted
 * before the work, so refused attempts count too. Bucket keys are hashed: the table holds no address.
 */
export async function consumeLimit(
  db: Db,
  limit: WindowedLimit,
  ip: string | null,
  now: Date,
  message: string,
): Promise<void> {
  const windowStart = Math.floor(now.getTime() / 1000 / limit.windowSeconds) * limit.windowSeconds;
  const address = ip ?? UNKNOWN;
  const buckets = [
    { key: `${limit.name}:ip:${address}`, max: limit.perIp },
    { key: `${limit.name}:net:${networkOf(address)}`, max: limit.perNetwork },
  ];
  if (limit.global !== undefined) buckets.push({ key: `${limit.name}:all`, max: limit.global });
  const hashed = buckets.map((bucket) => ({ ...bucket, key: sha256Hex(bucket.key) }));
  const rows = await db
    .insert(oauthRateLimits)
    .values(hashed.map((bucket) => ({ key: bucket.key, windowStart, count: 1 })))
    .onConflictDoUpdate({
      target: [oauthRateLimits.key, oauthRateLimits.windowStart],
      set: { count: sql`${oauthRateLimits.count} + 1` },
    })
    .returning({ key: oauthRateLimits.key, count: oauthRateLimits.count });
  const isOver = hashed.some((bucket) => (rows.find((r) => r.key === bucket.key)?.count ?? 0) > bucket.max);
  if (isOver)
    throw new OAuthError("temporarily_unavailable", message, {
      retryAfterSeconds: Math.max(1, Math.ceil(windowStart + limit.windowSeconds - now.getTime() / 1000)),
      reason: "oauth_rate_limited",
    });
}
