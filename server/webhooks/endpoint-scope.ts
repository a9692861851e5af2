import { type Actor, requireActor, type ServiceContext } from "@/server/context";
import { assertAvailableTo } from "@/server/gate/authorize";
import type { OperationDefinition } from "@/server/operations";
import { authorize, WEBHOOK_OPERATIONS } from "./operations";
import type { EndpointScope } from "./schema";

/**
 * Which webhook endpoints a call acts on, and who may (docs/webhooks.md, "Endpoints").
 * The one rule for every door: a call that names no scope acts on `defaultEndpointScope(actor)`.
 */

/**
 * The endpoints a caller manages when it does not say: a developer key its developer endpoints, anyone else (a
 * dashboard session, a user key, an OAuth app) the account's own merchant endpoints. The same rule says whose
 * events a caller reads (`GET /v1/events`) and streams (`marea listen`).
 */
export function defaultEndpointScope(actor: Actor | null): EndpointScope {
  return actor?.kind === "developer" ? "developer" : "merchant";
}

/** A webhook operation of server/webhooks/operations.ts that acts on endpoints of either scope. */
type EndpointOperation = Exclude<
  keyof typeof WEBHOOK_OPERATIONS,
  "readMerchantWebhookEndpoints" | "writeMerchantWebhookEndpoints"
>;

/**
 * Authorizes `operation` on the endpoints of `scope` (the caller's default when absent) and answers the actor
 * and the scope. Developer endpoints are the operation itself (a webhook scope). Merchant endpoints need the
 * catalog scope of the operation's `access` (`readMerchantWebhookEndpoints` or `writeMerchantWebhookEndpoints`),
 * and the operation's doors still hold: Resend and Recover stay the dashboard's on merchant endpoints too.
 */
export function authorizeEndpoints(
  ctx: ServiceContext,
  scope: EndpointScope | undefined,
  operation: EndpointOperation,
): { actor: Actor; scope: EndpointScope } {
  const acting = scope ?? defaultEndpointScope(requireActor(ctx));
  if (acting === "developer") return { actor: authorize(ctx, operation), scope: acting };
  const definition: OperationDefinition = WEBHOOK_OPERATIONS[operation];
  const merchant =
    definition.access === "read" ? "readMerchantWebhookEndpoints" : "writeMerchantWebhookEndpoints";
  const actor = authorize(ctx, merchant);
  assertAvailableTo(actor, operation, definition);
  return { actor, scope: acting };
}
