import { randomBytes } from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import { type Actor, actorKey, type ServiceContext } from "@/server/context";
import { type Db, queryRows } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { accounts } from "@/server/gate/tables";
import { newId } from "@/server/lib/ids";
import { newSigningSecret } from "@/server/lib/secrets";
import { countWebhookAction } from "@/server/limits/service";
import { parseInput } from "@/server/validation";
import { headersWithSignature } from "@/server/webhooks/delivery";
import { defaultEndpointScope } from "@/server/webhooks/endpoint-scope";
import { EVENT_DATA_SCHEMAS, EVENT_ENVELOPE_SCHEMAS, type EventData } from "@/server/webhooks/event-schemas";
import { emitListenTestEvent, sampleEventData } from "@/server/webhooks/events";
import {
  API_VERSION,
  type EndpointScope,
  EVENT_TYPES,
  type EventType,
  ORDER_EVENT_TYPES,
} from "@/server/webhooks/schema";
import { onWakeDeliveries, wakeDeliveries } from "@/server/webhooks/wake";
import { authorize } from "./operations";
import {
  type CreateListenSessionInput,
  LISTEN_IDLE_MS,
  LISTEN_SESSION_ID_PATTERN,
  type ListenSessionDto,
  type ListenSessionList,
  type ListenSessionWithSecretDto,
  type ListenStreamEvent,
  listenIdleSince,
  MAX_OPEN_LISTEN_SESSIONS,
  type StreamListenSessionInput,
  type TriggeredListenEvent,
  type TriggerListenEventInput,
} from "./schema";
import { listenSessionEvents, listenSessions } from "./tables";

/**
 * `marea listen` and `marea trigger` (docs/webhooks.md, "Local development: marea listen"; docs/api.md, "Listen
 * sessions").
 *
 * Events reach a session the way they reach endpoints: `emitEvent` writes one `listen_session_events` row per open
 * session of the event's audience in the transaction of the change (server/webhooks/events.ts), so a session gets
 * exactly what GET /v1/events lists for the same key, from its creation on. The stream writes those rows in the
 * order it sends them (`seq`); a reconnection's `Last-Event-ID` acknowledges everything sent up to that event and
 * every later row is sent again, so a dropped connection loses nothing and repeats nothing. Events are never
 * assumed to commit in id order: a row that commits late is simply sent on the next poll.
 */

type SessionRow = typeof listenSessions.$inferSelect;

/** A stream counts as connected when it touched its session in the last minute (it does every 30 s). */
const CONNECTED_WITHIN_MS = 60_000;
const TOUCH_EVERY_MS = 30_000;
/** At most this many events per poll; the next poll follows at once when a page was full. */
const PAGE_SIZE = 50;
/** Closed sessions stay listed for a day (the dashboard shows what just ended). */
const CLOSED_LISTED_MS = 24 * 60 * 60 * 1000;

function typesFor(scope: EndpointScope): readonly EventType[] {
  return scope === "merchant" ? ORDER_EVENT_TYPES : EVENT_TYPES;
}

function isIdle(row: SessionRow, now: Date): boolean {
  return row.lastSeenAt.getTime() <= listenIdleSince(now).getTime();
}

/** The one mapper of a session; an idle one shows as closed (`idle`) from the moment it stopped receiving. */
export function toListenSessionDto(row: SessionRow, now: Date): ListenSessionDto {
  const idle = row.closedAt === null && isIdle(row, now);
  const closedAt = row.closedAt ?? (idle ? new Date(row.lastSeenAt.getTime() + LISTEN_IDLE_MS) : null);
  return {
    id: row.id,
    scope: row.scope,
    forwardTo: row.forwardTo,
    events: row.events as EventType[],
    status: closedAt ? "closed" : "open",
    connected:
      closedAt === null &&
      row.streamToken !== null &&
      now.getTime() - row.lastSeenAt.getTime() < CONNECTED_WITHIN_MS,
    keyId: row.keyId,
    createdAt: row.createdAt.toISOString(),
    lastSeenAt: row.lastSeenAt.toISOString(),
    closedAt: closedAt?.toISOString() ?? null,
    closedReason: row.closedReason ?? (idle ? "idle" : null),
  };
}

function normalizeEvents(scope: EndpointScope, events: readonly EventType[] | undefined): EventType[] {
  const allowed = typesFor(scope);
  if (events === undefined) return [...allowed];
  const refused = events.find((type) => !allowed.includes(type));
  if (refused)
    throw new AppError("invalid_request", {
      param: "events",
      detail: {
        en: `This key receives ${allowed.join(", ")} only; not ${refused}.`,
        es: `Esta clave solo recibe ${allowed.join(", ")}; no ${refused}.`,
        pt: `Esta chave recebe apenas ${allowed.join(", ")}; não ${refused}.`,
      },
    });
  return EVENT_TYPES.filter((type) => events.includes(type));
}

/**
 * Opens a listen session for the key's account and answers its signing secret, this once: the CLI signs each
 * forwarded event with it at the moment it forwards, so Marea keeps no copy. At most 10 open sessions per account,
 * counted under a lock on the account row. POST /v1/listen_sessions.
 */
export async function createListenSession(
  ctx: ServiceContext,
  input: CreateListenSessionInput,
): Promise<ListenSessionWithSecretDto> {
  const actor = authorize(ctx, "createListenSession");
  const scope = defaultEndpointScope(actor);
  const events = normalizeEvents(scope, input.events);
  const now = ctx.now();
  const row = await inTransaction(ctx.db, async (tx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, actor.accountId)).for("update");
    const [open] = await queryRows<{ n: number }>(
      tx,
      sql`select count(*)::int as n from listen_sessions
          where account_id = ${actor.accountId} and closed_at is null
            and last_seen_at > ${listenIdleSince(now).toISOString()}::timestamptz`,
    );
    if ((open?.n ?? 0) >= MAX_OPEN_LISTEN_SESSIONS) throw new AppError("listen_session_limit_reached");
    const [inserted] = await tx
      .insert(listenSessions)
      .values({
        id: newId("lsn"),
        accountId: actor.accountId,
        keyId: actorKey(actor)?.keyId ?? null,
        scope,
        forwardTo: input.forwardTo,
        events,
        createdAt: now,
        lastSeenAt: now,
      })
      .returning();
    return inserted as SessionRow;
  });
  return { session: toListenSessionDto(row, now), signingSecret: newSigningSecret() };
}

/**
 * The account's listen sessions, newest first: the open ones and those closed in the last day (at most 50).
 * GET /v1/listen_sessions; the dashboard's webhooks page.
 */
export async function listListenSessions(ctx: ServiceContext): Promise<ListenSessionList> {
  const actor = authorize(ctx, "listListenSessions");
  const now = ctx.now();
  const since = new Date(now.getTime() - CLOSED_LISTED_MS);
  const rows = await ctx.db
    .select()
    .from(listenSessions)
    .where(
      and(
        eq(listenSessions.accountId, actor.accountId),
        sql`coalesce(${listenSessions.closedAt}, ${listenSessions.lastSeenAt} + interval '1 hour') > ${since.toISOString()}::timestamptz`,
      ),
    )
    .orderBy(desc(listenSessions.id))
    .limit(50);
  return { data: rows.map((row) => toListenSessionDto(row, now)) };
}

async function findSession(db: Db, actor: Actor, sessionId: string): Promise<SessionRow> {
  const notFound = new AppError("listen_session_not_found", { param: "sessionId" });
  if (!LISTEN_SESSION_ID_PATTERN.test(sessionId)) throw notFound;
  const [row] = await db
    .select()
    .from(listenSessions)
    .where(and(eq(listenSessions.id, sessionId), eq(listenSessions.accountId, actor.accountId)));
  if (!row) throw notFound;
  return row;
}

/**
 * Closes a session of the account (the CLI on exit, or the dashboard's Close): it receives nothing more, its stream
 * ends, and its undelivered rows are dropped. Closing a closed session answers it as it is.
 * DELETE /v1/listen_sessions/{sessionId}.
 */
export async function closeListenSession(
  ctx: ServiceContext,
  input: { sessionId: string },
): Promise<ListenSessionDto> {
  const actor = authorize(ctx, "closeListenSession");
  const now = ctx.now();
  const row = await inTransaction(ctx.db, async (tx) => {
    const found = await findSession(tx, actor, input.sessionId);
    if (found.closedAt) return found;
    const [closed] = await tx
      .update(listenSessions)
      .set({
        closedAt: now,
        closedReason: actor.via.type === "session" ? "dashboard" : "cli",
        streamToken: null,
      })
      .where(eq(listenSessions.id, found.id))
      .returning();
    await tx.delete(listenSessionEvents).where(eq(listenSessionEvents.sessionId, found.id));
    return closed as SessionRow;
  });
  return toListenSessionDto(row, now);
}

// ---------------------------------------------------------------------------------------------------------------
// The stream

export type ListenStreamMessage =
  | { kind: "event"; event: ListenStreamEvent }
  /** Nothing to send for a while: the door writes a comment so proxies keep the connection. */
  | { kind: "heartbeat" }
  /** The session was closed (dashboard, CLI elsewhere, idle, key revoked): the stream ends after this. */
  | { kind: "closed"; reason: string };

export type ListenStream = {
  session: ListenSessionDto;
  messages: AsyncGenerator<ListenStreamMessage, void, undefined>;
};

export type ListenStreamOptions = {
  /** How often the stream looks for events when nothing woke it (another process's events). */
  pollMs?: number;
  /** Silence after which a heartbeat is sent. */
  heartbeatMs?: number;
};

// Streams of this process wake at once when this process commits an event (the same hook as the delivery worker);
// events committed by other processes are found by the poll.
const waiters = new Set<() => void>();
let isHookedToWake = false;

function waitForWake(ms: number): { promise: Promise<void>; cancel: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  const done = () => {
    clearTimeout(timer);
    waiters.delete(done);
    resolve();
  };
  const timer = setTimeout(done, ms);
  waiters.add(done);
  if (!isHookedToWake) {
    isHookedToWake = true;
    onWakeDeliveries(() => {
      for (const waiter of [...waiters]) waiter();
    });
  }
  return { promise, cancel: done };
}

/**
 * Opens the stream of a session (GET /v1/listen_sessions/{sessionId}/stream): checks it is the caller's and open
 * (404 `listen_session_not_found`, 410 `listen_session_closed`) before anything is sent, takes the stream over from
 * any older connection of the session, acknowledges what `lastEventId` says arrived (the event's `evt_` id or its
 * envelope's `eventId`) and puts everything sent after it back in line. Then `messages` yields the session's events
 * in the order they are sent, until the session closes, another connection takes over, or the caller stops reading.
 */
export async function openListenStream(
  ctx: ServiceContext,
  input: StreamListenSessionInput,
  options: ListenStreamOptions = {},
): Promise<ListenStream> {
  const actor = authorize(ctx, "streamListenSession");
  const now = ctx.now();
  const token = randomBytes(16).toString("hex");
  const row = await inTransaction(ctx.db, async (tx) => {
    const found = await findSession(tx, actor, input.sessionId);
    if (found.closedAt) throw new AppError("listen_session_closed", { param: "sessionId" });
    if (isIdle(found, now)) {
      await tx
        .update(listenSessions)
        .set({ closedAt: now, closedReason: "idle", streamToken: null })
        .where(eq(listenSessions.id, found.id));
      await tx.delete(listenSessionEvents).where(eq(listenSessionEvents.sessionId, found.id));
      throw new AppError("listen_session_closed", { param: "sessionId" });
    }
    const [taken] = await tx
      .update(listenSessions)
      .set({ streamToken: token, lastSeenAt: now })
      .where(eq(listenSessions.id, found.id))
      .returning();
    if (input.lastEventId) {
      await tx.execute(sql`
        update listen_session_events set acked = true
        where session_id = ${found.id} and not acked and seq is not null
          and seq <= (select le.seq from listen_session_events le
                      join webhook_events ev on ev.id = le.event_row_id
                      where le.session_id = ${found.id}
                        and (ev.id = ${input.lastEventId} or ev.event_id = ${input.lastEventId.toLowerCase()}))`);
    }
    // Sent on an earlier connection and not acknowledged: in line again, in event order.
    await tx.execute(sql`
      update listen_session_events set seq = null
      where session_id = ${found.id} and not acked and seq is not null`);
    return taken as SessionRow;
  });
  return {
    session: toListenSessionDto(row, now),
    messages: streamMessages(ctx, row, token, options),
  };
}

type PollState =
  | { kind: "gone" }
  | { kind: "closed"; reason: string }
  | { kind: "events"; events: ListenStreamEvent[]; isFull: boolean };

async function* streamMessages(
  ctx: ServiceContext,
  session: SessionRow,
  token: string,
  options: ListenStreamOptions,
): AsyncGenerator<ListenStreamMessage, void, undefined> {
  const pollMs = options.pollMs ?? 1000;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  let lastWrite = Date.now();
  let lastTouch = Date.now();
  try {
    for (;;) {
      const state = await pollSession(ctx.db, session, token);
      if (state.kind === "gone") return;
      if (state.kind === "closed") {
        yield { kind: "closed", reason: state.reason };
        return;
      }
      for (const event of state.events) yield { kind: "event", event };
      if (state.events.length > 0) lastWrite = Date.now();
      if (Date.now() - lastTouch >= TOUCH_EVERY_MS) {
        lastTouch = Date.now();
        await touchSession(ctx.db, session.id, token, ctx.now());
      }
      if (state.isFull) continue;
      if (Date.now() - lastWrite >= heartbeatMs) {
        lastWrite = Date.now();
        yield { kind: "heartbeat" };
      }
      await waitForWake(pollMs).promise;
    }
  } finally {
    // The caller stopped reading (the client went away) or the stream ended: the session is no longer connected,
    // unless a newer connection owns it.
    await queryRows(
      ctx.db,
      sql`update listen_sessions set stream_token = null
          where id = ${session.id} and stream_token = ${token} returning id`,
    ).catch(() => undefined);
  }
}

async function touchSession(db: Db, sessionId: string, token: string, now: Date): Promise<void> {
  await queryRows(
    db,
    sql`update listen_sessions set last_seen_at = ${now.toISOString()}::timestamptz
        where id = ${sessionId} and stream_token = ${token} returning id`,
  );
}

/**
 * One look at the session: a cheap read first; only when events are waiting, a transaction that locks the session
 * row (so a takeover and this poll never interleave), numbers the next page in send order and reads their envelopes.
 */
async function pollSession(db: Db, session: SessionRow, token: string): Promise<PollState> {
  const [look] = await queryRows<{
    stream_token: string | null;
    closed_reason: string | null;
    closed: boolean;
    key_revoked: boolean;
    pending: boolean;
  }>(
    db,
    sql`select s.stream_token, s.closed_reason, s.closed_at is not null as closed,
          coalesce(k.revoked_at is not null, false) as key_revoked,
          exists(select 1 from listen_session_events le
                 where le.session_id = s.id and le.seq is null and not le.acked) as pending
        from listen_sessions s left join api_keys k on k.id = s.key_id
        where s.id = ${session.id}`,
  );
  if (!look) return { kind: "closed", reason: "deleted" };
  if (look.closed) return { kind: "closed", reason: look.closed_reason ?? "closed" };
  if (look.stream_token !== token) return { kind: "gone" };
  if (look.key_revoked) {
    await inTransaction(db, async (tx) => {
      await tx
        .update(listenSessions)
        .set({ closedAt: new Date(), closedReason: "key_revoked", streamToken: null })
        .where(and(eq(listenSessions.id, session.id), sql`closed_at is null`));
      await tx.delete(listenSessionEvents).where(eq(listenSessionEvents.sessionId, session.id));
    });
    return { kind: "closed", reason: "key_revoked" };
  }
  if (!look.pending) return { kind: "events", events: [], isFull: false };
  return inTransaction(db, async (tx): Promise<PollState> => {
    const [locked] = await queryRows<{ stream_token: string | null; closed: boolean; sent_count: number }>(
      tx,
      sql`select stream_token, closed_at is not null as closed, sent_count from listen_sessions
          where id = ${session.id} for update`,
    );
    if (!locked || locked.closed) return { kind: "closed", reason: "closed" };
    if (locked.stream_token !== token) return { kind: "gone" };
    const rows = await queryRows<{
      id: string;
      event_id: string;
      type: EventType;
      payload: string;
      seq: number;
    }>(
      tx,
      sql`with next as (
            select event_row_id, ${locked.sent_count}::int + row_number() over (order by event_row_id) as seq
            from listen_session_events
            where session_id = ${session.id} and seq is null and not acked
            order by event_row_id limit ${PAGE_SIZE})
          update listen_session_events le set seq = next.seq
          from next join webhook_events ev on ev.id = next.event_row_id
          where le.session_id = ${session.id} and le.event_row_id = next.event_row_id
          returning ev.id, ev.event_id, ev.type, ev.envelope::text as payload, le.seq`,
    );
    rows.sort((a, b) => a.seq - b.seq);
    await tx.execute(
      sql`update listen_sessions set sent_count = sent_count + ${rows.length}::int where id = ${session.id}`,
    );
    return {
      kind: "events",
      isFull: rows.length >= PAGE_SIZE,
      events: rows.map((row) => ({
        id: row.id,
        eventId: row.event_id,
        type: row.type,
        headers: forwardHeaders(session.id, row.type, row.event_id),
        payload: row.payload,
      })),
    };
  });
}

/**
 * The headers of a real delivery (server/webhooks/delivery.ts, `headersWithSignature`) with the session as the
 * endpoint, minus `X-Service-Signature`: the CLI signs the exact payload when it forwards it.
 */
function forwardHeaders(sessionId: string, type: EventType, eventId: string): Record<string, string> {
  const { "X-Service-Signature": _signature, ...headers } = headersWithSignature(
    { type, eventId, endpointId: sessionId, signingSecretVersion: 1 },
    "",
  );
  return headers;
}

// ---------------------------------------------------------------------------------------------------------------
// Trigger

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Objects merged key by key; arrays and other values replaced (docs/api.md, "Listen sessions"). */
function mergeOverrides(base: unknown, overrides: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(overrides)) return overrides;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) merged[key] = mergeOverrides(base[key], value);
  return merged;
}

/** The JSON path of the first key of `given` the parsed result dropped (a field the schema does not know). */
function unknownField(given: unknown, parsed: unknown, path: string): string | null {
  if (Array.isArray(given) && Array.isArray(parsed)) {
    for (let i = 0; i < given.length; i++) {
      const found = unknownField(given[i], parsed[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (!isPlainObject(given) || !isPlainObject(parsed)) return null;
  for (const key of Object.keys(given)) {
    const at = `${path}.${key}`;
    if (!Object.hasOwn(parsed, key)) return at;
    const found = unknownField(given[key], parsed[key], at);
    if (found) return found;
  }
  return null;
}

/**
 * `marea trigger <type>`: a test event (`__test: true`) of `type` whose `data` is the sample of that type with the
 * caller's overrides merged in, checked against the type's schema (400 `invalid_request` with `param` at the field,
 * `data.…`; an unknown field is refused), sent to the caller's open listen sessions that receive the type, and to
 * nothing else. A user key triggers order.* only. Counted with the account's test fires (429
 * `webhook_action_rate_limited`). 409 `listen_session_none_open` when no session would receive it.
 * POST /v1/listen_sessions/trigger.
 */
export async function triggerListenEvent(
  ctx: ServiceContext,
  input: TriggerListenEventInput,
): Promise<TriggeredListenEvent> {
  const actor = authorize(ctx, "triggerListenEvent");
  const scope = defaultEndpointScope(actor);
  const [type] = normalizeEventsForTrigger(scope, input.type);
  await countWebhookAction(ctx.db, actor.accountId, ctx.now());
  const now = ctx.now();
  const sample = sampleEventData(type, { developerKeyId: actorKey(actor)?.keyId ?? newId("key"), now });
  const merged = mergeOverrides(sample, input.data ?? {}) as Json;
  const envelopeSchema = EVENT_ENVELOPE_SCHEMAS[type];
  // Checked as the envelope, so `param` is the field's path in what the receiver gets (`data.items[0].price`).
  const parsed = parseInput(
    envelopeSchema,
    {
      type,
      eventId: "00000000-0000-4000-8000-000000000000",
      timestamp: now.toISOString(),
      apiVersion: API_VERSION,
      data: merged,
    },
    ctx.language,
  ) as { data: unknown };
  const unknown = unknownField(merged, parsed.data, "data");
  if (unknown)
    throw new AppError("invalid_request", {
      param: unknown,
      detail: {
        en: `${type} has no field ${unknown}.`,
        es: `${type} no tiene el campo ${unknown}.`,
        pt: `${type} não tem o campo ${unknown}.`,
      },
    });
  const data = EVENT_DATA_SCHEMAS[type].parse(parsed.data) as EventData<typeof type>;
  const emitted = await inTransaction(ctx.db, async (tx) => {
    const sessions = await queryRows<{ id: string }>(
      tx,
      sql`select id from listen_sessions
          where account_id = ${actor.accountId} and scope = ${scope} and closed_at is null
            and last_seen_at > ${listenIdleSince(now).toISOString()}::timestamptz
            and ${type} = any(events)
          order by id`,
    );
    if (sessions.length === 0) throw new AppError("listen_session_none_open", { param: "type" });
    const sessionIds = sessions.map((s) => s.id);
    const event = await emitListenTestEvent(tx, { type, data, listenSessionIds: sessionIds }, now);
    return { ...event, sessionIds };
  });
  ctx.afterCommit(wakeDeliveries);
  return { id: emitted.eventRowId, eventId: emitted.eventId, type, sessionIds: emitted.sessionIds };
}

function normalizeEventsForTrigger(scope: EndpointScope, type: EventType): [EventType] {
  const allowed = typesFor(scope);
  if (!allowed.includes(type))
    throw new AppError("invalid_request", {
      param: "type",
      detail: {
        en: `This key receives ${allowed.join(", ")} only.`,
        es: `Esta clave solo recibe ${allowed.join(", ")}.`,
        pt: `Esta chave recebe apenas ${allowed.join(", ")}.`,
      },
    });
  return [type];
}

/**
 * The `purge-listen-sessions` job: sessions closed, or idle (no stream for an hour), more than a day ago are deleted
 * with their rows; the dashboard lists closed sessions for that day.
 */
export async function purgeListenSessions(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - CLOSED_LISTED_MS - LISTEN_IDLE_MS).toISOString();
  const rows = await queryRows<{ id: string }>(
    db,
    sql`delete from listen_sessions
        where coalesce(closed_at, last_seen_at) < ${cutoff}::timestamptz returning id`,
  );
  return rows.length;
}
