import {
  cancelAccountsWithoutCurrentTerms,
  cancelStaleUnverifiedAccounts,
} from "@/server/accounts/cancellation";
import { purgeAccountLimitWindows } from "@/server/accounts/service";
import type { Db } from "@/server/db/client";
import { purgeUnreferencedFiles } from "@/server/files/service";
import { purgeIdempotencyKeys } from "@/server/gate/idempotency";
import { purgeRateLimitCounters } from "@/server/gate/rate-limit";
import type { JobTable } from "@/server/jobs/runner";
import { runJob as runJobOf } from "@/server/jobs/runner";
import { startJobScheduler } from "@/server/jobs/scheduler";
import { purgeAccountRateLimits } from "@/server/limits/service";
import { purgeListenSessions } from "@/server/listen/service";
import { deliverPendingMail, purgeMailOutbox } from "@/server/mail/service";
import { purgeExpiredOAuthData } from "@/server/oauth/grants";
import { cancelStalePublicOrders } from "@/server/orders/lifecycle";
import { purgePublicOrderRateLimits } from "@/server/orders/public";
import { processPendingProductImages } from "@/server/products/images";
import { purgeExpiredSignInData } from "@/server/sessions/service";
import { processPendingBrandingImages } from "@/server/storefronts/branding-images";
import { purgeDeliveries } from "@/server/webhooks/delivery";
/**
 * Every scheduled job by name. `npm run cli -- jobs run <name>`, the in-process scheduler and the Inngest cron
 * functions all run these same functions; each takes the current time so tests need no waiting.
 */
export const JOBS: JobTable = {
  "purge-rate-limits": {
    description:
      "Drop rate-limit counter windows older than two days, and past public-order and account limit windows",
    run: async (db, now) => ({
      deleted: await purgeRateLimitCounters(db, now),
      publicOrderWindows: await purgePublicOrderRateLimits(db, now),
      accountLimitWindows: await purgeAccountLimitWindows(db, now),
      accountRateWindows: await purgeAccountRateLimits(db, now),
    }),
  },
  "purge-idempotency-keys": {
    description: "Drop idempotency records older than 24 hours",
    run: async (db, now) => ({ deleted: await purgeIdempotencyKeys(db, now) }),
  },
  "cleanup-unverified": {
    description: "Cancel bootstrap accounts never verified within 30 days (user.cancelled, 30d_unverified)",
    run: async (db, now) => ({ cancelled: await cancelStaleUnverifiedAccounts(db, now) }),
  },
  "cleanup-no-tos": {
    description: "Cancel verified accounts without the current terms 90 days after publication (90d_no_tos)",
    run: async (db, now) => ({ cancelled: await cancelAccountsWithoutCurrentTerms(db, now) }),
  },
  "process-product-images": {
    description:
      "Fetch product images still pending (their process stopped before the after-commit task ran)",
    run: async (db) => ({ ...(await processPendingProductImages(db)) }),
  },
  "process-branding-images": {
    description:
      "Resize storefront logos and backgrounds still pending 10 minutes after their write (their process stopped before the after-commit task ended)",
    run: async (db, now) => ({ ...(await processPendingBrandingImages(db, now)) }),
  },
  "purge-files": {
    description:
      "Delete uploaded and fetched images no product or storefront has referred to for 30 days (bytes, then rows)",
    run: async (db, now) => ({ ...(await purgeUnreferencedFiles(db, now)) }),
  },
  "send-pending-mail": {
    description: "Send mail still pending in the outbox (a failed SMTP send is retried up to 5 times)",
    run: async (db, now) => ({ sent: await deliverPendingMail(db, now) }),
  },
  "purge-mail": {
    description:
      "Clear the text of code mails older than 24 hours (codes expired) and drop outbox rows older than 30 days",
    run: async (db, now) => ({ ...(await purgeMailOutbox(db, now)) }),
  },
  "purge-sign-in": {
    description:
      "Drop expired dashboard sessions, sign-in codes and challenges, and old sign-in rate-limit windows",
    run: async (db, now) => ({ ...(await purgeExpiredSignInData(db, now)) }),
  },
  "purge-oauth": {
    description:
      "Drop OAuth codes and tokens expired a day ago, stale authorization requests, old rate-limit windows, refresh answers past their reuse grace and unused clients",
    run: async (db, now) => ({ ...(await purgeExpiredOAuthData(db, now)) }),
  },
  "expire-public-orders": {
    description:
      "Cancel public orders still pending 60 minutes after they were placed; their stock goes back (order.status_updated)",
    run: async (db, now) => ({ cancelled: await cancelStalePublicOrders(db, now) }),
  },
  "purge-deliveries": {
    description: "Drop webhook deliveries older than 30 days (delivery log retention) and their events",
    run: async (db, now) => ({ deleted: await purgeDeliveries(db, now) }),
  },
  "purge-listen-sessions": {
    description:
      "Drop marea listen sessions closed (or idle) for more than a day, with their undelivered rows",
    run: async (db, now) => ({ deleted: await purgeListenSessions(db, now) }),
  },
};

export const JOB_NAMES = Object.keys(JOBS);

/** Runs one job by name now (`npm run cli -- jobs run <name>`, the tests). */
export function runJob(db: Db, name: string, now: Date): Promise<Record<string, unknown>> {
  return runJobOf(JOBS, db, name, now);
}

// The in-process scheduler (the default engine; docs/operations.md, "Scheduled jobs"): one per process, kept on
// globalThis (Next.js may evaluate this module more than once). The server start runs it beside the webhook
// worker.
const holder = globalThis as unknown as { __mareaJobScheduler?: () => void };

/** Starts this process's share of the scheduled jobs once (server start-up). */
export function ensureJobScheduler(): void {
  holder.__mareaJobScheduler ??= startJobScheduler(JOBS);
}

export function stopJobScheduler(): void {
  holder.__mareaJobScheduler?.();
  holder.__mareaJobScheduler = undefined;
}
