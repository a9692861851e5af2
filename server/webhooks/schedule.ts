import { env } from "@/server/env";
import type { DeliveryJob } from "./delivery";
import type { DeliveryStatus } from "./schema";

/**
 * The retry schedule (docs/webhooks.md, "Delivery"; WEBHOOK_RETRY_SCHEDULE in "Configuration"): when each attempt
 * is due, how long a claim is held, and the state a delivery is in after an attempt.
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `0s,30s,5m` -> [0, 30000, 300000]: offsets of attempts 1..n from the first dispatch. */
export function parseRetrySchedule(text: string): number[] {
  const offsets = text.split(",").map((part) => {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(part);
    if (!match) throw new Error(`WEBHOOK_RETRY_SCHEDULE: cannot read "${part}" (use e.g. 0s,30s,5m)`);
    return Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? "ms"] ?? 1));
  });
  if (offsets.length === 0) throw new Error("WEBHOOK_RETRY_SCHEDULE is empty");
  for (let i = 1; i < offsets.length; i++)
    if ((offsets[i] as number) < (offsets[i - 1] as number))
      throw new Error("WEBHOOK_RETRY_SCHEDULE offsets must not decrease");
  return offsets;
}

let cachedSchedule: { text: string; offsets: number[] } | undefined;

/** The configured schedule; its length is the number of attempts (3 by default). */
export function retrySchedule(): number[] {
  const text = env().WEBHOOK_RETRY_SCHEDULE;
  if (cachedSchedule?.text !== text) cachedSchedule = { text, offsets: parseRetrySchedule(text) };
  return cachedSchedule.offsets;
}

/** When attempt 1 is due for an event recorded at `createdAt`. */
export function firstAttemptAt(createdAt: Date): Date {
  return new Date(createdAt.getTime() + (retrySchedule()[0] ?? 0));
}

/**
 * How long a claim is held. It must outlast one attempt (timeout) plus recording it; a worker that dies
 * loses its claims after this and another worker repeats the attempt (at-least-once).
 */
export function leaseMs(): number {
  return env().WEBHOOK_TIMEOUT_MS + 10_000;
}

/**
 * The state after an attempt (docs/webhooks.md, "Delivery"). Attempt n+1 is due at first dispatch +
 * schedule[n] (`0s,30s,5m`: +30 s, then +5 min from the FIRST dispatch, not from the previous attempt); after
 * the last scheduled attempt fails the delivery is `max_attempts_reached`.
 */
export function nextState(
  job: Pick<DeliveryJob, "attemptCount" | "firstDispatchAt">,
  isSuccess: boolean,
  at: Date,
  schedule: number[] = retrySchedule(),
): { status: DeliveryStatus; nextAttemptAt: Date | null; firstDispatchAt: Date } {
  const n = job.attemptCount + 1;
  const firstDispatchAt = n === 1 ? at : job.firstDispatchAt;
  if (isSuccess) return { status: "delivered", nextAttemptAt: null, firstDispatchAt };
  const offset = schedule[n];
  if (offset === undefined) return { status: "max_attempts_reached", nextAttemptAt: null, firstDispatchAt };
  return { status: "failed", nextAttemptAt: new Date(firstDispatchAt.getTime() + offset), firstDispatchAt };
}
