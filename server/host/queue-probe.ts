import { sql } from "drizzle-orm";
import { getDb, queryRows } from "@/server/db/client";
import { metrics, type QueueFacts } from "@/server/observability/metrics";

/**
 * The delivery queue's gauges (docs/operations.md, "Observability"), queried when Prometheus scrapes: open
 * deliveries (pending, or failed with a retry scheduled), those due now, and how late the oldest due one is. A
 * healthy worker keeps the last near 0; a growing age means deliveries are not being attempted.
 */
export async function queueFacts(): Promise<QueueFacts> {
  const rows = await queryRows<{ open: number; due: number; oldest: number | null }>(
    getDb(),
    sql`select count(*)::int as open,
          (count(*) filter (where next_attempt_at <= now()))::int as due,
          extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now()))::float8 as oldest
        from webhook_deliveries
        where status in ('pending', 'failed') and next_attempt_at is not null`,
  );
  const row = rows[0];
  return {
    open: Number(row?.open ?? 0),
    due: Number(row?.due ?? 0),
    oldestDueAgeSeconds: Math.max(0, Number(row?.oldest ?? 0)),
  };
}

/** Hands the probe to the metrics (main.ts's graph cannot reach the database client of Next's). */
export function registerQueueProbe(): void {
  const m = metrics();
  if (m) m.queueProbe = queueFacts;
}
