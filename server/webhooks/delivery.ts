import { sql } from "drizzle-orm";
import { type Db, queryRows } from "@/server/db/client";
import { inSavepoint, retryOnDeadlock } from "@/server/db/transaction";
import { env } from "@/server/env";
import { log } from "@/server/lib/log";
import { decryptSecretCached } from "@/server/lib/secrets";
import { queueMail } from "@/server/mail/service";
import { metrics } from "@/server/observability/metrics";
import { inSpan, SpanKind, SpanStatusCode } from "@/server/observability/tracing";
import { type DeliveryStatus, type EventType, isOrderEvent } from "./schema";
import type { DeliveryAttempt } from "./tables";
import { SafeFetchError, safeFetch } from "./url-guard";
import { signatureHeader } from "./verify";

/**
 * One delivery attempt and the delivery state machine (docs/webhooks.md, "Delivery" and "Signature"). Both
 * engines (the in-process worker and the Inngest functions) call these same functions: claim ->
 * performAttempt -> recordResults.
 */

export const USER_AGENT = "service-webhook/1.0";
/** The first 2 KiB of the last response body are kept (docs/webhooks.md, "Delivery log and test fires"). */
export const RESPONSE_BODY_LIMIT = 2048;

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

export type RecordedDelivery = {
  deliveryId: string;
  status: DeliveryStatus | "removed";
  nextAttemptAt: Date | null;
};

/**
 * Writes attempt results in ONE transaction: each delivery's new state (only if this claim still owns it and
 * no other attempt was recorded meanwhile), the endpoints' `lastDeliveryAt` / `lastDeliveryStatus` /
 * `consecutiveFailures`, and for `user.*` deliveries that reached `max_attempts_reached` the failure email to
 * the endpoint owner's account email. `keepLease` (Inngest) keeps a non-final delivery owned by its function.
 * Returns what was recorded; a result whose claim was lost is left out (its attempt was a repeat).
 */
export async function recordResults(
  db: Db,
  results: AttemptResult[],
  options: { keepLease?: boolean; schedule?: number[] } = {},
): Promise<{ recorded: RecordedDelivery[]; mails: number }> {
  if (results.length === 0) return { recorded: [], mails: 0 };
  // Two workers updating the same endpoints can deadlock; PostgreSQL picks a victim, which simply runs again.
  return retryOnDeadlock(() => inSavepoint(db, (tx) => recordInTransaction(tx, results, options)));
}

async function recordInTransaction(
  db: Db,
  results: AttemptResult[],
  options: { keepLease?: boolean; schedule?: number[] },
): Promise<{ recorded: RecordedDelivery[]; mails: number }> {
  const schedule = options.schedule ?? retrySchedule();
  const recorded: RecordedDelivery[] = [];
  const attempts = results.filter(
    (r): r is Extract<AttemptResult, { kind: "attempt" }> => r.kind === "attempt",
  );
  const skips = results.filter((r) => r.kind === "skip");

  for (const skip of skips) {
    // Paused endpoint (docs/webhooks.md, "Endpoints"): no attempt, no retries; a delivery never attempted
    // leaves no row.
    const removed = await queryRows<{ id: string }>(
      db,
      sql`delete from webhook_deliveries where id = ${skip.job.deliveryId} and attempt_count = 0
          and lease_owner is not distinct from ${skip.job.leaseOwner} returning id`,
    );
    if (removed.length > 0) {
      recorded.push({ deliveryId: skip.job.deliveryId, status: "removed", nextAttemptAt: null });
      continue;
    }
    const closed = await queryRows<{ id: string }>(
      db,
      sql`update webhook_deliveries set status = 'failed', next_attempt_at = null, lease_until = null,
            lease_owner = null, updated_at = ${skip.at.toISOString()}::timestamptz
          where id = ${skip.job.deliveryId} and attempt_count = ${skip.job.attemptCount}
            and lease_owner is not distinct from ${skip.job.leaseOwner} returning id`,
    );
    if (closed.length > 0)
      recorded.push({ deliveryId: skip.job.deliveryId, status: "failed", nextAttemptAt: null });
  }

  if (attempts.length === 0) return { recorded, mails: 0 };

  const states = new Map<string, ReturnType<typeof nextState>>();
  const rows = attempts.map((r) => {
    const state = nextState(r.job, r.isSuccess, r.at, schedule);
    states.set(r.job.deliveryId, state);
    const isFinal = state.nextAttemptAt === null;
    return {
      id: r.job.deliveryId,
      owner: r.job.leaseOwner,
      expected: r.job.attemptCount,
      status: state.status,
      attempt: r.attempt,
      next_attempt_at: state.nextAttemptAt?.toISOString() ?? null,
      first_dispatch_at: state.firstDispatchAt.toISOString(),
      body: r.responseBody,
      at: r.at.toISOString(),
      release: isFinal || !options.keepLease,
    };
  });
  const updated = await queryRows<{ id: string }>(
    db,
    sql`with r as (
          select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id text, owner text,
            expected int, status text, attempt jsonb, next_attempt_at timestamptz, first_dispatch_at timestamptz,
            body text, at timestamptz, release boolean)
        )
        update webhook_deliveries d set
          status = r.status,
          attempt_count = d.attempt_count + 1,
          attempts = d.attempts || jsonb_build_array(r.attempt),
          next_attempt_at = r.next_attempt_at,
          first_dispatch_at = r.first_dispatch_at,
          last_response_body = r.body,
          lease_until = case when r.release then null else d.lease_until end,
          lease_owner = case when r.release then null else d.lease_owner end,
          updated_at = r.at
        from r
        where d.id = r.id and d.lease_owner is not distinct from r.owner and d.attempt_count = r.expected
        returning d.id`,
  );
  const done = new Set(updated.map((u) => u.id));
  const applied = attempts.filter((r) => done.has(r.job.deliveryId));
  for (const r of attempts) {
    if (!done.has(r.job.deliveryId))
      log("warn", "webhook attempt result not recorded: claim lost", { deliveryId: r.job.deliveryId });
  }
  await updateEndpointStats(db, applied);
  for (const r of applied) {
    const state = states.get(r.job.deliveryId);
    if (state)
      recorded.push({
        deliveryId: r.job.deliveryId,
        status: state.status,
        nextAttemptAt: state.nextAttemptAt,
      });
  }

  const exhausted = applied.filter(
    (r) => states.get(r.job.deliveryId)?.status === "max_attempts_reached" && !isOrderEvent(r.job.type),
  );
  const mails = exhausted.length > 0 ? await queueFailureMails(db, exhausted) : 0;
  return { recorded, mails };
}

/**
 * docs/webhooks.md, "Endpoints": `consecutiveFailures` counts failed attempts in a row and resets on a
 * success; `lastDeliveryAt`/`lastDeliveryStatus` reflect the last attempt. One statement for all endpoints of
 * a batch.
 */
async function updateEndpointStats(
  db: Db,
  applied: Extract<AttemptResult, { kind: "attempt" }>[],
): Promise<void> {
  if (applied.length === 0) return;
  const byEndpoint = new Map<string, Extract<AttemptResult, { kind: "attempt" }>[]>();
  for (const r of applied) {
    const list = byEndpoint.get(r.job.endpointId) ?? [];
    list.push(r);
    byEndpoint.set(r.job.endpointId, list);
  }
  const stats = [...byEndpoint.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([id, list]) => {
      const ordered = [...list].sort((a, b) => a.at.getTime() - b.at.getTime());
      const last = ordered[ordered.length - 1] as (typeof ordered)[number];
      let lastSuccess = -1;
      ordered.forEach((r, i) => {
        if (r.isSuccess) lastSuccess = i;
      });
      return {
        id,
        last_at: last.at.toISOString(),
        last_status: last.isSuccess ? "success" : "failure",
        reset: lastSuccess >= 0,
        failures: ordered.length - 1 - lastSuccess,
      };
    });
  await db.execute(
    sql`with s as (
          select * from jsonb_to_recordset(${JSON.stringify(stats)}::jsonb)
            as s(id text, last_at timestamptz, last_status text, reset boolean, failures int)
        )
        update webhook_endpoints e set
          last_delivery_at = case when e.last_delivery_at is null or e.last_delivery_at <= s.last_at
            then s.last_at else e.last_delivery_at end,
          last_delivery_status = case when e.last_delivery_at is null or e.last_delivery_at <= s.last_at
            then s.last_status else e.last_delivery_status end,
          consecutive_failures = case when s.reset then s.failures else e.consecutive_failures + s.failures end
        from s where e.id = s.id`,
  );
}

async function queueFailureMails(
  db: Db,
  exhausted: Extract<AttemptResult, { kind: "attempt" }>[],
): Promise<number> {
  const endpointIds = [...new Set(exhausted.map((r) => r.job.endpointId))];
  const owners = await queryRows<{ id: string; url: string; email: string; language: string }>(
    db,
    sql`select e.id, e.url, a.email, a.language from webhook_endpoints e join accounts a on a.id = e.account_id
        where e.id in (${sql.join(
          endpointIds.map((id) => sql`${id}`),
          sql`, `,
        )})`,
  );
  const byId = new Map(owners.map((o) => [o.id, o]));
  let queued = 0;
  for (const r of exhausted) {
    const owner = byId.get(r.job.endpointId);
    if (!owner) continue;
    const text = failureMailText(owner.language, {
      type: r.job.type,
      eventId: r.job.eventId,
      endpointId: r.job.endpointId,
      url: owner.url,
      attempts: r.job.attemptCount + 1,
      lastError: r.attempt.error ?? "",
    });
    await queueMail(
      db,
      { to: owner.email, subject: text.subject, text: text.body, kind: "webhook_delivery_failed" },
      r.at,
    );
    queued++;
  }
  return queued;
}

type FailureFacts = {
  type: string;
  eventId: string;
  endpointId: string;
  url: string;
  attempts: number;
  lastError: string;
};

function failureMailText(language: string, f: FailureFacts): { subject: string; body: string } {
  if (language === "es")
    return {
      subject: `Entrega de webhook fallida: ${f.type}`,
      body: [
        `No pudimos entregar el evento ${f.type} (eventId ${f.eventId}) a tu endpoint ${f.endpointId}`,
        `(${f.url}) tras ${f.attempts} intentos. Último error: ${f.lastError}.`,
        "El evento no se reintentará automáticamente. Revisa el registro de entregas del endpoint.",
      ].join("\n"),
    };
  if (language === "pt")
    return {
      subject: `Falha na entrega de webhook: ${f.type}`,
      body: [
        `Não conseguimos entregar o evento ${f.type} (eventId ${f.eventId}) ao seu endpoint ${f.endpointId}`,
        `(${f.url}) após ${f.attempts} tentativas. Último erro: ${f.lastError}.`,
        "O evento não será reenviado automaticamente. Veja o registro de entregas do endpoint.",
      ].join("\n"),
    };
  return {
    subject: `Webhook delivery failed: ${f.type}`,
    body: [
      `We could not deliver the ${f.type} event (eventId ${f.eventId}) to your endpoint ${f.endpointId}`,
      `(${f.url}) after ${f.attempts} attempts. Last error: ${f.lastError}.`,
      "The event will not be retried automatically. See the endpoint's delivery log.",
    ].join("\n"),
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
