import { authorizerFor } from "@/server/gate/authorize";
import { SCOPES, WEBHOOK_SCOPES } from "@/server/gate/scopes";
import type { OperationDefinition } from "@/server/operations";

/**
 * The dashboard's overview (docs/ui.md, "Overview"): summaries read from storefronts, orders and webhook
 * deliveries. Dashboard only: /v1 callers read the lists these summarize.
 */
export const OVERVIEW_OPERATIONS = {
  getMerchantOverview: { scopes: [SCOPES.catalogRead], access: "read", via: ["session"] },
  getDeliveryOverview: { scopes: WEBHOOK_SCOPES, access: "read", via: ["session"] },
} as const satisfies Record<string, OperationDefinition>;

/** `authorize` (server/gate/authorize.ts) over these operations: what this feature's services call first. */
export const authorize = authorizerFor(OVERVIEW_OPERATIONS);
