import { authorizerFor } from "@/server/gate/authorize";
import type { OperationDefinition } from "@/server/operations";

/**
 * What a signed-in person does with OAuth apps in the dashboard (docs/mcp.md, "Consent" and "Connected apps").
 * Only a dashboard session reaches them: an API key or an app cannot approve, list or disconnect apps.
 */
export const OAUTH_OPERATIONS = {
  reviewOAuthConsent: { scopes: [], access: "read", via: ["session"] },
  decideOAuthConsent: { scopes: [], access: "write", via: ["session"] },
  listConnectedApps: { scopes: [], access: "read", via: ["session"] },
  // Leaving must stay possible whatever the terms say (as cancelling the account does).
  disconnectApp: { scopes: [], access: "write", termsGate: false, via: ["session"] },
} as const satisfies Record<string, OperationDefinition>;

/** `authorize` (server/gate/authorize.ts) over these operations: what this feature's services call first. */
export const authorize = authorizerFor(OAUTH_OPERATIONS);
