import { and, asc, count, desc, eq, gt, gte, inArray, sql } from "drizzle-orm";
import { authorize } from "@/server/accounts/authorize";
import { accounts } from "@/server/accounts/tables";
import type { Actor, ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { newWebhookEndpointId } from "@/server/lib/ids";
import { decodeCursor, type ListQuery, toPage } from "@/server/lib/pagination";
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

/** 16 webhook endpoints per account, both scopes together (docs/webhooks.md, "Limits"). */
export const MAX_ENDPOINTS_PER_ACCOUNT = 16;
/** The delivery log shows the last 50 per endpoint, kept 30 days (docs/webhooks.md, "Delivery log"). */
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
 * Creates an endpoint with a fresh 64-hex signing secret, returned this once only (stored encrypted).
 * The URL passes the registration checks (spec, Limits: URL validation). 16 per account, counted under a lock
 * on the account row so concurrent creates cannot pass the limit. Spec: POST /v1/webhook_endpoints.
 */
export async function createEndpoint(
  ctx: ServiceContext,
  args: Scoped & { endpoint: CreateWebhookEndpointInput },
): Promise<WebhookEndpointWithSecretDto> {
  const { scope = "developer", endpoint: input } = args;
  const actor = ownerOf(ctx, scope, "createWebhookEndpoint");
  // Stored exactly as sent (the spec's `url` echoes what was registered); it is parsed again before each attempt.
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

/** Lists the account's endpoints by id, `limit` per page, with `nextCursor` (decisions.md, Bodies: Lists). */
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

/** One endpoint, without its secret. Spec: GET /v1/webhook_endpoints/{id}. */
export async function getEndpoint(ctx: ServiceContext, args: EndpointRef): Promise<WebhookEndpointDto> {
  const { scope = "developer", endpointId } = args;
  return toEndpointDto(await findOwned(ctx.db, ownerOf(ctx, scope, "getWebhookEndpoint"), scope, endpointId));
}

/**
 * Partial update: only present fields change; the secret cannot be set or rotated here and is not returned.
 * A new URL passes the registration checks again. Pausing (`enabled: false`) stops the endpoint's pending work
 * in the same transaction: deliveries not attempted yet are removed and scheduled retries are cancelled
 * (spec, States: paused: no HTTP attempt, no retries, no delivery rows). Spec: POST /v1/webhook_endpoints/{id}.
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
 * the current secret, so the old one stops at once, pending retries included (spec, States: rotate-secret).
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
