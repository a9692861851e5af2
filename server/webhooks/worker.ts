import { randomBytes } from "node:crypto";
import { type Db, databaseKind, dbReady, isDatabaseUnavailable } from "@/server/db/client";
import { subscribeNotifications } from "@/server/db/listen";
import { env } from "@/server/env";
import { log } from "@/server/lib/log";
import { deliverPendingMail } from "@/server/mail/service";
import {
  type AttemptResult,
  claimDueDeliveries,
  type DeliveryJob,
  nextDueAt,
  performAttempt,
  releaseClaims,
} from "./delivery";
import { recordResults } from "./delivery-record";
import { leaseMs } from "./schedule";
import { DELIVERY_CHANNEL, onWakeDeliveries } from "./wake";

/**
 * The in-process delivery engine (the default; docs/webhooks.md, "Engines").
 *
 * - Claims due deliveries in batches with `FOR UPDATE SKIP LOCKED` under an expiring lease (`claimDueDeliveries`),
 *   so several processes can run it on one PostgreSQL database: no attempt is claimed twice, and a crashed
 *   worker's claims are taken over when their lease expires (at-least-once: an attempt in flight at the
 *   crash may be repeated, none is lost).
 * - Runs up to `concurrency` attempts at once and records finished attempts in batches (`recordResults`).
 * - Wakes at once on commits: `LISTEN` on the channel `emitEvent` notifies (any process), `wakeDeliveries()`
 *   from `ctx.afterCommit` (this process), a timer for the retries it scheduled, and a poll as a safety net.
 */

export type WorkerOptions = {
  db?: Db;
  /** Attempts in flight at once (WEBHOOK_WORKER_CONCURRENCY, default 32). */
  concurrency?: number;
  /** Safety-net poll interval (WEBHOOK_WORKER_POLL_MS, default 1000). */
  pollMs?: number;
  /** LISTEN for NOTIFYs (default true). */
  listen?: boolean;
};

export type DeliveryWorker = {
  readonly id: string;
  wake: () => void;
  /** Stops claiming, waits for attempts in flight to be recorded. */
  stop: () => Promise<void>;
  /** Resolves when nothing is in flight and a claim found nothing due. */
  idle: () => Promise<void>;
  stats: () => { attempts: number; inFlight: number };
};

export function startDeliveryWorker(options: WorkerOptions = {}): DeliveryWorker {
  const config = env();
  const id = `w_${randomBytes(6).toString("hex")}`;
  const concurrency = options.concurrency ?? config.WEBHOOK_WORKER_CONCURRENCY;
  const pollMs = options.pollMs ?? config.WEBHOOK_WORKER_POLL_MS;
  let db: Db | null = options.db ?? null;
  let running = true;
  let inFlight = 0;
  let claimSeq = 0;
  let attempts = 0;
  let pumping = false;
  let wanted = true;
  let backlog = false;
  let lastClaimEmpty = false;
  /** Claim statements that failed in flight: they may have committed (see `releaseClaims`). */
  const lostClaims: string[] = [];
  const pending: Array<{ result: AttemptResult; done: () => void }> = [];
  let flushing = false;
  let retryTimer: NodeJS.Timeout | null = null;
  let retryAt = Number.POSITIVE_INFINITY;
  const idleWaiters: Array<() => void> = [];
  const stopWaiters: Array<() => void> = [];
  const cleanups: Array<() => unknown> = [];

  const checkIdle = () => {
    if (inFlight === 0 && !pumping && lastClaimEmpty && !wanted) {
      for (const resolve of idleWaiters.splice(0)) resolve();
    }
    if (!running && inFlight === 0 && !pumping) {
      for (const resolve of stopWaiters.splice(0)) resolve();
    }
  };

  const wake = () => {
    if (!running) return;
    wanted = true;
    if (!pumping) void pump();
  };

  async function pump(): Promise<void> {
    pumping = true;
    try {
      db ??= await dbReady();
      if (lostClaims.length > 0) {
        const released = await releaseClaims(db, lostClaims);
        if (released > 0)
          log("info", "webhook worker: released claims lost in flight", { worker: id, released });
        lostClaims.length = 0;
      }
      while (running && wanted) {
        wanted = false;
        const free = concurrency - inFlight;
        if (free <= 0) {
          backlog = true;
          break;
        }
        const owner = `${id}:${++claimSeq}`;
        const jobs = await claimDueDeliveries(db, { owner, limit: free, now: new Date() }).catch(
          (error: unknown) => {
            if (isDatabaseUnavailable(error)) lostClaims.push(owner);
            throw error;
          },
        );
        lastClaimEmpty = jobs.length === 0;
        // Claimed: they run now, whatever happens to the next statement.
        for (const job of jobs) run(job);
        if (jobs.length === free) {
          wanted = true;
          backlog = true;
        } else {
          // Caught up: sleep until the next scheduled attempt (any worker's), not just until the next poll.
          const dueAt = await nextDueAt(db, new Date());
          if (dueAt) scheduleRetry(dueAt.getTime());
        }
      }
    } catch (error) {
      log("error", "webhook worker: claim failed", { worker: id, error });
      // The poll would retry within WEBHOOK_WORKER_POLL_MS anyway; a lost database is retried sooner.
      setTimeout(wake, 250).unref();
    } finally {
      pumping = false;
      checkIdle();
    }
  }

  function run(job: DeliveryJob): void {
    inFlight++;
    void performAttempt(job)
      .then(
        (result) =>
          new Promise<void>((done) => {
            pending.push({ result, done });
            void flush();
          }),
      )
      .catch((error: unknown) => log("error", "webhook worker: attempt failed", { worker: id, error }))
      .finally(() => {
        inFlight--;
        attempts++;
        if (backlog) {
          backlog = false;
          wake();
        }
        checkIdle();
      });
  }

  // Finished attempts whose recording failed (the database away) are kept and recorded once it answers again,
  // for as long as their claims' lease lasts; after that another worker may repeat them (at-least-once).
  let recordingFailedSince: number | null = null;

  async function flush(): Promise<void> {
    if (flushing || pending.length === 0) return;
    flushing = true;
    const batch = pending.splice(0);
    let retryIn: number | null = null;
    try {
      const { recorded, mails } = await recordResults(
        db as Db,
        batch.map((b) => b.result),
      );
      recordingFailedSince = null;
      for (const b of batch) b.done();
      for (const r of recorded) if (r.nextAttemptAt) scheduleRetry(r.nextAttemptAt.getTime());
      if (mails > 0)
        void deliverPendingMail(db as Db).catch((error: unknown) =>
          log("error", "webhook worker: failure mail not sent", { worker: id, error }),
        );
    } catch (error) {
      const isFirstFailure = recordingFailedSince === null;
      recordingFailedSince ??= Date.now();
      if (Date.now() - recordingFailedSince < leaseMs()) {
        if (isFirstFailure)
          log("warn", "webhook worker: recording attempts failed, keeping them to record again", {
            worker: id,
            error,
            count: batch.length,
          });
        pending.unshift(...batch);
        retryIn = 250;
      } else {
        // The claims' lease ran out: these attempts will be made again (at-least-once).
        log("error", "webhook worker: recording attempts failed", { worker: id, error, count: batch.length });
        recordingFailedSince = null;
        for (const b of batch) b.done();
      }
    } finally {
      flushing = false;
      if (retryIn !== null) setTimeout(() => void flush(), retryIn).unref();
      else if (pending.length > 0) void flush();
    }
  }

  function scheduleRetry(at: number): void {
    if (!running || at >= retryAt) return;
    if (retryTimer) clearTimeout(retryTimer);
    retryAt = at;
    retryTimer = setTimeout(
      () => {
        retryTimer = null;
        retryAt = Number.POSITIVE_INFINITY;
        wake();
      },
      Math.max(0, at - Date.now()) + 5,
    );
    retryTimer.unref();
  }

  const poll = setInterval(wake, pollMs);
  poll.unref();
  cleanups.push(() => clearInterval(poll));
  cleanups.push(onWakeDeliveries(wake));

  if (options.listen ?? true) void listenForCommits(wake).then((stop) => cleanups.push(stop));

  wake();

  return {
    id,
    wake,
    stats: () => ({ attempts, inFlight }),
    idle: () =>
      new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        wake();
      }),
    stop: async () => {
      running = false;
      if (retryTimer) clearTimeout(retryTimer);
      for (const cleanup of cleanups.splice(0)) await cleanup();
      await new Promise<void>((resolve) => {
        stopWaiters.push(resolve);
        checkIdle();
      });
    },
  };
}

/**
 * LISTEN on the delivery channel: PostgreSQL over the process's LISTEN session, taken again whenever it is lost
 * (server/db/listen.ts; every time it is taken, the worker looks for what it may have missed), PGlite on its own
 * client.
 */
async function listenForCommits(onNotify: () => void): Promise<() => Promise<void>> {
  try {
    if (databaseKind() === "postgres") {
      return subscribeNotifications(DELIVERY_CHANNEL, {
        onNotify: () => onNotify(),
        onListening: () => onNotify(),
      });
    }
    const db = (await dbReady()) as unknown as {
      $client?: { listen?: (channel: string, cb: () => void) => Promise<() => Promise<void>> };
    };
    const unlisten = await db.$client?.listen?.(DELIVERY_CHANNEL, () => onNotify());
    return async () => {
      await unlisten?.().catch(() => {});
    };
  } catch (error) {
    log("warn", "webhook worker: LISTEN unavailable, polling only", { error });
    return async () => {};
  }
}

// One worker per process, kept on globalThis (Next.js may evaluate this module more than once).
const holder = globalThis as unknown as { __mareaDeliveryWorker?: DeliveryWorker };

/** Starts this process's worker once (server start-up). */
export function ensureDeliveryWorker(options: WorkerOptions = {}): DeliveryWorker {
  holder.__mareaDeliveryWorker ??= startDeliveryWorker(options);
  return holder.__mareaDeliveryWorker;
}

export async function stopDeliveryWorker(): Promise<void> {
  const worker = holder.__mareaDeliveryWorker;
  holder.__mareaDeliveryWorker = undefined;
  await worker?.stop();
}
