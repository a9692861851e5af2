import { Inngest } from "inngest";
import { type Db, dbReady } from "@/server/db/client";
import { env } from "@/server/env";
import { log } from "@/server/lib/log";
import { deliverPendingMail } from "@/server/mail/service";
import { attemptDelivery, claimForEngine, loadDeliveryJob, releaseDeliveries } from "./delivery";
import { retrySchedule } from "./schedule";
import { onWakeDeliveries } from "./wake";

/**
 * The Inngest engine (docs/webhooks.md, "Engines"), used when INNGEST_* is configured. Same logic as the
 * in-process worker: `attemptDelivery` is the attempt + state machine of delivery.ts, run as one `step.run`
 * per attempt, with `step.sleepUntil` up to the next scheduled attempt (offsets from the first dispatch).
 *
 * Hand-off: deliveries are written by `emitEvent` (outbox). `dispatchToInngest` leases open deliveries to the
 * owner `inngest` and sends one event per delivery, with an event id that Inngest de-duplicates; it runs after
 * commits (`wakeDeliveries`, never awaited on a request) and every minute from a cron function, which also
 * picks up anything whose hand-off was lost (the lease expires, the next sweep sends it again).
 */

export const inngest = new Inngest({ id: "marea" });

export const DELIVERY_EVENT = "marea/webhook.delivery.requested";
/** The `lease_owner` of deliveries handed to Inngest. */
export const INNGEST_OWNER = "inngest";

/** How long a hand-off holds a delivery: the whole schedule, every timeout, and a margin for Inngest queues. */
function holdMs(): number {
  const schedule = retrySchedule();
  return (schedule[schedule.length - 1] ?? 0) + schedule.length * env().WEBHOOK_TIMEOUT_MS + 15 * 60_000;
}

export type DeliveryRequest = { name: string; id: string; data: { deliveryId: string } };

/** Leases open deliveries to Inngest and returns the events that start their functions. */
export async function claimDeliveryRequests(db: Db, now: Date, limit = 500): Promise<DeliveryRequest[]> {
  const claimed = await claimForEngine(db, { owner: INNGEST_OWNER, limit, now, holdMs: holdMs() });
  return claimed.map((c) => ({
    name: DELIVERY_EVENT,
    // Inngest ignores a second event with the same id: a repeated hand-off never starts a second run.
    id: `${c.deliveryId}:${c.attemptCount}`,
    data: { deliveryId: c.deliveryId },
  }));
}

/** Hands every open delivery to Inngest now (`inngest.send`); a failed send gives the deliveries back. */
export async function dispatchToInngest(db: Db, now = new Date()): Promise<number> {
  let sent = 0;
  for (;;) {
    const requests = await claimDeliveryRequests(db, now);
    if (requests.length === 0) return sent;
    try {
      await inngest.send(requests);
    } catch (error) {
      await releaseDeliveries(
        db,
        requests.map((r) => r.data.deliveryId),
        INNGEST_OWNER,
      );
      throw error;
    }
    sent += requests.length;
    if (requests.length < 500) return sent;
  }
}

/**
 * One function run per delivery: attempt, sleep until the next offset, attempt, ... (docs/webhooks.md,
 * "Engines"; the schedule: "Delivery").
 */
export const deliverWebhookFunction = inngest.createFunction(
  { id: "deliver-webhook", name: "Deliver a webhook", triggers: [{ event: DELIVERY_EVENT }], retries: 3 },
  async ({ event, step }) => {
    const deliveryId = String((event.data as { deliveryId?: unknown }).deliveryId ?? "");
    const start = await step.run("load", async () => {
      const job = await loadDeliveryJob(await dbReady(), deliveryId);
      if (!job) return null;
      return {
        attemptCount: job.attemptCount,
        status: job.status,
        nextAttemptAt: job.nextAttemptAt?.toISOString() ?? null,
        now: new Date().toISOString(),
      };
    });
    if (!start?.nextAttemptAt || (start.status !== "pending" && start.status !== "failed"))
      return { deliveryId, status: start?.status ?? "removed", attempts: [] as number[] };

    const made: number[] = [];
    let nextAt = start.nextAttemptAt;
    let status: string = start.status;
    const maxAttempts = retrySchedule().length;
    for (let n = start.attemptCount + 1; n <= maxAttempts; n++) {
      // The first attempt is usually due already; every later one waits for its offset from first dispatch.
      if (n > start.attemptCount + 1 || nextAt > start.now)
        await step.sleepUntil(`wait-for-attempt-${n}`, nextAt);
      const outcome = await step.run(`attempt-${n}`, async () => {
        const db = await dbReady();
        const result = await attemptDelivery(db, deliveryId, n, { owner: INNGEST_OWNER });
        if (result.status === "max_attempts_reached") await deliverPendingMail(db);
        return result;
      });
      if (outcome.attempted) made.push(n);
      status = outcome.status;
      if (outcome.status !== "failed" || !outcome.nextAttemptAt) break;
      nextAt = outcome.nextAttemptAt;
    }
    return { deliveryId, status, attempts: made };
  },
);

/** Every minute: hand over deliveries whose hand-off was lost or never happened. */
export const dispatchSweepFunction = inngest.createFunction(
  {
    id: "webhook-dispatch-sweep",
    name: "Hand open webhook deliveries to Inngest",
    triggers: [{ cron: "* * * * *" }],
  },
  async ({ step }) => {
    const requests = await step.run("claim", async () => claimDeliveryRequests(await dbReady(), new Date()));
    if (requests.length > 0) await step.sendEvent("send-deliveries", requests);
    return { dispatched: requests.length };
  },
);

/** Inngest mode: hand deliveries over right after commits (fire and forget; the cron sweep is the net). */
export function startInngestDispatcher(): () => void {
  let running = false;
  let again = false;
  const dispatch = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await dispatchToInngest(await dbReady());
      } while (again);
    } catch (error) {
      log("warn", "could not hand webhook deliveries to Inngest; the cron sweep will retry", { error });
    } finally {
      running = false;
    }
  };
  return onWakeDeliveries(() => {
    void dispatch();
  });
}
