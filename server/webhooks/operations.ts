import { authorizerFor } from "@/server/gate/authorize";
import { SCOPES, WEBHOOK_SCOPES } from "@/server/gate/scopes";
import type { OperationDefinition } from "@/server/operations";

/**
 * Webhook endpoints (docs/webhooks.md, "Endpoints"). Developer endpoints (the /v1 API) need a webhook scope;
 * merchant endpoints (order.* of the account's own storefronts, made in the dashboard) need the catalog
 * scopes.
 */
export const WEBHOOK_OPERATIONS = {
  createWebhookEndpoint: { scopes: WEBHOOK_SCOPES, access: "write" },
  // Over OAuth (MCP), an app reads the account's merchant endpoints: readMerchantWebhookEndpoints, catalog:read.
  listWebhookEndpoints: { scopes: WEBHOOK_SCOPES, access: "read", oauthScope: "marea.read" },
  getWebhookEndpoint: { scopes: WEBHOOK_SCOPES, access: "read" },
  updateWebhookEndpoint: { scopes: WEBHOOK_SCOPES, access: "write" },
  deleteWebhookEndpoint: { scopes: WEBHOOK_SCOPES, access: "write" },
  rotateWebhookSigningSecret: { scopes: WEBHOOK_SCOPES, access: "write" },
  listWebhookDeliveries: { scopes: WEBHOOK_SCOPES, access: "read", oauthScope: "marea.read" },
  sendTestWebhook: { scopes: WEBHOOK_SCOPES, access: "write" },
  // Dashboard actions only (docs/webhooks.md, "Delivery log and test fires"): no API key or OAuth grant reaches
  // them, whatever its scopes. On merchant endpoints the catalog scope is checked as for every merchant write.
  resendWebhookDelivery: { scopes: WEBHOOK_SCOPES, access: "write", via: ["session"] },
  recoverWebhookDeliveries: { scopes: WEBHOOK_SCOPES, access: "write", via: ["session"] },
  readMerchantWebhookEndpoints: { scopes: [SCOPES.catalogRead], access: "read" },
  writeMerchantWebhookEndpoints: { scopes: [SCOPES.catalogWrite], access: "write" },
} as const satisfies Record<string, OperationDefinition>;

/** `authorize` (server/gate/authorize.ts) over these operations: what this feature's services call first. */
export const authorize = authorizerFor(WEBHOOK_OPERATIONS);
