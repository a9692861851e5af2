import { and, asc, count, eq, gt, inArray, sql } from "drizzle-orm";
import type { Actor, ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { accounts } from "@/server/gate/tables";
import { inRequestedOrder } from "@/server/lib/batch";
import { newWebhookEndpointId } from "@/server/lib/ids";
import { decodeCursor, type ListQuery, toPage } from "@/server/lib/pagination";
import { encryptSecret, newSigningSecret } from "@/server/lib/secrets";
import { countWebhookAction } from "@/server/limits/service";
import { type EndpointRow, toEndpointDto } from "./dto";
import { authorizeEndpoints } from "./endpoint-scope";
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
  type WebhookEndpointDto,
  type WebhookEndpointList,
  type WebhookEndpointWithSecretDto,
} from "./schema";
import { webhookDeliveries, webhookEndpoints } from "./tables";
import { assertAllowedWebhookUrl } from "./url-guard";
import { wakeDeliveries } from "./wake";

/**
 * Webhook endpoints (docs/webhooks.md, "Endpoints"): create, list, read, update, delete, rotate the signing
 * secret, send a test event, and the GraphQL loader. Every function takes the endpoint `scope` it acts on,
 * `developer` or `merchant` (order.* only); without one, the caller's default (server/webhooks/endpoint-scope.ts).
 * An endpoint of another account, or of the other scope, is 404. The delivery log is in delivery-log.ts.
 */

/** 16 webhook endpoints per account, both scopes together (docs/webhooks.md, "Endpoints"). */
export const MAX_ENDPOINTS_PER_ACCOUNT = 16;

/** The event types an endpoint of this scope can receive: merchant endpoints get order.* only. */
export function eventTypesFor(scope: EndpointScope): readonly EventType[] {
  return scope === "merchant" ? ORDER_EVENT_TYPES : EVENT_TYPES;
}

/** Which endpoints a call acts on; absent: the caller's default (server/webhooks/endpoint-scope.ts). */
export type Scoped = { scope?: EndpointScope };
export type EndpointRef = Scoped & { endpointId: string };

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

/** The caller's endpoint of this scope, or 404 `webhook_endpoint_not_found` (another account's, the other scope's). */
export async function findOwned(
  db: Db,
  actor: Actor,
  scope: EndpointScope,
  id: string,
): Promise<EndpointRow> {
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
  const { scope: asked, endpoint: input } = args;
  const { actor, scope } = authorizeEndpoints(ctx, asked, "createWebhookEndpoint");
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
  const { scope: asked, ...query } = args;
  const { actor, scope } = authorizeEndpoints(ctx, asked, "listWebhookEndpoints");
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
  const { actor, scope } = authorizeEndpoints(ctx, args.scope, "getWebhookEndpoint");
  return toEndpointDto(await findOwned(ctx.db, actor, scope, args.endpointId));
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
  const { scope: asked, endpointId: id, patch: input } = args;
  const { actor, scope } = authorizeEndpoints(ctx, asked, "updateWebhookEndpoint");
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
  const { scope: asked, endpointId: id } = args;
  const { actor, scope } = authorizeEndpoints(ctx, asked, "deleteWebhookEndpoint");
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
  const { scope: asked, endpointId: id } = args;
  const { actor, scope } = authorizeEndpoints(ctx, asked, "rotateWebhookSigningSecret");
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
  const { scope: asked, endpointId: id, ...input } = args;
  const { actor, scope } = authorizeEndpoints(ctx, asked, "sendTestWebhook");
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
  const { actor, scope } = authorizeEndpoints(ctx, args.scope, "getWebhookEndpoint");
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
