import { and, asc, count, desc, eq, getTableColumns, gt, gte, inArray, sql } from "drizzle-orm";
import { authorizeActor } from "@/server/accounts/authorize";
import { accounts } from "@/server/accounts/tables";
import type { Actor, ServiceContext } from "@/server/context";
import { type Db, queryRows } from "@/server/db/client";
import { prepared } from "@/server/db/prepared";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { inRequestedOrder, toPages } from "@/server/lib/batch";
import { newId, newWebhookEndpointId } from "@/server/lib/ids";
import { decodeCursor, type ListQuery, type Page, toPage } from "@/server/lib/pagination";
import { encryptSecret, newSigningSecret } from "@/server/lib/secrets";
import { countWebhookAction } from "@/server/limits/service";
import type { OperationDefinition } from "@/server/operations";
import { headersWithSignature, retrySchedule } from "./delivery";
import { type DeliveryDtoRow, type EndpointRow, toDeliveryDto, toDeliveryEntry, toEndpointDto } from "./dto";
import { emitTestEvent, testEnvelope } from "./events";
import { authorize, WEBHOOK_OPERATIONS } from "./operations";
import {
  type CreateWebhookEndpointInput,
  type DashboardDeliveryDto,
  DELIVERY_ID_PATTERN,
  type DeliveryDetailDto,
  type DeliveryLog,
  type DeliveryLogQuery,
  type DeliveryRef,
  ENDPOINT_ID_PATTERN,
  type EndpointHealthDto,
  type EndpointOverviewDto,
  type EndpointScope,
  EVENT_TYPES,
  type EventType,
  isOrderEvent,
  ORDER_EVENT_TYPES,
  type RecoverDeliveriesInput,
  type TestFireInput,
  type UpdateWebhookEndpointInput,
  type WebhookDeliveryDto,
  type WebhookDeliveryList,
  type WebhookEndpointDto,
  type WebhookEndpointList,
  type WebhookEndpointWithSecretDto,
} from "./schema";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "./tables";
import { assertAllowedWebhookUrl } from "./url-guard";
import { DELIVERY_CHANNEL, wakeDeliveries } from "./wake";

/**
 * Webhook endpoints (docs/webhooks.md, "Endpoints").
 *
 * Every function takes the endpoint `scope` it acts on. The /v1 API acts on `developer` endpoints owned by
 * the developer key's account (the default); the dashboard also acts on `merchant` endpoints (order.* only) of
 * the signed-in account by passing `scope: "merchant"`. An endpoint of another account, or of the other
 * scope, is 404.
 */

/** 16 webhook endpoints per account, both scopes together (docs/webhooks.md, "Endpoints"). */
export const MAX_ENDPOINTS_PER_ACCOUNT = 16;
/**
 * The delivery log shows the last 50 per endpoint, kept 30 days (docs/webhooks.md, "Delivery log and test
 * fires").
 */
export const DELIVERY_LOG_SIZE = 50;
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** The event types an endpoint of this scope can receive: merchant endpoints get order.* only. */
export function eventTypesFor(scope: EndpointScope): readonly EventType[] {
  return scope === "merchant" ? ORDER_EVENT_TYPES : EVENT_TYPES;
}

/**
 * Developer endpoints are the webhook operations (a webhook scope); merchant endpoints need the account's
 * catalog scopes (server/webhooks/operations.ts).
 */
function ownerOf(ctx: ServiceContext, scope: EndpointScope, operation: WebhookOperationName): Actor {
  // Anything but an explicit `merchant` is the developer operations (the stricter of the two).
  if (scope !== "merchant") return authorize(ctx, operation);
  const access = OPERATION_ACCESS[operation];
  const actor = authorize(
    ctx,
    access === "read" ? "readMerchantWebhookEndpoints" : "writeMerchantWebhookEndpoints",
  );
  // An operation closed to some doors (Resend, Recover: the dashboard only) stays closed on merchant endpoints.
  const doors: readonly string[] | undefined = (WEBHOOK_OPERATIONS[operation] as OperationDefinition).via;
  if (doors && !doors.includes(actor.via.type))
    authorizeActor(actor, operation, WEBHOOK_OPERATIONS[operation]);
  return actor;
}

type WebhookOperationName = keyof typeof WEBHOOK_OPERATIONS;

const OPERATION_ACCESS: Partial<Record<WebhookOperationName, "read" | "write">> = {
  listWebhookEndpoints: "read",
  getWebhookEndpoint: "read",
  listWebhookDeliveries: "read",
};

/**
 * The endpoints a caller manages when it does not say (docs/mcp.md, "Tools"): a developer key its developer
 * endpoints (as over /v1), anyone else the account's own merchant endpoints.
 */
export function defaultEndpointScope(actor: Actor | null): EndpointScope {
  return actor?.kind === "developer" ? "developer" : "merchant";
}

/** Which endpoints a call acts on: `developer` (the /v1 API, the default) or `merchant` (the dashboard). */
type Scoped = { scope?: EndpointScope };
type EndpointRef = Scoped & { endpointId: string };

function normalizeEvents(scope: EndpointScope, events: EventType[] | undefined): EventType[] {
  const allowed = eventTypesFor(scope);
  if (events === undefined) return [...allowed];
  const unique = EVENT_TYPES.filter((type) => events.includes(type));
  const refused = unique.find((type) => !allowed.includes(type));
  if (refused)
    throw new AppError("invalid_request", {
      param: "subscribedEvents",
      detail: {
        en: `A ${scope} endpoint cannot subscribe to ${refused}; allowed: ${allowed.join(", ")}.`,
        es: `Un endpoint ${scope} no puede suscribirse a ${refused}; permitidos: ${allowed.join(", ")}.`,
        pt: `Um endpoint ${scope} não pode assinar ${refused}; permitidos: ${allowed.join(", ")}.`,
      },
    });
  return unique;
}

async function findOwned(db: Db, actor: Actor, scope: EndpointScope, id: string): Promise<EndpointRow> {
  if (!ENDPOINT_ID_PATTERN.test(id)) throw new AppError("webhook_endpoint_not_found", { param: "id" });
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.id, id),
        eq(webhookEndpoints.accountId, actor.accountId),
        eq(webhookEndpoints.scope, scope),
      ),
    );
  if (!row) throw new AppError("webhook_endpoint_not_found", { param: "id" });
  return row;
}

/**
 * Creates an endpoint with a fresh 64-hex signing secret, returned this once only (stored encrypted). The URL
 * passes the registration checks (docs/webhooks.md, "URL rules"). 16 per account, counted under a lock on the
 * account row so concurrent creates cannot pass the limit. POST /v1/webhook_endpoints.
 */
export async function createEndpoint(
  ctx: ServiceContext,
  args: Scoped & { endpoint: CreateWebhookEndpointInput },
): Promise<WebhookEndpointWithSecretDto> {
  const { scope = "developer", endpoint: input } = args;
  const actor = ownerOf(ctx, scope, "createWebhookEndpoint");
  // Stored exactly as sent (`url` answers what was registered); it is parsed again before each attempt.
  assertAllowedWebhookUrl(input.url);
  const url = input.url;
  const subscribedEvents = normalizeEvents(scope, input.subscribedEvents);
  const secret = newSigningSecret();
  const now = ctx.now();
  const row = await inTransaction(ctx.db, async (tx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, actor.accountId)).for("update");
    const [existing] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.accountId, actor.accountId));
    if ((existing?.n ?? 0) >= MAX_ENDPOINTS_PER_ACCOUNT) throw new AppError("webhook_endpoint_limit_reached");
    const [inserted] = await tx
      .insert(webhookEndpoints)
      .values({
        id: newWebhookEndpointId(),
        accountId: actor.accountId,
        scope,
        url,
        description: input.description ?? "",
        enabled: input.enabled ?? true,
        subscribedEvents,
        secretCiphertext: encryptSecret(secret),
        signingSecretVersion: 1,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return inserted as EndpointRow;
  });
  return { ...toEndpointDto(row), signingSecret: secret };
}

/** Lists the account's endpoints by id, `limit` per page, with `nextCursor` (docs/api.md, "Lists"). */
export async function listEndpoints(
  ctx: ServiceContext,
  args: Scoped & ListQuery,
): Promise<WebhookEndpointList> {
  const { scope = "developer", ...query } = args;
  const actor = ownerOf(ctx, scope, "listWebhookEndpoints");
  const after = decodeCursor(query.cursor, ENDPOINT_ID_PATTERN);
  const rows = await ctx.db
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.accountId, actor.accountId),
        eq(webhookEndpoints.scope, scope),
        after ? gt(webhookEndpoints.id, after) : undefined,
      ),
    )
    .orderBy(asc(webhookEndpoints.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit, toEndpointDto);
}

/** One endpoint, without its secret. GET /v1/webhook_endpoints/{id}. */
export async function getEndpoint(ctx: ServiceContext, args: EndpointRef): Promise<WebhookEndpointDto> {
  const { scope = "developer", endpointId } = args;
  return toEndpointDto(await findOwned(ctx.db, ownerOf(ctx, scope, "getWebhookEndpoint"), scope, endpointId));
}

/**
 * Partial update: only present fields change; the secret cannot be set or rotated here and is not returned.
 * A new URL passes the registration checks again. Pausing (`enabled: false`) stops the endpoint's pending work
 * in the same transaction: deliveries not attempted yet are removed and scheduled retries are cancelled
 * (docs/webhooks.md, "Endpoints": paused means no HTTP attempt, no retries, no delivery rows).
 * POST /v1/webhook_endpoints/{id}.
 */
export async function updateEndpoint(
  ctx: ServiceContext,
  args: EndpointRef & { patch: UpdateWebhookEndpointInput },
): Promise<WebhookEndpointDto> {
  const { scope = "developer", endpointId: id, patch: input } = args;
  const actor = ownerOf(ctx, scope, "updateWebhookEndpoint");
  const changes: Partial<typeof webhookEndpoints.$inferInsert> = {};
  if (input.url !== undefined) {
    assertAllowedWebhookUrl(input.url);
    changes.url = input.url;
  }
  if (input.description !== undefined) changes.description = input.description;
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  if (input.subscribedEvents !== undefined)
    changes.subscribedEvents = normalizeEvents(scope, input.subscribedEvents);
  const now = ctx.now();
  const row = await inTransaction(ctx.db, async (tx) => {
    const current = await findOwned(tx, actor, scope, id);
    if (Object.keys(changes).length === 0) return current;
    const [updated] = await tx
      .update(webhookEndpoints)
      .set({ ...changes, updatedAt: now })
      .where(eq(webhookEndpoints.id, current.id))
      .returning();
    if (input.enabled === false) await stopPendingDeliveries(tx, current.id, now);
    return updated as EndpointRow;
  });
  return toEndpointDto(row);
}

/** A paused endpoint keeps no pending work: unattempted deliveries go, scheduled retries are cancelled. */
async function stopPendingDeliveries(db: Db, endpointId: string, now: Date): Promise<void> {
  await db
    .delete(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.status, "pending"),
        eq(webhookDeliveries.attemptCount, 0),
      ),
    );
  await db
    .update(webhookDeliveries)
    .set({ status: "failed", nextAttemptAt: null, leaseUntil: null, leaseOwner: null, updatedAt: now })
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        inArray(webhookDeliveries.status, ["pending", "failed"]),
      ),
    );
}

/** Permanent deletion; its deliveries (and pending attempts) go with it. Answers `{id, deleted: true}`. */
export async function deleteEndpoint(
  ctx: ServiceContext,
  args: EndpointRef,
): Promise<{ id: string; deleted: true }> {
  const { scope = "developer", endpointId: id } = args;
  const actor = ownerOf(ctx, scope, "deleteWebhookEndpoint");
  const current = await findOwned(ctx.db, actor, scope, id);
  await ctx.db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, current.id));
  return { id: current.id, deleted: true };
}

/**
 * A new signing secret, returned once; `signingSecretVersion` +1. Deliveries are signed at attempt time with
 * the current secret, so the old one stops at once, pending retries included (docs/webhooks.md, "Endpoints").
 */
export async function rotateSigningSecret(
  ctx: ServiceContext,
  args: EndpointRef,
): Promise<WebhookEndpointWithSecretDto> {
  const { scope = "developer", endpointId: id } = args;
  const actor = ownerOf(ctx, scope, "rotateWebhookSigningSecret");
  const secret = newSigningSecret();
  const now = ctx.now();
  const current = await findOwned(ctx.db, actor, scope, id);
  const [row] = await ctx.db
    .update(webhookEndpoints)
    .set({
      secretCiphertext: encryptSecret(secret),
      signingSecretVersion: sql`${webhookEndpoints.signingSecretVersion} + 1`,
      updatedAt: now,
    })
    .where(eq(webhookEndpoints.id, current.id))
    .returning();
  if (!row) throw new AppError("webhook_endpoint_not_found", { param: "id" });
  return { ...toEndpointDto(row), signingSecret: secret };
}

/** The delivery log: the newest deliveries of one endpoint (at most 50, last 30 days). */
export async function listDeliveries(
  ctx: ServiceContext,
  args: EndpointRef & { limit?: number },
): Promise<WebhookDeliveryList> {
  const { scope = "developer", endpointId: id } = args;
  const endpoint = await findOwned(ctx.db, ownerOf(ctx, scope, "listWebhookDeliveries"), scope, id);
  const limit = Math.min(Math.max(args.limit ?? DELIVERY_LOG_SIZE, 1), DELIVERY_LOG_SIZE);
  const since = new Date(ctx.now().getTime() - DELIVERY_RETENTION_MS);
  const rows = await ctx.db
    .select(deliveryLogEntryColumns())
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventRowId))
    .where(and(eq(webhookDeliveries.endpointId, endpoint.id), gte(webhookDeliveries.createdAt, since)))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
  return { data: rows.map((row) => toDeliveryDto(row, row)), nextCursor: null };
}

/**
 * Sends a sample event of `type` with `__test: true` to this one endpoint, through the same outbox, worker
 * and signature as real events. A paused endpoint receives nothing: 409 `webhook_endpoint_paused`. Answers the
 * envelope's `eventId`. Limited per account with resends and recoveries (429 `webhook_action_rate_limited`;
 * docs/security.md, "Limits").
 */
export async function sendTestEvent(
  ctx: ServiceContext,
  args: EndpointRef & TestFireInput,
): Promise<{ eventId: string }> {
  const { scope = "developer", endpointId: id, ...input } = args;
  const actor = ownerOf(ctx, scope, "sendTestWebhook");
  await countWebhookAction(ctx.db, actor.accountId, ctx.now());
  if (!eventTypesFor(scope).includes(input.type) || (scope === "merchant" && !isOrderEvent(input.type)))
    throw new AppError("invalid_request", {
      param: "type",
      detail: {
        en: `A ${scope} endpoint receives ${eventTypesFor(scope).join(", ")} only.`,
        es: `Un endpoint ${scope} solo recibe ${eventTypesFor(scope).join(", ")}.`,
        pt: `Um endpoint ${scope} recebe apenas ${eventTypesFor(scope).join(", ")}.`,
      },
    });
  const now = ctx.now();
  const emitted = await inTransaction(ctx.db, async (tx) => {
    const endpoint = await findOwned(tx, actor, scope, id);
    if (!endpoint.enabled) throw new AppError("webhook_endpoint_paused", { param: "id" });
    return emitTestEvent(tx, { endpointId: endpoint.id, type: input.type, actor }, now);
  });
  ctx.afterCommit(wakeDeliveries);
  return { eventId: emitted.eventId };
}

/**
 * `getEndpoint` for many ids in ONE statement (the GraphQL loaders): per id, in order, the endpoint (never its
 * secret) or 404 `webhook_endpoint_not_found` (unknown, malformed, another account's or the other scope's).
 */
export async function loadEndpoints(
  ctx: ServiceContext,
  args: Scoped & { endpointIds: readonly string[] },
): Promise<Array<WebhookEndpointDto | AppError>> {
  const { scope = "developer" } = args;
  const actor = ownerOf(ctx, scope, "getWebhookEndpoint");
  const ids = args.endpointIds.filter((id) => ENDPOINT_ID_PATTERN.test(id));
  const rows =
    ids.length === 0
      ? []
      : await ctx.db
          .select()
          .from(webhookEndpoints)
          .where(
            and(
              inArray(webhookEndpoints.id, ids),
              eq(webhookEndpoints.accountId, actor.accountId),
              eq(webhookEndpoints.scope, scope),
            ),
          );
  return inRequestedOrder(
    args.endpointIds,
    rows,
    (row) => row.id,
    toEndpointDto,
    () => new AppError("webhook_endpoint_not_found", { param: "id" }),
  );
}

/** A delivery row with the fields of its event that the delivery log shows. */
function deliveryLogColumns() {
  return {
    ...getTableColumns(webhookDeliveries),
    eventId: webhookEvents.eventId,
    type: webhookEvents.type,
    isTest: webhookEvents.isTest,
  };
}

type DeliveryLogRow = typeof webhookDeliveries.$inferSelect & {
  eventId: string;
  type: string;
  isTest: boolean;
};

/**
 * What a log entry shows and nothing else: a log reads up to 50 rows per call, and every column read is bytes to
 * transfer, a value to decode and, for timestamps, a Date to build (bench/README.md, "The delivery-log page and
 * its tRPC call").
 */
function deliveryLogEntryColumns() {
  return {
    id: webhookDeliveries.id,
    endpointId: webhookDeliveries.endpointId,
    status: webhookDeliveries.status,
    attempts: webhookDeliveries.attempts,
    nextAttemptAt: webhookDeliveries.nextAttemptAt,
    createdAt: webhookDeliveries.createdAt,
    lastResponseBody: webhookDeliveries.lastResponseBody,
    resendOf: webhookDeliveries.resendOf,
    eventId: webhookEvents.eventId,
    type: webhookEvents.type,
    isTest: webhookEvents.isTest,
  };
}

/** Deliveries with their event and endpoint joined, selecting what a log entry shows. */
function selectLogEntries(db: Db) {
  return db
    .select(deliveryLogEntryColumns())
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventRowId))
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId));
}

type DeliveryLogEntryRow = DeliveryDtoRow & {
  resendOf: string | null;
  eventId: string;
  type: string;
  isTest: boolean;
};

function newestFirst(a: DeliveryLogEntryRow, b: DeliveryLogEntryRow): number {
  const byTime = b.createdAt.getTime() - a.createdAt.getTime();
  return byTime !== 0 ? byTime : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * The delivery logs of many endpoints in ONE statement (GraphQL `WebhookEndpoint.deliveries`): per endpoint, as
 * `listDeliveries`, its newest deliveries (at most 50, last 30 days). An endpoint that is not the caller's gets an
 * empty log.
 */
export async function loadDeliveriesByEndpoint(
  ctx: ServiceContext,
  args: Scoped & { endpointIds: readonly string[]; limit?: number },
): Promise<Array<Page<WebhookDeliveryDto>>> {
  const { scope = "developer" } = args;
  const actor = ownerOf(ctx, scope, "listWebhookDeliveries");
  if (args.endpointIds.length === 0) return [];
  const limit = Math.min(Math.max(args.limit ?? DELIVERY_LOG_SIZE, 1), DELIVERY_LOG_SIZE);
  const since = new Date(ctx.now().getTime() - DELIVERY_RETENTION_MS);
  const parent = ctx.db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        inArray(webhookEndpoints.id, [...args.endpointIds]),
        eq(webhookEndpoints.accountId, actor.accountId),
        eq(webhookEndpoints.scope, scope),
      ),
    )
    .as("parent");
  const page = ctx.db
    .select(deliveryLogEntryColumns())
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventRowId))
    .where(and(eq(webhookDeliveries.endpointId, parent.id), gte(webhookDeliveries.createdAt, since)))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit)
    .as("page");
  const rows = await ctx.db.select().from(parent).innerJoinLateral(page, sql`true`);
  // The log is the newest `limit` deliveries and has no next page (as listDeliveries: nextCursor null).
  return toPages(
    args.endpointIds,
    rows.map((row) => row.page as DeliveryLogEntryRow),
    (row) => row.endpointId,
    limit,
    (row) => toDeliveryDto(row, row),
    newestFirst,
  );
}

/**
 * Deliveries by id in ONE statement (GraphQL `node`): per id, in order, the delivery of one of the caller's
 * endpoints (last 30 days, as the log), or 404 `webhook_endpoint_not_found`, the error its endpoint would answer.
 */
export async function loadDeliveries(
  ctx: ServiceContext,
  args: Scoped & { deliveryIds: readonly string[] },
): Promise<Array<WebhookDeliveryDto | AppError>> {
  const { scope = "developer" } = args;
  const actor = ownerOf(ctx, scope, "listWebhookDeliveries");
  const since = new Date(ctx.now().getTime() - DELIVERY_RETENTION_MS);
  const rows =
    args.deliveryIds.length === 0
      ? []
      : await selectLogEntries(ctx.db).where(
          and(
            inArray(webhookDeliveries.id, [...args.deliveryIds]),
            eq(webhookEndpoints.accountId, actor.accountId),
            eq(webhookEndpoints.scope, scope),
            gte(webhookDeliveries.createdAt, since),
          ),
        );
  return inRequestedOrder(
    args.deliveryIds,
    rows,
    (row) => row.id,
    (row) => toDeliveryDto(row, row),
    () => new AppError("webhook_endpoint_not_found", { param: "id" }),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The dashboard's delivery log, Resend, Recover and endpoint health (docs/webhooks.md, "Delivery log and test
// fires"; docs/ui.md, "Webhooks"). Resend and Recover are dashboard-only operations: no /v1 route, GraphQL
// field or MCP tool calls them, and their operations admit only a dashboard session.

const HOUR_MS = 60 * 60 * 1000;
/** How many hours the endpoint health covers (the current one included). */
export const HEALTH_HOURS = 24;

function retentionStart(ctx: ServiceContext): Date {
  return new Date(ctx.now().getTime() - DELIVERY_RETENTION_MS);
}

function toDashboardDelivery(row: DeliveryLogEntryRow): DashboardDeliveryDto {
  // Object.assign on the fresh entry, not a spread into a new object: on Node 20 the spread copied each of the 50
  // entries of a log field by field, about 0.8 µs an entry (bench/README.md, "Prepared hot reads").
  return Object.assign(toDeliveryEntry(row, row), { resendOf: row.resendOf });
}

/** The statement of `listDeliveryLog`, one per combination of filters, built once (server/db/prepared.ts). */
function deliveryLogQuery(db: Db, filters: { byStatus: boolean; byType: boolean }) {
  const name = `webhooks_delivery_log${filters.byStatus ? "_status" : ""}${filters.byType ? "_type" : ""}`;
  return prepared(db, name, (db) =>
    selectLogEntries(db)
      .where(
        and(
          eq(webhookDeliveries.endpointId, sql.placeholder("endpointId")),
          eq(webhookEndpoints.accountId, sql.placeholder("accountId")),
          eq(webhookEndpoints.scope, sql.placeholder("scope")),
          gte(webhookDeliveries.createdAt, sql.placeholder("since")),
          filters.byStatus ? eq(webhookDeliveries.status, sql.placeholder("status")) : undefined,
          filters.byType ? eq(webhookEvents.type, sql.placeholder("type")) : undefined,
        ),
      )
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(DELIVERY_LOG_SIZE)
      .prepare(name),
  );
}

/**
 * The delivery log of one endpoint for the dashboard: the newest 50 of the last 30 days, newest first, optionally
 * only one `status` and one event `type` (docs/ui.md, "Webhooks"). One statement: the endpoint's ownership is in
 * its join; an empty answer checks it apart, so another account's endpoint is 404, not an empty log.
 */
export async function listDeliveryLog(ctx: ServiceContext, args: DeliveryLogQuery): Promise<DeliveryLog> {
  const { scope, endpointId } = args;
  const actor = ownerOf(ctx, scope, "listWebhookDeliveries");
  if (!ENDPOINT_ID_PATTERN.test(endpointId))
    throw new AppError("webhook_endpoint_not_found", { param: "id" });
  const rows = await deliveryLogQuery(ctx.db, {
    byStatus: Boolean(args.status),
    byType: Boolean(args.type),
  }).execute({
    endpointId,
    accountId: actor.accountId,
    scope,
    since: retentionStart(ctx).toISOString(),
    status: args.status ?? null,
    type: args.type ?? null,
  });
  if (rows.length === 0) await findOwned(ctx.db, actor, scope, endpointId);
  return { data: rows.map(toDashboardDelivery) };
}

async function findOwnedDelivery(
  db: Db,
  ctx: ServiceContext,
  actor: Actor,
  ref: DeliveryRef,
): Promise<DeliveryLogRow & { body: string }> {
  const endpoint = await findOwned(db, actor, ref.scope, ref.endpointId);
  if (!DELIVERY_ID_PATTERN.test(ref.deliveryId))
    throw new AppError("webhook_delivery_not_found", { param: "deliveryId" });
  const [row] = await db
    .select({ ...deliveryLogColumns(), body: sql<string>`${webhookEvents.envelope}::text` })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventRowId))
    .where(
      and(
        eq(webhookDeliveries.id, ref.deliveryId),
        eq(webhookDeliveries.endpointId, endpoint.id),
        gte(webhookDeliveries.createdAt, retentionStart(ctx)),
      ),
    );
  if (!row) throw new AppError("webhook_delivery_not_found", { param: "deliveryId" });
  return row;
}

/**
 * A delivery's detail: its log entry, the exact body sent (the stored envelope's bytes, the same for every
 * attempt) and each attempt with every header it sent and the first 2 KiB of the answer. The headers are rebuilt
 * from the event, the endpoint, the secret version and the signature recorded with the attempt, by the same
 * function the delivery uses; the signing secret is never read here.
 */
export async function getDelivery(ctx: ServiceContext, args: DeliveryRef): Promise<DeliveryDetailDto> {
  const actor = ownerOf(ctx, args.scope, "listWebhookDeliveries");
  const row = await findOwnedDelivery(ctx.db, ctx, actor, args);
  const { attempts: _attempts, ...entry } = toDashboardDelivery(row);
  const facts = { type: row.type as EventType, eventId: row.eventId, endpointId: row.endpointId };
  return {
    ...entry,
    body: row.body,
    attempts: row.attempts.map((a) => {
      const headers = headersWithSignature(
        { ...facts, signingSecretVersion: a.signingSecretVersion ?? 0 },
        a.signature ?? "",
      );
      return {
        n: a.n,
        at: a.at,
        httpStatus: a.httpStatus,
        durationMs: a.durationMs,
        error: a.error,
        url: a.url ?? null,
        headers: Object.entries(headers).map(([name, value]) => ({
          name,
          value:
            (name === "X-Service-Signature" && !a.signature) ||
            (name === "X-Service-Signing-Version" && a.signingSecretVersion === undefined)
              ? null
              : value,
        })),
        // Attempts recorded before each kept its own answer: the last one is the delivery's.
        responseBody:
          a.responseBody !== undefined
            ? a.responseBody
            : a.n === row.attemptCount
              ? row.lastResponseBody
              : null,
      };
    }),
  };
}

/** An open delivery still has an attempt scheduled; sending it again now would race its own retry. */
function isInProgress(row: { status: string; nextAttemptAt: Date | null }): boolean {
  return row.status === "pending" || (row.status === "failed" && row.nextAttemptAt !== null);
}

function resendRow(
  original: { id: string; eventRowId: string; endpointId: string },
  now: Date,
): typeof webhookDeliveries.$inferInsert {
  return {
    id: newId("dlv"),
    eventRowId: original.eventRowId,
    endpointId: original.endpointId,
    status: "pending",
    attemptCount: 0,
    attempts: [],
    firstDispatchAt: now,
    nextAttemptAt: now,
    resendOf: original.id,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Resend (dashboard only): the same event (same `eventId`, same bytes, so receivers dedupe) to the same endpoint
 * as a new delivery linked to this one (`resendOf`), attempted at once with the whole retry schedule. A paused
 * endpoint is 409 `webhook_endpoint_paused`; a delivery that still has an attempt scheduled is 409
 * `webhook_delivery_in_progress`. Limited as test fires are (`sendTestEvent`).
 */
export async function resendDelivery(ctx: ServiceContext, args: DeliveryRef): Promise<DashboardDeliveryDto> {
  const actor = ownerOf(ctx, args.scope, "resendWebhookDelivery");
  await countWebhookAction(ctx.db, actor.accountId, ctx.now());
  const now = ctx.now();
  const created = await inTransaction(ctx.db, async (tx) => {
    const original = await findOwnedDelivery(tx, ctx, actor, args);
    const [endpoint] = await tx
      .select({ enabled: webhookEndpoints.enabled })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, original.endpointId));
    if (!endpoint?.enabled) throw new AppError("webhook_endpoint_paused", { param: "id" });
    if (isInProgress(original)) throw new AppError("webhook_delivery_in_progress", { param: "deliveryId" });
    const [row] = await tx.insert(webhookDeliveries).values(resendRow(original, now)).returning();
    await tx.execute(sql`select pg_notify(${DELIVERY_CHANNEL}, '')`);
    return { ...(row as typeof webhookDeliveries.$inferSelect), ...pickEvent(original) };
  });
  ctx.afterCommit(wakeDeliveries);
  return toDashboardDelivery(created);
}

function pickEvent(row: DeliveryLogRow): Pick<DeliveryLogRow, "eventId" | "type" | "isTest"> {
  return { eventId: row.eventId, type: row.type, isTest: row.isTest };
}

/**
 * Recover (dashboard only, as Svix's): sends again every delivery of the endpoint created since `since` (at most
 * the 30 days kept) that ended `max_attempts_reached`, or `failed` with nothing scheduled, and was not sent again
 * already (a newer delivery of the same event to this endpoint exists). Each becomes a new delivery as with
 * Resend. Answers how many were queued. Limited as test fires are (`sendTestEvent`).
 */
export async function recoverDeliveries(
  ctx: ServiceContext,
  args: RecoverDeliveriesInput,
): Promise<{ recovered: number; since: string }> {
  const actor = ownerOf(ctx, args.scope, "recoverWebhookDeliveries");
  await countWebhookAction(ctx.db, actor.accountId, ctx.now());
  const now = ctx.now();
  const requested = new Date(args.since);
  const since = new Date(Math.max(requested.getTime(), retentionStart(ctx).getTime()));
  const recovered = await inTransaction(ctx.db, async (tx) => {
    const endpoint = await findOwned(tx, actor, args.scope, args.endpointId);
    if (!endpoint.enabled) throw new AppError("webhook_endpoint_paused", { param: "id" });
    const failed = await queryRows<{ id: string; event_row_id: string }>(
      tx,
      sql`select d.id, d.event_row_id from webhook_deliveries d
          where d.endpoint_id = ${endpoint.id} and d.created_at >= ${since.toISOString()}::timestamptz
            and (d.status = 'max_attempts_reached' or (d.status = 'failed' and d.next_attempt_at is null))
            and not exists (select 1 from webhook_deliveries n where n.endpoint_id = d.endpoint_id
              and n.event_row_id = d.event_row_id and n.created_at > d.created_at)
          order by d.created_at, d.id`,
    );
    for (let i = 0; i < failed.length; i += 500) {
      await tx
        .insert(webhookDeliveries)
        .values(
          failed
            .slice(i, i + 500)
            .map((d) => resendRow({ id: d.id, eventRowId: d.event_row_id, endpointId: endpoint.id }, now)),
        );
    }
    if (failed.length > 0) await tx.execute(sql`select pg_notify(${DELIVERY_CHANNEL}, '')`);
    return failed.length;
  });
  if (recovered > 0) ctx.afterCommit(wakeDeliveries);
  return { recovered, since: since.toISOString() };
}

/**
 * Attempts and successes per endpoint and hour over the last 24 hours, from the attempts' own times. A delivery
 * whose last attempt is in the window was updated in it; its first attempt is at most the retry schedule after its
 * creation (plus an hour of slack for a worker that was down), which bounds the rows read through the endpoint's
 * (endpoint_id, created_at) index.
 */
async function attemptsByHour(
  ctx: ServiceContext,
  endpointIds: string[],
  since: Date,
): Promise<Array<{ endpointId: string; hour: number; attempts: number; successes: number }>> {
  if (endpointIds.length === 0) return [];
  const lastOffset = retrySchedule().at(-1) ?? 0;
  const createdAfter = new Date(since.getTime() - lastOffset - HOUR_MS);
  const rows = await queryRows<{ endpoint_id: string; hour: string; attempts: string; successes: string }>(
    ctx.db,
    sql`select d.endpoint_id, floor(extract(epoch from (a->>'at')::timestamptz) / 3600)::bigint as hour,
          count(*) as attempts, count(*) filter (where a->>'error' is null) as successes
        from webhook_deliveries d cross join lateral jsonb_array_elements(d.attempts) a
        where d.endpoint_id in (${sql.join(
          endpointIds.map((id) => sql`${id}`),
          sql`, `,
        )})
          and d.created_at >= ${createdAfter.toISOString()}::timestamptz
          and d.updated_at >= ${since.toISOString()}::timestamptz
          and (a->>'at')::timestamptz >= ${since.toISOString()}::timestamptz
        group by 1, 2`,
  );
  return rows.map((r) => ({
    endpointId: r.endpoint_id,
    hour: Number(r.hour),
    attempts: Number(r.attempts),
    successes: Number(r.successes),
  }));
}

/** The first hour of the health window: the current hour and the 23 before it. */
function healthStart(now: Date): Date {
  return new Date((Math.floor(now.getTime() / HOUR_MS) - (HEALTH_HOURS - 1)) * HOUR_MS);
}

/** Endpoint health: attempts and successes per hour for the last 24 hours (oldest first) and their totals. */
export async function getEndpointHealth(
  ctx: ServiceContext,
  args: { scope: EndpointScope; endpointId: string },
): Promise<EndpointHealthDto> {
  const actor = ownerOf(ctx, args.scope, "listWebhookDeliveries");
  const endpoint = await findOwned(ctx.db, actor, args.scope, args.endpointId);
  const since = healthStart(ctx.now());
  const counted = await attemptsByHour(ctx, [endpoint.id], since);
  const firstHour = since.getTime() / HOUR_MS;
  const hours = Array.from({ length: HEALTH_HOURS }, (_, i) => {
    const found = counted.find((c) => c.hour === firstHour + i);
    return {
      hour: new Date((firstHour + i) * HOUR_MS).toISOString(),
      attempts: found?.attempts ?? 0,
      successes: found?.successes ?? 0,
    };
  });
  return {
    endpointId: endpoint.id,
    since: since.toISOString(),
    hours,
    attempts: hours.reduce((sum, h) => sum + h.attempts, 0),
    successes: hours.reduce((sum, h) => sum + h.successes, 0),
  };
}

/**
 * The dashboard's endpoint list for one scope: every endpoint (at most 16 per account, so no pages) by id, each
 * with its attempts and successes of the last 24 hours.
 */
export async function listEndpointOverview(
  ctx: ServiceContext,
  args: { scope: EndpointScope },
): Promise<{ data: EndpointOverviewDto[] }> {
  const actor = ownerOf(ctx, args.scope, "listWebhookEndpoints");
  const rows = await ctx.db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.accountId, actor.accountId), eq(webhookEndpoints.scope, args.scope)))
    .orderBy(asc(webhookEndpoints.id))
    .limit(MAX_ENDPOINTS_PER_ACCOUNT);
  const counted = await attemptsByHour(
    ctx,
    rows.map((r) => r.id),
    healthStart(ctx.now()),
  );
  return {
    data: rows.map((row) => {
      const mine = counted.filter((c) => c.endpointId === row.id);
      return {
        ...toEndpointDto(row),
        last24h: {
          attempts: mine.reduce((sum, c) => sum + c.attempts, 0),
          successes: mine.reduce((sum, c) => sum + c.successes, 0),
        },
      };
    }),
  };
}

/**
 * What a test fire of `type` would send (docs/webhooks.md, "Delivery log and test fires"): a sample envelope with
 * `__test: true`, shown before sending. Its ids are fresh samples; the test fire itself makes its own.
 */
export async function previewTestEvent(
  ctx: ServiceContext,
  args: { scope: EndpointScope; type: EventType },
): Promise<{ envelope: string }> {
  const actor = ownerOf(ctx, args.scope, "sendTestWebhook");
  if (!eventTypesFor(args.scope).includes(args.type))
    throw new AppError("invalid_request", { param: "type" });
  return { envelope: JSON.stringify(testEnvelope(actor, args.type, ctx.now()), null, 2) };
}
