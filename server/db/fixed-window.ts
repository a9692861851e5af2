import { sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { type Db, queryRows } from "@/server/db/client";
import { sha256Hex } from "@/server/lib/crypto";

/**
 * A table of fixed-window counters: `(key, window_start)` primary key and a `count` (the sign-in limits and the
 * public order limit each have one).
 */
export type WindowCounterTable = PgTable & { key: PgColumn; windowStart: PgColumn; count: PgColumn };

export type WindowBucket = { key: string; limit: number };

export type WindowCount = {
  /** Some bucket is past its limit (this request included). */
  isOver: boolean;
  /** Milliseconds until the window rolls over. */
  retryAfterMs: number;
  /** Each bucket's count in its window after this request, in the order of `buckets`. */
  counts: number[];
};

/** Epoch seconds at which the fixed window of `windowSeconds` holding `now` starts. */
export function windowStartOf(now: Date, windowSeconds: number): number {
  return Math.floor(now.getTime() / 1000 / windowSeconds) * windowSeconds;
}

/**
 * Counts one request in each bucket's current window, atomically under any concurrency (one `insert ... on
 * conflict do update ... returning` statement), and says whether any bucket went past its limit. Keys are
 * stored as their sha256, so a table never holds an address. Run it in its own statement before the work, so
 * refused and failed requests count too and a rolled-back transaction cannot undo a count.
 */
export async function countInFixedWindow(
  db: Db,
  table: WindowCounterTable,
  input: { buckets: WindowBucket[]; windowSeconds: number; now: Date },
): Promise<WindowCount> {
  const windowStart = windowStartOf(input.now, input.windowSeconds);
  const retryAfterMs = (windowStart + input.windowSeconds) * 1000 - input.now.getTime();
  if (input.buckets.length === 0) return { isOver: false, retryAfterMs, counts: [] };
  const hashed = input.buckets.map((bucket) => ({ ...bucket, key: sha256Hex(bucket.key) }));
  const column = (c: PgColumn) => sql.identifier(c.name);
  const rows = await queryRows<{ key: string; count: number | string }>(
    db,
    sql`insert into ${table} (${column(table.key)}, ${column(table.windowStart)}, ${column(table.count)})
        values ${sql.join(
          hashed.map((bucket) => sql`(${bucket.key}, ${windowStart}, 1)`),
          sql`, `,
        )}
        on conflict (${column(table.key)}, ${column(table.windowStart)})
        do update set ${column(table.count)} = ${table.count} + 1
        returning ${table.key} as key, ${table.count} as count`,
  );
  const counts = new Map(rows.map((row) => [row.key, Number(row.count)]));
  const isOver = hashed.some((bucket) => (counts.get(bucket.key) ?? 0) > bucket.limit);
  return { isOver, retryAfterMs, counts: hashed.map((bucket) => counts.get(bucket.key) ?? 0) };
}

/**
 * A bucket's count in its current window, without counting this request (0 when the window has none): for a limit
 * that counts only some outcomes (after the work) but refuses before it.
 */
export async function readFixedWindow(
  db: Db,
  table: WindowCounterTable,
  input: { key: string; windowSeconds: number; now: Date },
): Promise<number> {
  const column = (c: PgColumn) => sql.identifier(c.name);
  const rows = await queryRows<{ count: number | string }>(
    db,
    sql`select ${column(table.count)} as count from ${table}
        where ${column(table.key)} = ${sha256Hex(input.key)}
          and ${column(table.windowStart)} = ${windowStartOf(input.now, input.windowSeconds)}`,
  );
  return Number(rows[0]?.count ?? 0);
}
