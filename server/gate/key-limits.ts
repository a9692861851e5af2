import { sql } from "drizzle-orm";
import type { ActorKey } from "@/server/context";
import { type Db, queryRows } from "@/server/db/client";

/**
 * Rate-limit budgets and windows of API keys (docs/api.md, "Rate limits"). The /v1 pipeline counts requests
 * (server/gate/rate-limit.ts); the budgets belong to the keys, so they live here.
 */
export const DEFAULT_RPM = 60;
export const USER_KEY_RPD = 10_000;
/** Developer keys carry their own daily budget, set at issuance; this is the default. */
export const DEVELOPER_KEY_DEFAULT_RPD = 50;

export function minuteWindowStart(now: Date): number {
  return Math.floor(now.getTime() / 60_000) * 60;
}

export function dayWindowStart(now: Date): number {
  return Math.floor(now.getTime() / 86_400_000) * 86_400;
}

/** Remaining requests in the key's current windows, for GET /v1/me (approximate by nature). */
export async function readRemaining(
  db: Db,
  key: ActorKey,
  now: Date,
): Promise<{ remainingMinute: number; remainingDay: number }> {
  const rows = await queryRows<{ bucket: string; count: number }>(
    db,
    sql`select bucket, count from rate_limit_counters where key_id = ${key.keyId}
          and ((bucket = 'm' and window_start = ${minuteWindowStart(now)}) or (bucket = 'd' and window_start = ${dayWindowStart(now)}))`,
  );
  const minute = Number(rows.find((r) => r.bucket === "m")?.count ?? 0);
  const day = Number(rows.find((r) => r.bucket === "d")?.count ?? 0);
  return { remainingMinute: Math.max(0, key.rpm - minute), remainingDay: Math.max(0, key.rpd - day) };
}
