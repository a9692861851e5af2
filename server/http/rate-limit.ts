import { sql } from "drizzle-orm";
import { actorFromKeyRow, authenticateKey, KEY_PATTERN, type KeyAuthRow } from "@/server/accounts/keys";
import type { Actor } from "@/server/context";
import { type Db, isDatabaseUnavailable, queryRows } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { sha256Hex } from "@/server/lib/crypto";
import { log } from "@/server/lib/log";

/** Default budgets (spec, Limits). Developer keys carry their own daily budget set at issuance. */
export const DEFAULT_RPM = 60;
export const USER_KEY_RPD = 10_000;
export const DEVELOPER_KEY_DEFAULT_RPD = 50;

export type RateLimitResult = {
  limit: number;
  remaining: number;
  /** Epoch seconds when the minute window rolls over. */
  reset: number;
  /** Left in the UTC day; absent when counting failed open. */
  remainingDay?: number;
  headers: Record<string, string>;
};

export function minuteWindowStart(now: Date): number {
  return Math.floor(now.getTime() / 60_000) * 60;
}

export function dayWindowStart(now: Date): number {
  return Math.floor(now.getTime() / 86_400_000) * 86_400;
}

/**
 * Authenticates the key AND counts the request in ONE atomic statement (one round trip), before the handler
 * runs (spec, Rate-limit mechanics 1-6): the key is looked up by its SHA-256; only a valid key of a live account
 * is counted; the day bucket only counts requests the minute bucket admitted, so a burst of 429s does not burn
 * the daily budget. Throws the auth AppError or the 429. When the counter store fails, the key is authenticated
 * on its own and the request proceeds uncounted (fail open).
 */
export async function authenticateAndCount(
  db: Db,
  rawKey: string,
  now: Date,
): Promise<{ actor: Actor; limits: RateLimitResult }> {
  if (!KEY_PATTERN.test(rawKey)) throw new AppError("invalid_api_key");
  const minuteStart = minuteWindowStart(now);
  const dayStart = dayWindowStart(now);
  let row: (KeyAuthRow & { minute: number | null; day: number | null; dayBefore: number | null }) | undefined;
  try {
    [row] = await queryRows<
      KeyAuthRow & { minute: number | null; day: number | null; dayBefore: number | null }
    >(
      db,
      sql`with k as (
            select k.id, k.name, k.kind, k.account_id, k.scopes, k.rpm, k.daily_limit, k.revoked_at,
                   a.email as account_email, a.status as account_status, a.plan,
                   a.tos_accepted_version
            from api_keys k join accounts a on a.id = k.account_id
            where k.hash = ${sha256Hex(rawKey)}
          ), m as (
            insert into rate_limit_counters (key_id, bucket, window_start, count)
            select k.id, 'm', ${minuteStart}, 1 from k where k.revoked_at is null and k.account_status <> 'cancelled'
            on conflict (key_id, bucket, window_start) do update set count = rate_limit_counters.count + 1
            returning count
          ), d as (
            insert into rate_limit_counters (key_id, bucket, window_start, count)
            select k.id, 'd', ${dayStart}, 1 from k, m where m.count <= k.rpm
            on conflict (key_id, bucket, window_start) do update set count = rate_limit_counters.count + 1
            returning count
          )
          select k.id, k.name, k.kind, k.account_id as "accountId", k.scopes, k.rpm, k.daily_limit as "dailyLimit",
                 k.revoked_at as "revokedAt", k.account_email as "accountEmail",
                 k.account_status as "accountStatus", k.plan, k.tos_accepted_version as "tosAcceptedVersion",
                 (select count from m) as minute, (select count from d) as day,
                 (select c.count from rate_limit_counters c where c.key_id = k.id and c.bucket = 'd'
                    and c.window_start = ${dayStart}) as "dayBefore"
          from k`,
    );
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error;
    // Spec, Rate-limit mechanics 3: the request proceeds without increment and without 429.
    log("warn", "rate limit store failed; failing open", { error: String(error) });
    const actor = await authenticateKey(db, rawKey);
    return { actor, limits: headersFor(actor.rpm, actor.rpm, minuteStart + 60) };
  }
  const actor = actorFromKeyRow(row);
  const minuteCount = Number(row?.minute ?? 0);
  const dayCount =
    row?.day === null || row?.day === undefined ? Number(row?.dayBefore ?? 0) : Number(row.day);
  return { actor, limits: evaluateCounts(actor, minuteCount, dayCount, now) };
}

/** Turns the counts into headers, or the 429 of the bucket that is over (minute first). */
export function evaluateCounts(
  actor: Actor,
  minuteCount: number,
  dayCount: number,
  now: Date,
): RateLimitResult {
  const dayStart = dayWindowStart(now);
  const reset = minuteWindowStart(now) + 60;
  const result = headersFor(
    actor.rpm,
    Math.max(0, actor.rpm - minuteCount),
    reset,
    Math.max(0, actor.rpd - dayCount),
  );
  const nowSeconds = now.getTime() / 1000;
  if (minuteCount > actor.rpm) {
    const retryAfter = Math.min(60, Math.max(1, Math.ceil(reset - nowSeconds)));
    throw rateLimitError("rpm_exceeded", retryAfter, result.headers);
  }
  if (dayCount > actor.rpd) {
    const retryAfter = Math.min(86_400, Math.max(1, Math.ceil(dayStart + 86_400 - nowSeconds)));
    throw rateLimitError("rpd_exceeded", retryAfter, result.headers);
  }
  return result;
}

function headersFor(limit: number, remaining: number, reset: number, remainingDay?: number): RateLimitResult {
  return {
    limit,
    remaining,
    reset,
    remainingDay,
    headers: {
      "x-ratelimit-limit": String(limit),
      "x-ratelimit-remaining": String(remaining),
      "x-ratelimit-reset": String(reset),
    },
  };
}

function rateLimitError(
  bucket: "rpm_exceeded" | "rpd_exceeded",
  retryAfterSeconds: number,
  headers: Record<string, string>,
): AppError {
  const isMinute = bucket === "rpm_exceeded";
  return new AppError("rate_limit_exceeded", {
    // Spec, Errors rule 3: the bucket name appears inside `message` only, never as `code`.
    message: {
      en: isMinute
        ? `Too many requests for this API key (rpm_exceeded): the per-minute limit is used up. Retry after ${retryAfterSeconds} s.`
        : `Too many requests for this API key (rpd_exceeded): the daily budget is used up until the next UTC day. Do not retry in a loop.`,
      es: isMinute
        ? `Demasiadas solicitudes para esta clave de API (rpm_exceeded): se agotó el límite por minuto. Reintenta en ${retryAfterSeconds} s.`
        : `Demasiadas solicitudes para esta clave de API (rpd_exceeded): se agotó el presupuesto diario hasta el próximo día UTC. No reintentes en bucle.`,
      pt: isMinute
        ? `Solicitações demais para esta chave de API (rpm_exceeded): o limite por minuto acabou. Tente novamente em ${retryAfterSeconds} s.`
        : `Solicitações demais para esta chave de API (rpd_exceeded): o orçamento diário acabou até o próximo dia UTC. Não tente novamente em loop.`,
    },
    retryAfterMs: retryAfterSeconds * 1000,
    nextActions: isMinute
      ? [{ label: `Retry after ${retryAfterSeconds} seconds`, method: null, url: null }]
      : [{ label: "Wait for the next UTC day; check rateLimit.remainingDay", method: "GET", url: "/v1/me" }],
    headers: { ...headers, "retry-after": String(retryAfterSeconds) },
  });
}

/** Remaining requests in the current windows, for GET /v1/me (approximate by nature). */
export async function readRemaining(
  db: Db,
  actor: Actor,
  now: Date,
): Promise<{ remainingMinute: number; remainingDay: number }> {
  const rows = await queryRows<{ bucket: string; count: number }>(
    db,
    sql`select bucket, count from rate_limit_counters where key_id = ${actor.keyId}
          and ((bucket = 'm' and window_start = ${minuteWindowStart(now)}) or (bucket = 'd' and window_start = ${dayWindowStart(now)}))`,
  );
  const minute = Number(rows.find((r) => r.bucket === "m")?.count ?? 0);
  const day = Number(rows.find((r) => r.bucket === "d")?.count ?? 0);
  return { remainingMinute: Math.max(0, actor.rpm - minute), remainingDay: Math.max(0, actor.rpd - day) };
}

/** Drops counter windows older than two days (run by the scheduled jobs). */
export async function purgeRateLimitCounters(db: Db, now: Date): Promise<number> {
  const rows = await queryRows<{ key_id: string }>(
    db,
    sql`delete from rate_limit_counters where window_start < ${dayWindowStart(now) - 86_400} returning key_id`,
  );
  return rows.length;
}
