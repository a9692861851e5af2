import { authorizerFor } from "@/server/gate/authorize";
import { SCOPES } from "@/server/gate/scopes";
import type { OperationDefinition } from "@/server/operations";

/**
 * The events list (docs/api.md, "Events"): a developer key reads the events of its developer endpoints with
 * `developer:read` or `developer:webhooks`; a user key (or an OAuth app, or a session) those of the account's
 * merchant endpoints with `catalog:read`. Which of the two a caller sees is its kind, never its choice.
 */
const EVENT_READ_SCOPES = [SCOPES.developerRead, SCOPES.developerWebhooks, SCOPES.catalogRead];

export const EVENT_OPERATIONS = {
  listEvents: { scopes: EVENT_READ_SCOPES, access: "read", oauthScope: "marea.read" },
  getEvent: { scopes: EVENT_READ_SCOPES, access: "read" },
} as const satisfies Record<string, OperationDefinition>;

/** `authorize` (server/gate/authorize.ts) over these operations: what this feature's services call first. */
export const authorize = authorizerFor(EVENT_OPERATIONS);
