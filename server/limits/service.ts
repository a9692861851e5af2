import { lt } from "drizzle-orm";
import type { Db } from "@/server/db/client";
import { countInFixedWindow } from "@/server/db/fixed-window";
import { env } from "@/server/env";
import { AppError } from "@/server/errors";
import { accountRateLimits } from "./tables";

/**
 * Per-account limits where no API key is counted (docs/security.md, "Limits"). API keys have their own minute and
 * day buckets (docs/api.md, "Rate limits"); a dashboard session had none, so a script holding a session cookie
 * could call tRPC or GraphQL as fast as it liked, and make Marea POST test events to any host without end.
 */

/**
 * Requests a signed-in account may make through its session cookie (tRPC, GraphQL), per fixed minute: generous,
 * far above what any number of open dashboard tabs asks (a live page refreshes every few seconds). A tRPC batch
 * (at most 10 calls) is one request. SESSION_REQUESTS_PER_MINUTE changes the figure (the benchmarks raise it).
 */
export function sessionRequestLimit(): { perMinute: number; windowSeconds: number } {
  return { perMinute: env().SESSION_REQUESTS_PER_MINUTE, windowSeconds: 60 };
}

/**
 * Webhook test fires, resends and recoveries together, per account, whatever the door (/v1, GraphQL, MCP, the
 * dashboard): each makes Marea send HTTP requests to an address the account chose.
 */
export const WEBHOOK_ACTION_LIMITS = { perMinute: 10, perHour: 100 } as const;

/** Counts one session request of `accountId`; 429 `session_rate_limited` (with `retryAfterMs`) past the limit. */
export async function countSessionRequest(db: Db, accountId: string, now: Date): Promise<void> {
  const limit = sessionRequestLimit();
  const counted = await countInFixedWindow(db, accountRateLimits, {
    buckets: [{ key: `session:${accountId}`, limit: limit.perMinute }],
    windowSeconds: limit.windowSeconds,
    now,
  });
  if (counted.isOver) throw new AppError("session_rate_limited", { retryAfterMs: counted.retryAfterMs });
}

/**
 * Counts one webhook test fire, resend or recovery of `accountId`, in its minute and its hour; 429
 * `webhook_action_rate_limited` past either. Counted before the work, in statements of their own, so refused
 * attempts count too.
 */
export async function countWebhookAction(db: Db, accountId: string, now: Date): Promise<void> {
  const minute = await countInFixedWindow(db, accountRateLimits, {
    buckets: [{ key: `webhook-action:minute:${accountId}`, limit: WEBHOOK_ACTION_LIMITS.perMinute }],
    windowSeconds: 60,
    now,
  });
  const hour = await countInFixedWindow(db, accountRateLimits, {
    buckets: [{ key: `webhook-action:hour:${accountId}`, limit: WEBHOOK_ACTION_LIMITS.perHour }],
    windowSeconds: 3600,
    now,
  });
  const over = [minute, hour].filter((window) => window.isOver);
  if (over.length > 0)
    throw new AppError("webhook_action_rate_limited", {
      retryAfterMs: Math.max(...over.map((window) => window.retryAfterMs)),
    });
}

/** Drops windows that ended over an hour ago (the `purge-rate-limits` job). */
export async function purgeAccountRateLimits(db: Db, now: Date): Promise<number> {
  const floor = Math.floor(now.getTime() / 1000) - 2 * 3600;
  const deleted = await db
    .delete(accountRateLimits)
    .where(lt(accountRateLimits.windowStart, floor))
    .returning({ key: accountRateLimits.key });
  return deleted.length;
}
