import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { z } from "zod";
import { type Actor, actorKey } from "@/server/context";
import { type Db, queryRows } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { listenIdleSince } from "@/server/listen/schema";
import { listenSessionEvents } from "@/server/listen/tables";
import { EVENT_ENVELOPE_SCHEMAS, type EventData, type EventEnvelope } from "./event-schemas";
import { firstAttemptAt } from "./schedule";
import { API_VERSION, type EventType, isOrderEvent } from "./schema";
import { webhookDeliveries, webhookEvents } from "./tables";
import { DELIVERY_CHANNEL } from "./wake";

/**
 * Events enter through the transactional outbox (docs/webhooks.md, "For Marea's own code: emitting an
 * event"): `emitEvent` runs INSIDE the transaction of the domain change and writes the event row (with the
 * exact envelope bytes) and one delivery row per matching enabled endpoint. Either everything commits with
 * the change or nothing does; delivery happens afterwards.
 */

export type EmitEventInput<T extends EventType = EventType> = {
  type: T;
  /**
   * The event's `data`, typed and checked by the schema of `type` (server/webhooks/event-schemas.ts; docs/webhooks.md,
   * "`data` by type"); unknown keys are dropped.
   */
  data: EventData<T>;
  /**
   * The account the event is about: the user for `user.*`, the storefront's owner for `order.*`. Decides who
   * receives it (docs/webhooks.md, "Events").
   */
  accountId: string;
};

export type EmittedEvent = {
  /** The envelope's `eventId` (UUID v4), the receivers' dedupe key. */
  eventId: string;
  /** Internal `evt_` id of the outbox row. */
  eventRowId: string;
  /** One per matching enabled endpoint; empty when nobody listens. */
  deliveryIds: string[];
};

/**
 * Records an event and its deliveries in the caller's transaction. Call it with the transaction that makes
 * the change (`tx`), then `ctx.afterCommit(wakeDeliveries)`: a NOTIFY sent here also wakes every listening
 * worker at commit, and the poll interval catches anything else.
 *
 * Who receives it (docs/webhooks.md, "Events"): only ENABLED endpoints whose `subscribedEvents`
 * contain `type` (a paused endpoint gets no delivery row at all), and
 * - `order.*`: merchant endpoints of `accountId` (the storefront's owner), and developer endpoints of the
 *   developer account whose key bootstrapped `accountId`, while that key is not revoked;
 * - `user.*`: developer endpoints of the developer account whose key bootstrapped `accountId` (revoked or not,
 *   so `user.cancelled` with reason `key_revoked` still arrives).
 *
 * ```ts
 * await db.transaction(async (tx) => {
 *   const [order] = await tx.insert(orders).values(...).returning();
 *   await emitEvent(tx, { type: "order.created", data: toOrderEventData(order), accountId: order.accountId }, now);
 * });
 * ctx.afterCommit(wakeDeliveries);
 * ```
 */
export async function emitEvent<T extends EventType>(
  db: Db,
  input: EmitEventInput<T>,
  now: Date,
): Promise<EmittedEvent> {
  const { audience, endpointIds, listenSessionIds } = await recipientsOf(
    db,
    input.type,
    input.accountId,
    now,
  );
  return writeEvent(
    db,
    { type: input.type, data: input.data, accountId: input.accountId, isTest: false, audience },
    endpointIds,
    now,
    listenSessionIds,
  );
}

/**
 * Who an event is due to (docs/webhooks.md, "Events"), kept on the event row: `GET /v1/events` lists by it, so the
 * list shows exactly the events delivery sent, or would have sent, to the caller's endpoints.
 */
export type EventAudience = {
  /** The account whose merchant endpoints get it: the storefront's owner, for `order.*`. */
  merchantAccountId: string | null;
  /** The developer account whose developer endpoints get it: the owner of the key that bootstrapped the account. */
  developerAccountId: string | null;
  /** That bootstrapping key; revoking it stops the account's order events (docs/webhooks.md, "Events"). */
  developerKeyId: string | null;
};

const NO_AUDIENCE: EventAudience = {
  merchantAccountId: null,
  developerAccountId: null,
  developerKeyId: null,
};

/**
 * THE decision of who receives an event, in one statement: its audience (the rules of `emitEvent`) and the enabled
 * endpoints of that audience subscribed to `type`. The developer of an `order.*` event is entitled only while the
 * bootstrapping key is not revoked; of a `user.*` event, revoked or not. The open `marea listen` sessions of the
 * same audience get it too (docs/webhooks.md, "Local development: marea listen").
 */
async function recipientsOf(
  db: Db,
  type: EventType,
  accountId: string,
  now: Date,
): Promise<{ audience: EventAudience; endpointIds: string[]; listenSessionIds: string[] }> {
  const isOrder = isOrderEvent(type);
  const rows = await queryRows<{
    merchant_account_id: string | null;
    developer_account_id: string | null;
    developer_key_id: string | null;
    endpoint_ids: string[] | null;
    listen_session_ids: string[] | null;
  }>(
    db,
    sql`with audience as (
          select ${isOrder ? sql`${accountId}::text` : sql`null::text`} as merchant_account_id,
            k.account_id as developer_account_id, k.id as developer_key_id
          from (select 1) as one
          left join accounts a on a.id = ${accountId}
          left join api_keys k on k.id = a.developer_key_id ${isOrder ? sql`and k.revoked_at is null` : sql``}
        )
        select au.merchant_account_id, au.developer_account_id, au.developer_key_id,
          array(select e.id from webhook_endpoints e
            where e.enabled and ${type} = any(e.subscribed_events)
              and ((e.scope = 'merchant' and e.account_id = au.merchant_account_id)
                or (e.scope = 'developer' and e.account_id = au.developer_account_id))
            order by e.id) as endpoint_ids,
          array(select s.id from listen_sessions s
            where s.closed_at is null and ${type} = any(s.events)
              and s.last_seen_at > ${listenIdleSince(now).toISOString()}::timestamptz
              and ((s.scope = 'merchant' and s.account_id = au.merchant_account_id)
                or (s.scope = 'developer' and s.account_id = au.developer_account_id))
            order by s.id) as listen_session_ids
        from audience au`,
  );
  const row = rows[0];
  if (!row) return { audience: NO_AUDIENCE, endpointIds: [], listenSessionIds: [] };
  return {
    audience: {
      merchantAccountId: row.merchant_account_id,
      developerAccountId: row.developer_account_id,
      developerKeyId: row.developer_key_id,
    },
    endpointIds: row.endpoint_ids ?? [],
    listenSessionIds: row.listen_session_ids ?? [],
  };
}

/**
 * The envelope of one event, made by its type's schema (server/webhooks/event-schemas.ts): what is stored and sent is
 * exactly what `/v1/openapi.json`'s `webhooks` section publishes, or the write fails here.
 */
function makeEnvelope<T extends EventType>(
  type: T,
  data: EventData<T>,
  options: { eventId: string; now: Date; isTest: boolean },
): EventEnvelope<T> {
  // TypeScript cannot relate the indexed schema to `T` (a correlated union); the table's type guarantees it.
  const schema = EVENT_ENVELOPE_SCHEMAS[type] as unknown as z.ZodType<EventEnvelope<T>>;
  return schema.parse({
    type,
    eventId: options.eventId,
    timestamp: options.now.toISOString(),
    apiVersion: API_VERSION,
    data,
    ...(options.isTest ? { __test: true } : {}),
  });
}

async function writeEvent<T extends EventType>(
  db: Db,
  event: { type: T; data: EventData<T>; accountId: string | null; isTest: boolean; audience: EventAudience },
  endpointIds: string[],
  now: Date,
  listenSessionIds: readonly string[] = [],
): Promise<EmittedEvent> {
  const eventId = randomUUID();
  const eventRowId = newId("evt");
  const envelope = makeEnvelope(event.type, event.data, { eventId, now, isTest: event.isTest });
  // The exact bytes every attempt sends and signs (the column is `json`, which keeps text as written).
  const body = JSON.stringify(envelope);
  await db.insert(webhookEvents).values({
    id: eventRowId,
    eventId,
    type: event.type,
    accountId: event.accountId,
    envelope: sql`${body}::json`,
    isTest: event.isTest,
    createdAt: now,
    ...event.audience,
  });
  const deliveryIds = endpointIds.map(() => newId("dlv"));
  if (deliveryIds.length > 0) {
    const dueAt = firstAttemptAt(now);
    await db.insert(webhookDeliveries).values(
      endpointIds.map((endpointId, i) => ({
        id: deliveryIds[i] as string,
        eventRowId,
        endpointId,
        status: "pending" as const,
        attemptCount: 0,
        attempts: [],
        firstDispatchAt: now,
        nextAttemptAt: dueAt,
        createdAt: now,
        updatedAt: now,
      })),
    );
    await db.execute(sql`select pg_notify(${DELIVERY_CHANNEL}, '')`);
  }
  if (listenSessionIds.length > 0)
    await db
      .insert(listenSessionEvents)
      .values(listenSessionIds.map((sessionId) => ({ sessionId, eventRowId })));
  return { eventId, eventRowId, deliveryIds };
}

/**
 * A test fire (docs/webhooks.md, "Delivery log and test fires"): a sample event of `type` with
 * `__test: true`, to this one endpoint only, through the same outbox and delivery path. The caller checked
 * ownership and that the endpoint is enabled.
 */
export async function emitTestEvent(
  db: Db,
  input: { endpointId: string; type: EventType; actor: Actor },
  now: Date,
): Promise<EmittedEvent> {
  // A sample `developerKeyId`: the caller's own key when it has one (a session has none).
  const developerKeyId = actorKey(input.actor)?.keyId ?? newId("key");
  const data = sampleEventData(input.type, { developerKeyId, now });
  // A test fire is due to its one endpoint only, and is nobody's event to list.
  return writeEvent(
    db,
    { type: input.type, data, accountId: null, isTest: true, audience: NO_AUDIENCE },
    [input.endpointId],
    now,
  );
}

/**
 * A `marea trigger` test event (docs/webhooks.md, "Local development: marea listen"): `__test: true`, `data` as
 * given (the caller merged and checked it against the type's schema), to these listen sessions only; nobody's
 * event to list, and no webhook endpoint receives it.
 */
export async function emitListenTestEvent<T extends EventType>(
  db: Db,
  input: { type: T; data: EventData<T>; listenSessionIds: readonly string[] },
  now: Date,
): Promise<EmittedEvent> {
  return writeEvent(
    db,
    { type: input.type, data: input.data, accountId: null, isTest: true, audience: NO_AUDIENCE },
    [],
    now,
    input.listenSessionIds,
  );
}

/** The envelope a test fire of `type` sends, for the dashboard to show before sending (a fresh sample each time). */
export function testEnvelope<T extends EventType>(actor: Actor, type: T, now: Date): EventEnvelope<T> {
  const developerKeyId = actorKey(actor)?.keyId ?? newId("key");
  return makeEnvelope(type, sampleEventData(type, { developerKeyId, now }), {
    eventId: randomUUID(),
    now,
    isTest: true,
  });
}

/** A sample envelope of `type` as a real delivery carries it (no `__test`), for the event catalog (/docs/events). */
export function exampleEnvelope<T extends EventType>(type: T, now: Date): EventEnvelope<T> {
  return makeEnvelope(type, sampleEventData(type, { developerKeyId: newId("key"), now }), {
    eventId: randomUUID(),
    now,
    isTest: false,
  });
}

/**
 * A realistic `data` object of each type, for test fires and the event catalog (/docs/events). Ids are fresh,
 * never real records.
 */
export function sampleEventData<T extends EventType>(
  type: T,
  options: { developerKeyId: string; now: Date },
): EventData<T> {
  const at = options.now.toISOString();
  const userId = newId("usr");
  const order = {
    orderId: newId("ord"),
    publicOrderId: 1,
    userId,
    menuId: newId("stf"),
    orderStatus: "pending" as const,
    customStatus: { id: "received", label: "Received" },
    totalPrice: 27,
    subtotalPrice: 24,
    deliveryPrice: 3,
    currency: "USD",
    items: [
      { title: "Margherita pizza", amount: 2, price: 9 },
      { title: "Lemonade", amount: 2, price: 3 },
    ],
    customer: { name: "Ana García", phone: "+5215512345678" },
    paymentMethod: { name: "Cash" },
    paymentStatus: "pending" as const,
    createdAt: at,
  };
  const samples: { [K in EventType]: EventData<K> } = {
    "user.verified": { userId, developerKeyId: options.developerKeyId, verifiedAt: at },
    "user.cancelled": {
      userId,
      developerKeyId: options.developerKeyId,
      cancelledAt: at,
      reason: "user_clicked_cancel",
    },
    "order.created": order,
    "order.paid": {
      ...order,
      paymentMethod: { id: "pm_cash", name: "Cash" },
      paymentStatus: "paid",
      paidAt: at,
    },
    "order.status_updated": {
      orderId: order.orderId,
      publicOrderId: order.publicOrderId,
      userId,
      menuId: order.menuId,
      previousState: { orderStatus: "pending", customStatus: { id: "pending", label: "Pending" } },
      newState: { orderStatus: "accepted", customStatus: { id: "accepted", label: "Accepted" } },
      updatedAt: at,
    },
  };
  return samples[type];
}
