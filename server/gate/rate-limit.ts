import { sql } from "drizzle-orm";
import { type Actor, type ActorKey, actorKey } from "@/server/context";
import { type Db, isDatabaseUnavailable, queryRows } from "@/server/db/client";
import { GroupCommit } from "@/server/db/group-commit";
import { AppError } from "@/server/errors";
import { sha256Hex } from "@/server/lib/crypto";
import { log } from "@/server/lib/log";
import { actorFromKeyRow, authenticateKey, KEY_PATTERN, type KeyAuthRow, readKeyAuthRow } from "./actors";
import { dayWindowStart, minuteWindowStart } from "./key-limits";

export type RateLimitResult = {
  limit: number;
  remaining: number;
  /** Epoch seconds when the minute window rolls over. */
  reset: number;
  /** Left in the UTC day; absent when counting failed open. */
  remainingDay?: number;
  headers: Record<string, string>;
};

type CountedRow = KeyAuthRow & {
  ord: number;
  /** Null when the key is unknown (no row joined). */
  id: string | null;
  minute: number | null;
  day: number | null;
  dayBefore: number | null;
};

type PendingCount = { keyHash: string; minuteStart: number; dayStart: number; at: Date };

/** Concurrent requests share one counting statement (group commit); one statement counts in one pair of windows. */
const counting = new GroupCommit<PendingCount, CountedRow | undefined>(
  (db, batch) => countBatch(db, batch),
  (batch, item) => {
    const first = batch[0];
    return !first || (first.minuteStart === item.minuteStart && first.dayStart === item.dayStart);
  },
);

/**
 * Authenticates the key AND counts the request, before the handler runs (docs/api.md, "Rate limits"): the
 * key is looked up by its SHA-256; only a valid key of a live account is counted; the day bucket only counts
 * requests the minute bucket admitted, so a burst of 429s does not burn the daily budget. Requests arriving
 * together share one atomic statement, with the same outcome as counting them one by one in
 * arrival order (server/db/group-commit.ts). Throws the auth AppError or the 429. When the counter store fails, the key is authenticated on
 * its own and the request proceeds uncounted (fail open).
 */
export async function authenticateAndCount(
  db: Db,
  rawKey: string,
  now: Date,
): Promise<{ actor: Actor; limits: RateLimitResult }> {
  if (!KEY_PATTERN.test(rawKey)) throw new AppError("invalid_api_key");
  return countKeyRequest(db, sha256Hex(rawKey), now, undefined, () => authenticateKey(db, rawKey));
}

/**
 * The same for a key known by its SHA-256: the per-user key an OAuth grant stands for (docs/architecture.md,
 * "Actors"). The request counts in that key's buckets and the actor comes in `via: oauth`, naming the grant.
 */
export async function authenticateAndCountKeyHash(
  db: Db,
  keyHash: string,
  now: Date,
  oauth: { clientId: string; tokenId: string },
): Promise<{ actor: Actor; limits: RateLimitResult }> {
  return countKeyRequest(db, keyHash, now, oauth, async () =>
    actorFromKeyRow(await readKeyAuthRow(db, { hash: keyHash }), oauth),
  );
}

async function countKeyRequest(
  db: Db,
  keyHash: string,
  now: Date,
  oauth: { clientId: string; tokenId: string } | undefined,
  authenticateUncounted: () => Promise<Actor>,
): Promise<{ actor: Actor; limits: RateLimitResult }> {
  // Key-authenticated actors always carry their key (actors.ts); `keyOf` only narrows the type.
  let row: CountedRow | undefined;
  try {
    row = await counting.submit(db, {
      keyHash,
      minuteStart: minuteWindowStart(now),
      dayStart: dayWindowStart(now),
      at: now,
    });
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error;
    // docs/api.md, "Rate limits": the counter store failed; the request proceeds uncounted, without 429.
    log("warn", "rate limit store failed; failing open", { error: String(error) });
    const actor = await authenticateUncounted();
    const key = keyOf(actor);
    return { actor, limits: headersFor(key.rpm, key.rpm, minuteWindowStart(now) + 60) };
  }
  const actor = actorFromKeyRow(row?.id ? row : undefined, oauth);
  const minuteCount = Number(row?.minute ?? 0);
  const dayCount =
    row?.day === null || row?.day === undefined ? Number(row?.dayBefore ?? 0) : Number(row.day);
  return { actor, limits: evaluateCounts(keyOf(actor), minuteCount, dayCount, now) };
}

/**
 * ONE statement that authenticates and counts a batch of requests (all in the same minute and day windows),
 * atomic across processes. Each key's counter rows are updated once, by the number of its requests; request i
 * of a key (in arrival order) sees the count it would have seen alone: minute = before + i, and the day bucket
 * grows only by the requests the minute bucket admitted. Rows come back by arrival position (1-based).
 *
 * The same statement keeps `api_keys.last_used_at` (the dashboard's "last used"): only for a key whose minute
 * row this statement created (`m.count = g.n`: no request of it earlier in this minute), so it writes at most
 * once a minute per key, a primary-key update of a column no index covers (a HOT update). Every other statement
 * only joins the few rows of `m` and `g` and updates nothing; no extra round trip (bench/README.md, "API key last
 * used", has the measurement).
 */
async function countBatch(db: Db, batch: PendingCount[]): Promise<Array<CountedRow | undefined>> {
  const first = batch[0];
  if (!first) return [];
  const hashes = JSON.stringify(batch.map((item) => item.keyHash));
  const rows = await queryRows<CountedRow>(
    db,
    sql`with req as (
          select r.hash, r.ord::int as ord
          from jsonb_array_elements_text(${hashes}::jsonb) with ordinality as r(hash, ord)
        ), k as (
          select k.id, k.hash, k.name, k.kind, k.account_id, k.scopes, k.rpm, k.daily_limit, k.revoked_at,
                 a.email as account_email, a.status as account_status, a.plan, a.tos_accepted_version,
                 (k.revoked_at is null and a.status <> 'cancelled') as counted
          from api_keys k join accounts a on a.id = k.account_id
          where k.hash in (select hash from req)
        ), ranked as (
          select req.ord, k.id as key_id, row_number() over (partition by k.id order by req.ord)::int as i
          from req join k on k.hash = req.hash
          where k.counted
        ), g as (
          select key_id, count(*)::int as n from ranked group by key_id
        ), m as (
          insert into rate_limit_counters (key_id, bucket, window_start, count)
          select key_id, 'm', ${first.minuteStart}, n from g
          on conflict (key_id, bucket, window_start) do update set count = rate_limit_counters.count + excluded.count
          returning key_id, count
        ), used as (
          update api_keys set last_used_at = ${first.at.toISOString()}::timestamptz
          from m join g on g.key_id = m.key_id
          where m.count = g.n and api_keys.id = m.key_id
          returning api_keys.id
        ), admitted as (
          select g.key_id, g.n, m.count - g.n as before,
                 greatest(0, least(g.n, k.rpm - (m.count - g.n)))::int as n_admitted
          from g join m on m.key_id = g.key_id join k on k.id = g.key_id
        ), d as (
          insert into rate_limit_counters (key_id, bucket, window_start, count)
          select key_id, 'd', ${first.dayStart}, n_admitted from admitted where n_admitted > 0
          on conflict (key_id, bucket, window_start) do update set count = rate_limit_counters.count + excluded.count
          returning key_id, count
        )
        select req.ord, k.id, k.name, k.kind, k.account_id as "accountId", k.scopes, k.rpm,
               k.daily_limit as "dailyLimit", k.revoked_at as "revokedAt", k.account_email as "accountEmail",
               k.account_status as "accountStatus", k.plan, k.tos_accepted_version as "tosAcceptedVersion",
               admitted.before + ranked.i as minute,
               case when ranked.i <= admitted.n_admitted then d.count - admitted.n_admitted + ranked.i end as day,
               (select c.count from rate_limit_counters c where c.key_id = k.id and c.bucket = 'd'
                  and c.window_start = ${first.dayStart}) as "dayBefore"
        from req
        left join k on k.hash = req.hash
        left join ranked on ranked.ord = req.ord
        left join admitted on admitted.key_id = ranked.key_id
        left join d on d.key_id = ranked.key_id`,
  );
  const byPosition = new Map(rows.map((row) => [Number(row.ord), row]));
  return batch.map((_, index) => byPosition.get(index + 1));
}

function keyOf(actor: Actor): ActorKey {
  const key = actorKey(actor);
  if (!key) throw new Error("a key-authenticated actor without its key");
  return key;
}

/** Turns the counts into headers, or the 429 of the bucket that is over (minute first). */
export function evaluateCounts(
  key: ActorKey,
  minuteCount: number,
  dayCount: number,
  now: Date,
): RateLimitResult {
  const dayStart = dayWindowStart(now);
  const reset = minuteWindowStart(now) + 60;
  const result = headersFor(
    key.rpm,
    Math.max(0, key.rpm - minuteCount),
    reset,
    Math.max(0, key.rpd - dayCount),
  );
  const nowSeconds = now.getTime() / 1000;
  if (minuteCount > key.rpm) {
    const retryAfter = Math.min(60, Math.max(1, Math.ceil(reset - nowSeconds)));
    throw rateLimitError("rpm_exceeded", retryAfter, result.headers);
  }
  if (dayCount > key.rpd) {
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
    // docs/api.md, "Rate limits": the bucket name appears inside `message` only, never as `code`.
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
      ? [{ label: `Retry after ${retryAfterSeconds} seconds`, operation: null }]
      : [{ label: "Wait for the next UTC day; check rateLimit.remainingDay", operation: "getMe" }],
    headers: { ...headers, "retry-after": String(retryAfterSeconds) },
  });
}

/** Drops counter windows older than two days (run by the scheduled jobs). */
export async function purgeRateLimitCounters(db: Db, now: Date): Promise<number> {
  const rows = await queryRows<{ key_id: string }>(
    db,
    sql`delete from rate_limit_counters where window_start < ${dayWindowStart(now) - 86_400} returning key_id`,
  );
  return rows.length;
}
