import { sql } from "drizzle-orm";
import { type Db, queryRows } from "@/server/db/client";
import { env } from "@/server/env";
import { decryptSecretCached } from "@/server/lib/secrets";
import { metrics } from "@/server/observability/metrics";
import { inSpan, SpanKind, SpanStatusCode } from "@/server/observability/tracing";
import { recordResults } from "./delivery-record";
import { leaseMs } from "./schedule";
import { type DeliveryStatus, type EventType, isOrderEvent } from "./schema";
import type { DeliveryAttempt } from "./tables";
import { SafeFetchError, safeFetch } from "./url-guard";
import { signatureHeader } from "./verify";

/**
 * One delivery attempt and the delivery state machine (docs/webhooks.md, "Delivery" and "Signature"). Both
 * engines (the in-process worker and the Inngest functions) call these same functions: claim ->
 * performAttempt -> recordResults (server/webhooks/delivery-record.ts), on the retry schedule of schedule.ts.
 */

export const USER_AGENT = "service-webhook/1.0";
/** The first 2 KiB of the last response body are kept (docs/webhooks.md, "Delivery log and test fires"). */
export const RESPONSE_BODY_LIMIT = 2048;

/** Everything one attempt needs, read in the same statement that claims the delivery. */
export type DeliveryJob = {
  deliveryId: string;
  endpointId: string;
  /** The claim token; recording checks it so a claim that was taken over cannot write. */
  leaseOwner: string | null;
  /** Attempts already made. */
  attemptCount: number;
  firstDispatchAt: Date;
  eventId: string;
  type: EventType;
  isTest: boolean;
  /** The exact envelope bytes. */
  body: string;
  url: string;
  secretCiphertext: string;
  signingSecretVersion: number;
  enabled: boolean;
};

type JobRow = {
  id: string;
  endpoint_id: string;
  lease_owner: string | null;
  attempt_count: number;
  first_dispatch_at: string | Date;
  event_id: string;
  type: string;
  is_test: boolean;
  body: string;
  url: string;
  secret_ciphertext: string;
  signing_secret_version: number;
  enabled: boolean;
};

function toJob(row: JobRow): DeliveryJob {
  return {
    deliveryId: row.id,
    endpointId: row.endpoint_id,
    leaseOwner: row.lease_owner,
    attemptCount: Number(row.attempt_count),
    firstDispatchAt: new Date(row.first_dispatch_at),
    eventId: row.event_id,
    type: row.type as EventType,
    isTest: row.is_test,
    body: row.body,
    url: row.url,
    secretCiphertext: row.secret_ciphertext,
    signingSecretVersion: Number(row.signing_secret_version),
    enabled: row.enabled,
  };
}

const JOB_COLUMNS = sql`c.id, c.endpoint_id, c.lease_owner, c.attempt_count, c.first_dispatch_at,
  ev.event_id, ev.type, ev.is_test, ev.envelope::text as body,
  ep.url, ep.secret_ciphertext, ep.signing_secret_version, ep.enabled`;

/**
 * Claims up to `limit` due deliveries for `owner` in one atomic statement: rows are picked with
 * `FOR UPDATE SKIP LOCKED` (two workers never pick the same row) and leased until `now + lease`; a lease that
 * expired (its worker died) makes the row claimable again. Returns them with their envelope and endpoint.
 */
export async function claimDueDeliveries(
  db: Db,
  options: { owner: string; limit: number; now: Date; leaseMs?: number },
): Promise<DeliveryJob[]> {
  if (options.limit <= 0) return [];
  const now = options.now.toISOString();
  const leaseUntil = new Date(options.now.getTime() + (options.leaseMs ?? leaseMs())).toISOString();
  const rows = await queryRows<JobRow>(
    db,
    sql`with due as (
          select id from webhook_deliveries
          where status in ('pending', 'failed') and next_attempt_at <= ${now}::timestamptz
            and (lease_until is null or lease_until < ${now}::timestamptz)
          order by next_attempt_at
          limit ${options.limit}
          for update skip locked
        ), c as (
          update webhook_deliveries d set lease_until = ${leaseUntil}::timestamptz, lease_owner = ${options.owner}
          from due where d.id = due.id
          returning d.*
        )
        select ${JOB_COLUMNS}
        from c join webhook_events ev on ev.id = c.event_row_id join webhook_endpoints ep on ep.id = c.endpoint_id`,
  );
  return rows.map(toJob);
}

/**
 * Lets go of claims whose statement failed in flight (the connection dropped before its answer arrived): the
 * claim may have committed on the server with nobody to work on it, and its rows would wait for the lease to run
 * out. An owner token is unique to one claim statement, so releasing it touches no other worker's rows.
 */
export async function releaseClaims(db: Db, owners: string[]): Promise<number> {
  if (owners.length === 0) return 0;
  const rows = await queryRows<{ id: string }>(
    db,
    sql`update webhook_deliveries set lease_until = null, lease_owner = null
        where lease_owner in (select jsonb_array_elements_text(${JSON.stringify(owners)}::jsonb))
          and status in ('pending', 'failed')
        returning id`,
  );
  return rows.length;
}

/** When the next open delivery that is not due yet becomes due (a worker sets its timer to it), or null. */
export async function nextDueAt(db: Db, now: Date): Promise<Date | null> {
  const rows = await queryRows<{ at: string | Date | null }>(
    db,
    sql`select min(next_attempt_at) as at from webhook_deliveries
        where status in ('pending', 'failed') and next_attempt_at > ${now.toISOString()}::timestamptz`,
  );
  const at = rows[0]?.at;
  return at ? new Date(at) : null;
}

/** One delivery with its envelope and endpoint, without claiming it (the Inngest function owns its row). */
export async function loadDeliveryJob(
  db: Db,
  deliveryId: string,
): Promise<(DeliveryJob & { status: DeliveryStatus; nextAttemptAt: Date | null }) | null> {
  const rows = await queryRows<JobRow & { status: DeliveryStatus; next_attempt_at: string | Date | null }>(
    db,
    sql`select ${JOB_COLUMNS}, c.status, c.next_attempt_at
        from webhook_deliveries c join webhook_events ev on ev.id = c.event_row_id
        join webhook_endpoints ep on ep.id = c.endpoint_id
        where c.id = ${deliveryId}`,
  );
  const row = rows[0];
  if (!row) return null;
  return {
    ...toJob(row),
    status: row.status,
    nextAttemptAt: row.next_attempt_at ? new Date(row.next_attempt_at) : null,
  };
}

export type AttemptResult =
  | {
      kind: "attempt";
      job: DeliveryJob;
      attempt: DeliveryAttempt;
      isSuccess: boolean;
      responseBody: string | null;
      at: Date;
    }
  /** The endpoint was paused after the delivery was written: no HTTP attempt is made. */
  | { kind: "skip"; job: DeliveryJob; at: Date };

/** What the headers of a delivery are made of: its event, its endpoint and the secret version that signed it. */
export type DeliveryHeaderFacts = {
  type: EventType;
  eventId: string;
  endpointId: string;
  signingSecretVersion: number;
};

/**
 * The headers of one attempt, given its `X-Service-Signature` value (docs/webhooks.md, "Delivery"). The dashboard
 * rebuilds an attempt's request from the same function and the signature recorded with the attempt.
 */
export function headersWithSignature(facts: DeliveryHeaderFacts, signature: string): Record<string, string> {
  return {
    "Content-Type": "application/json",
    "X-Service-Signature": signature,
    "X-Service-Event-Type": facts.type,
    "X-Service-Event-Id": facts.eventId,
    "X-Service-Endpoint-Id": facts.endpointId,
    "X-Service-Signing-Version": String(facts.signingSecretVersion),
    // docs/webhooks.md, "Events": order.* events come from `merchant`, user.* from `developer`.
    "X-Service-Source": isOrderEvent(facts.type) ? "merchant" : "developer",
    "User-Agent": USER_AGENT,
  };
}

/** The delivery headers, with the signature over the exact body (docs/webhooks.md, "Delivery"). */
export function deliveryHeaders(
  job: DeliveryJob,
  secret: string,
  unixSeconds: number,
): Record<string, string> {
  return headersWithSignature(job, signatureHeader(secret, unixSeconds, job.body));
}

/**
 * Makes one attempt: POST the raw envelope, signed now, to the endpoint's URL under the SSRF guard (every
 * resolved address checked, the connection pinned to it, no redirects). Success = a 2xx status within
 * WEBHOOK_TIMEOUT_MS. Never throws: every failure becomes the attempt's `error`. The attempt keeps the URL, the
 * signature header and the first 2 KiB of the answer, so the delivery log can show the exact exchange (the
 * signature is not a secret: the receiver saw it).
 */
export async function performAttempt(job: DeliveryJob, now: Date = new Date()): Promise<AttemptResult> {
  if (!job.enabled) {
    metrics()?.webhookAttempts.inc({ outcome: "skipped" });
    return { kind: "skip", job, at: now };
  }
  // Observability (docs/operations.md): a span per attempt, and attempts counted by outcome.
  return inSpan(
    "webhook attempt",
    {
      kind: SpanKind.CLIENT,
      attributes: {
        "marea.delivery_id": job.deliveryId,
        "marea.endpoint_id": job.endpointId,
        "marea.event_type": job.type,
        "marea.attempt": job.attemptCount + 1,
      },
    },
    async (span) => {
      const result = await attemptOnce(job, now);
      if (result.kind !== "attempt") return result;
      const outcome = attemptOutcome(result.attempt);
      const m = metrics();
      m?.webhookAttempts.inc({ outcome });
      m?.webhookAttemptDuration.observe({ outcome }, result.attempt.durationMs / 1000);
      span?.setAttribute("marea.outcome", outcome);
      if (result.attempt.httpStatus !== null)
        span?.setAttribute("http.response.status_code", result.attempt.httpStatus);
      if (!result.isSuccess) span?.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
      return result;
    },
  );
}

/** `success`, `http_error` (an answer outside 2xx), the guard's `timeout` / `connection` / `blocked`, or `error`. */
function attemptOutcome(attempt: DeliveryAttempt): string {
  if (attempt.error === null) return "success";
  if (attempt.httpStatus !== null) return "http_error";
  const kind = /^(timeout|connection|blocked):/.exec(attempt.error)?.[1];
  return kind ?? "error";
}

async function attemptOnce(job: DeliveryJob, now: Date): Promise<AttemptResult> {
  const n = job.attemptCount + 1;
  const started = performance.now();
  let httpStatus: number | null = null;
  let error: string | null = null;
  let responseBody: string | null = null;
  let signature: string | null = null;
  try {
    let secret: string;
    try {
      secret = decryptSecretCached(job.secretCiphertext);
    } catch {
      throw new Error("signing secret unavailable (SECRETS_KEY changed?)");
    }
    signature = signatureHeader(secret, Math.floor(now.getTime() / 1000), job.body);
    const response = await safeFetch(job.url, {
      method: "POST",
      headers: headersWithSignature(job, signature),
      body: job.body,
      timeoutMs: env().WEBHOOK_TIMEOUT_MS,
      maxBodyBytes: RESPONSE_BODY_LIMIT,
    });
    httpStatus = response.status;
    // PostgreSQL text and jsonb cannot hold NUL: a receiver answering one must not make the result unwritable.
    responseBody = response.body.replaceAll("\u0000", "\uFFFD");
    if (response.status < 200 || response.status > 299) error = `HTTP ${response.status}`;
  } catch (failure) {
    error =
      failure instanceof SafeFetchError
        ? `${failure.kind}: ${failure.message}`
        : `error: ${failure instanceof Error ? failure.message : String(failure)}`;
  }
  const durationMs = Math.round(performance.now() - started);
  return {
    kind: "attempt",
    job,
    attempt: {
      n,
      at: now.toISOString(),
      httpStatus,
      durationMs,
      error: error?.slice(0, 500) ?? null,
      url: job.url,
      signature,
      signingSecretVersion: job.signingSecretVersion,
      responseBody,
    },
    isSuccess: error === null,
    responseBody,
    at: now,
  };
}

/**
 * One attempt of one delivery, for an engine that owns the row (Inngest: `lease_owner = owner`). Idempotent:
 * if attempt `n` was already recorded (a retried step), or the delivery is finished, nothing is sent and the
 * current state is returned.
 */
export async function attemptDelivery(
  db: Db,
  deliveryId: string,
  n: number,
  options: { owner: string; now?: Date },
): Promise<{ status: DeliveryStatus | "removed"; nextAttemptAt: string | null; attempted: boolean }> {
  const job = await loadDeliveryJob(db, deliveryId);
  if (!job) return { status: "removed", nextAttemptAt: null, attempted: false };
  const isOpen = job.status === "pending" || job.status === "failed";
  if (!isOpen || job.attemptCount !== n - 1 || job.leaseOwner !== options.owner || !job.nextAttemptAt)
    return { status: job.status, nextAttemptAt: job.nextAttemptAt?.toISOString() ?? null, attempted: false };
  const result = await performAttempt(job, options.now ?? new Date());
  const { recorded } = await recordResults(db, [result], { keepLease: true });
  const state = recorded[0];
  if (!state) {
    const now = await loadDeliveryJob(db, deliveryId);
    return {
      status: now?.status ?? "removed",
      nextAttemptAt: now?.nextAttemptAt?.toISOString() ?? null,
      attempted: true,
    };
  }
  return { status: state.status, nextAttemptAt: state.nextAttemptAt?.toISOString() ?? null, attempted: true };
}

/**
 * Hands deliveries to an external engine (Inngest): claims open deliveries nobody owns (or whose owner's hold
 * expired), due or not, and leases them to `owner` for `holdMs`. The engine sleeps until each attempt is due.
 */
export async function claimForEngine(
  db: Db,
  options: { owner: string; limit: number; now: Date; holdMs: number },
): Promise<Array<{ deliveryId: string; attemptCount: number }>> {
  const now = options.now.toISOString();
  const until = new Date(options.now.getTime() + options.holdMs).toISOString();
  const rows = await queryRows<{ id: string; attempt_count: number }>(
    db,
    sql`with due as (
          select id from webhook_deliveries
          where status in ('pending', 'failed') and next_attempt_at is not null
            and (lease_until is null or lease_until < ${now}::timestamptz)
          order by next_attempt_at
          limit ${options.limit}
          for update skip locked
        )
        update webhook_deliveries d set lease_until = ${until}::timestamptz, lease_owner = ${options.owner}
        from due where d.id = due.id
        returning d.id, d.attempt_count`,
  );
  return rows.map((r) => ({ deliveryId: r.id, attemptCount: Number(r.attempt_count) }));
}

/** Gives deliveries back (e.g. the hand-off to the engine failed), so the next sweep tries again. */
export async function releaseDeliveries(db: Db, deliveryIds: string[], owner: string): Promise<void> {
  if (deliveryIds.length === 0) return;
  await db.execute(
    sql`update webhook_deliveries set lease_until = null, lease_owner = null
        where lease_owner = ${owner} and id in (${sql.join(
          deliveryIds.map((id) => sql`${id}`),
          sql`, `,
        )})`,
  );
}

/**
 * Delivery-log retention, 30 days (docs/webhooks.md, "Delivery log and test fires"). Deletes older deliveries
 * and events left without any.
 */
export async function purgeDeliveries(db: Db, now: Date): Promise<{ deliveries: number; events: number }> {
  const cutoff = new Date(now.getTime() - 30 * 24 * 60 * 60 * 1000).toISOString();
  const deliveries = await queryRows<{ id: string }>(
    db,
    sql`delete from webhook_deliveries where created_at < ${cutoff}::timestamptz
          and status in ('delivered', 'failed', 'max_attempts_reached') returning id`,
  );
  const events = await queryRows<{ id: string }>(
    db,
    sql`delete from webhook_events ev where ev.created_at < ${cutoff}::timestamptz
          and not exists (select 1 from webhook_deliveries d where d.event_row_id = ev.id) returning id`,
  );
  return { deliveries: deliveries.length, events: events.length };
}
