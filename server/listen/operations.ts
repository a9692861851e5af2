import { authorizerFor } from "@/server/gate/authorize";
import { SCOPES } from "@/server/gate/scopes";
import type { OperationDefinition } from "@/server/operations";

/**
 * `marea listen` and `marea trigger` (docs/api.md, "Listen sessions"): whoever may read the account's events
 * (GET /v1/events) may stream them. A developer key streams the events of its developer endpoints (`developer:read`
 * or a webhook scope); a user key those of the account's merchant endpoints (`catalog:read`). Which of the two is
 * the caller's kind, never its choice. The dashboard lists and closes the account's sessions.
 */
const LISTEN_SCOPES = [
  SCOPES.developerRead,
  SCOPES.developerWebhooks,
  SCOPES.developerBootstrap,
  SCOPES.catalogRead,
];

export const LISTEN_OPERATIONS = {
  // Opened by the CLI with a key; a dashboard session has no machine to forward to.
  createListenSession: { scopes: LISTEN_SCOPES, access: "write", via: ["api_key"] },
  streamListenSession: { scopes: LISTEN_SCOPES, access: "read", via: ["api_key"] },
  listListenSessions: { scopes: LISTEN_SCOPES, access: "read" },
  // Stopping a stream is always allowed, terms accepted or not (it only takes something away).
  closeListenSession: { scopes: LISTEN_SCOPES, access: "write", termsGate: false },
  triggerListenEvent: { scopes: LISTEN_SCOPES, access: "write", via: ["api_key"] },
} as const satisfies Record<string, OperationDefinition>;

/** `authorize` (server/gate/authorize.ts) over these operations: what this feature's services call first. */
export const authorize = authorizerFor(LISTEN_OPERATIONS);
