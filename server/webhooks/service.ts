import { and, asc, count, desc, eq, getTableColumns, gt, gte, inArray, sql } from "drizzle-orm";
import { authorize } from "@/server/accounts/authorize";
import { accounts } from "@/server/accounts/tables";
import type { Actor, ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { inRequestedOrder, toPages } from "@/server/lib/batch";
import { newWebhookEndpointId } from "@/server/lib/ids";
import { decodeCursor, type ListQuery, type Page, toPage } from "@/server/lib/pagination";
import { encryptSecret, newSigningSecret } from "@/server/lib/secrets";
import type { OperationName } from "@/server/operations";
import { type EndpointRow, toDeliveryDto, toEndpointDto } from "./dto";
import { emitTestEvent } from "./events";
import {
  type CreateWebhookEndpointInput,
  ENDPOINT_ID_PATTERN,
  type EndpointScope,
  EVENT_TYPES,
  type EventType,
  isOrderEvent,
  ORDER_EVENT_TYPES,
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
import { wakeDeliveries } from "./wake";

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
function ownerOf(ctx: ServiceContext, scope: EndpointScope, operation: OperationName): Actor {
  if (scope === "developer") return authorize(ctx, operation);
  const access = OPERATION_ACCESS[operation];
  return authorize(ctx, access === "read" ? "readMerchantWebhookEndpoints" : "writeMerchantWebhookEndpoints");
}

const OPERATION_ACCESS: Partial<Record<OperationName, "read" | "write">> = {
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
    .select({
      delivery: webhookDeliveries,
      eventId: webhookEvents.eventId,
      type: webhookEvents.type,
      isTest: webhookEvents.isTest,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventRowId))
    .where(and(eq(webhookDeliveries.endpointId, endpoint.id), gte(webhookDeliveries.createdAt, since)))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
  return { data: rows.map((r) => toDeliveryDto(r.delivery, r)), nextCursor: null };
}

/**
 * Sends a sample event of `type` with `__test: true` to this one endpoint, through the same outbox, worker
 * and signature as real events. A paused endpoint receives nothing: 409 `webhook_endpoint_paused`. Answers the
 * envelope's `eventId`.
 */
export async function sendTestEvent(
  ctx: ServiceContext,
  args: EndpointRef & TestFireInput,
): Promise<{ eventId: string }> {
  const { scope = "developer", endpointId: id, ...input } = args;
  const actor = ownerOf(ctx, scope, "sendTestWebhook");
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

function newestFirst(a: DeliveryLogRow, b: DeliveryLogRow): number {
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
    .select(deliveryLogColumns())
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
    rows.map((row) => row.page as DeliveryLogRow),
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
      : await ctx.db
          .select(deliveryLogColumns())
          .from(webhookDeliveries)
          .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventRowId))
          .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
          .where(
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
