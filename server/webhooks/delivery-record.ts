import { sql } from "drizzle-orm";
import { type Db, queryRows } from "@/server/db/client";
import { inSavepoint, retryOnDeadlock } from "@/server/db/transaction";
import { log } from "@/server/lib/log";
import { queueMail } from "@/server/mail/service";
import type { AttemptResult } from "./delivery";
import { nextState, retrySchedule } from "./schedule";
import { type DeliveryStatus, isOrderEvent } from "./schema";

/**
 * The recording half of a delivery (docs/webhooks.md, "Delivery"): attempt results written in one transaction,
 * the endpoints' delivery stats, and the failure email of a `user.*` delivery that reached `max_attempts_reached`.
 * Both engines record through `recordResults` (server/webhooks/delivery.ts attempts, this file records).
 */

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
