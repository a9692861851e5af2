import { type SQL, sql } from "drizzle-orm";
import type { Actor, ServiceContext } from "@/server/context";
import { queryRows } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { decodeCursor, encodeCursor } from "@/server/lib/pagination";
import { defaultEndpointScope } from "@/server/webhooks/endpoint-scope";
import { ENDPOINT_ID_PATTERN, type EndpointScope } from "@/server/webhooks/schema";
import { type EventRow, toEventDto } from "./dto";
import type { EVENT_OPERATIONS } from "./operations";
import { authorize } from "./operations";
import {
  ENVELOPE_EVENT_ID_PATTERN,
  EVENT_ID_PATTERN,
  EVENT_RETENTION_MS,
  type EventDto,
  type EventList,
  type ListEventsInput,
} from "./schema";

/**
 * The events list (docs/webhooks.md, "After an outage"; docs/api.md, "Events"): what a receiver that was down
 * reads to catch up. A read only: nothing is sent, nothing is marked, and there is still no automatic replay.
 *
 * Which events a caller sees is decided when each event is recorded, by the statement that also picks its
 * deliveries (server/webhooks/events.ts, `recipientsOf`), and kept on the event row: a developer key sees the
 * events due to its account's developer endpoints, anyone else (a user key, an OAuth app, a session) those due to
 * the account's merchant endpoints. Test fires are due to one endpoint only and are nobody's to list.
 */

/** Whose events a caller reads: the events due to its account's endpoints of this scope. */
export type Audience = { accountId: string; scope: EndpointScope };

function audienceOf(ctx: ServiceContext, operation: keyof typeof EVENT_OPERATIONS): Audience {
  const actor: Actor = authorize(ctx, operation);
  return { accountId: actor.accountId, scope: defaultEndpointScope(actor) };
}

// `envelope::text` is the stored text itself: the column is `json`, which keeps the bytes every attempt sends.
const EVENT_COLUMNS = sql`ev.id, ev.event_id, ev.type, ev.created_at, ev.envelope::text as payload`;

/**
 * The events of this audience (an index scan of its own events, newest first), within 30 days. A developer sees an
 * `order.*` event only while the key that bootstrapped its account is live: revoking the key stops that account's
 * order events (docs/webhooks.md, "Events"), in the list as in delivery.
 */
function entitled(audience: Audience, since: Date): SQL {
  const mine =
    audience.scope === "developer"
      ? sql`ev.developer_account_id = ${audience.accountId}
          and (ev.type not like 'order.%' or ev.developer_key_id in (select k.id from api_keys k
            where k.account_id = ${audience.accountId} and k.revoked_at is null))`
      : sql`ev.merchant_account_id = ${audience.accountId}`;
  return sql`${mine} and ev.created_at >= ${since.toISOString()}::timestamptz`;
}

function retentionStart(ctx: ServiceContext): Date {
  return new Date(ctx.now().getTime() - EVENT_RETENTION_MS);
}

/** The caller's endpoint of its audience's scope, or 404 (another account's, the other scope's, unknown). */
async function ownEndpoint(ctx: ServiceContext, audience: Audience, endpointId: string): Promise<string> {
  const notFound = new AppError("webhook_endpoint_not_found", { param: "undeliveredTo" });
  if (!ENDPOINT_ID_PATTERN.test(endpointId)) throw notFound;
  const rows = await queryRows<{ id: string }>(
    ctx.db,
    sql`select id from webhook_endpoints
        where id = ${endpointId} and account_id = ${audience.accountId} and scope = ${audience.scope}`,
  );
  if (rows.length === 0) throw notFound;
  return endpointId;
}

/**
 * The events the caller's webhook endpoints are entitled to, newest first, `limit` per page with `nextCursor`, for
 * 30 days; optionally only some `types`, a creation window, and `undeliveredTo` an endpoint: the events it was due
 * (it has a delivery of them: a paused endpoint gets none) and has not answered 2xx for, whatever became of the
 * delivery (`max_attempts_reached` included). A Resend or Recover of one that answers 2xx takes it off that list.
 * Each item carries the exact envelope bytes its deliveries carry. GET /v1/events.
 */
export async function listEvents(ctx: ServiceContext, input: ListEventsInput): Promise<EventList> {
  const audience = audienceOf(ctx, "listEvents");
  const endpointId =
    input.undeliveredTo === undefined ? null : await ownEndpoint(ctx, audience, input.undeliveredTo);
  const rows = await queryRows<EventRow>(
    ctx.db,
    pageStatement(audience, input, { now: ctx.now(), endpointId }),
  );
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  return {
    data: page.map(toEventDto),
    nextCursor: rows.length > input.limit && last ? encodeCursor(last.id) : null,
  };
}

/**
 * The one statement of a page of `listEvents` (`limit + 1` rows), for an endpoint already checked to be the
 * caller's. Exported for the plan test (server/events/plan.test.ts): both shapes are index scans.
 */
export function pageStatement(
  audience: Audience,
  input: ListEventsInput,
  options: { now: Date; endpointId: string | null },
): SQL {
  const retained = new Date(options.now.getTime() - EVENT_RETENTION_MS);
  const requested = input.createdGte ? new Date(input.createdGte) : null;
  const since = requested && requested > retained ? requested : retained;
  const after = decodeCursor(input.cursor, "evt");
  const filters: SQL[] = [entitled(audience, since)];
  if (input.createdLt)
    filters.push(sql`ev.created_at < ${new Date(input.createdLt).toISOString()}::timestamptz`);
  if (input.types)
    filters.push(
      sql`ev.type in (${sql.join(
        [...new Set(input.types)].map((type) => sql`${type}`),
        sql`, `,
      )})`,
    );
  const where = sql.join(filters, sql` and `);
  const limit = input.limit + 1;
  const { endpointId } = options;
  if (endpointId === null)
    return sql`select ${EVENT_COLUMNS} from webhook_events ev
        where ${where} ${after ? sql`and ev.id < ${after}` : sql``}
        order by ev.id desc
        limit ${limit}`;
  // Driven by the endpoint's deliveries that did not answer 2xx (a partial index, newest event first), so the read
  // costs what is missing, not what was delivered. An event with a delivery that did answer 2xx (a retry, a
  // Resend, a Recover) is off the list.
  return sql`select ${EVENT_COLUMNS}
      from (select distinct d.event_row_id from webhook_deliveries d
            where d.endpoint_id = ${endpointId} and d.status <> 'delivered'
              ${after ? sql`and d.event_row_id < ${after}` : sql``}) as due
      join webhook_events ev on ev.id = due.event_row_id
      where ${where}
        and not exists (select 1 from webhook_deliveries ok where ok.event_row_id = ev.id
          and ok.endpoint_id = ${endpointId} and ok.status = 'delivered')
      order by due.event_row_id desc
      limit ${limit}`;
}

/**
 * Events by id in ONE statement (GraphQL `node`, and `getEvent`): per id, in order, the event if the caller's
 * endpoints are entitled to it (as `listEvents`, 30 days), else 404 `event_not_found` (another account's, a test
 * fire, older, unknown). An id is the event's `evt_` id or its envelope's `eventId`.
 */
export async function loadEvents(
  ctx: ServiceContext,
  args: { eventIds: readonly string[] },
): Promise<Array<EventDto | AppError>> {
  const audience = audienceOf(ctx, "getEvent");
  // A UUID names the same event in either case; the envelope's is lowercase.
  const keysAsked = args.eventIds.map((id) => (ENVELOPE_EVENT_ID_PATTERN.test(id) ? id.toLowerCase() : id));
  const ids = keysAsked.filter((id) => EVENT_ID_PATTERN.test(id));
  const eventIds = keysAsked.filter((id) => ENVELOPE_EVENT_ID_PATTERN.test(id));
  const byId = (list: string[]) =>
    sql.join(
      list.map((id) => sql`${id}`),
      sql`, `,
    );
  const keys: SQL[] = [];
  if (ids.length > 0) keys.push(sql`ev.id in (${byId(ids)})`);
  if (eventIds.length > 0) keys.push(sql`ev.event_id in (${byId(eventIds)})`);
  const rows =
    keys.length === 0
      ? []
      : await queryRows<EventRow>(
          ctx.db,
          sql`select ${EVENT_COLUMNS} from webhook_events ev
              where (${sql.join(keys, sql` or `)}) and ${entitled(audience, retentionStart(ctx))}`,
        );
  return keysAsked.map((key) => {
    const row = rows.find((r) => r.id === key || r.event_id === key);
    return row ? toEventDto(row) : new AppError("event_not_found", { param: "eventId" });
  });
}

/** One event by its `evt_` id or its envelope's `eventId`; 404 `event_not_found` as `loadEvents`. GET /v1/events/{eventId}. */
export async function getEvent(ctx: ServiceContext, input: { eventId: string }): Promise<EventDto> {
  const [event] = await loadEvents(ctx, { eventIds: [input.eventId] });
  if (!event || event instanceof AppError)
    throw event ?? new AppError("event_not_found", { param: "eventId" });
  return event;
}
