import { ACCOUNT_OPERATIONS } from "@/server/accounts/operations";
import type { Scope } from "@/server/accounts/scopes";
import type { Actor, ViaType } from "@/server/context";
import { EVENT_OPERATIONS } from "@/server/events/operations";
import { FILE_OPERATIONS } from "@/server/files/operations";
import { LISTEN_OPERATIONS } from "@/server/listen/operations";
import { OAUTH_OPERATIONS } from "@/server/oauth/operations";
import type { McpScope } from "@/server/oauth/scopes";
import { ORDER_OPERATIONS } from "@/server/orders/operations";
import { OVERVIEW_OPERATIONS } from "@/server/overview/operations";
import { PRODUCT_OPERATIONS } from "@/server/products/operations";
import { STOREFRONT_OPERATIONS } from "@/server/storefronts/operations";
import { WEBHOOK_OPERATIONS } from "@/server/webhooks/operations";

/**
 * What one operation needs from its caller (docs/architecture.md, "Operations"). Each feature declares its
 * operations once in its `operations.ts`; `authorize` (server/accounts/authorize.ts) enforces them for every
 * adapter, and the OpenAPI document reads the scopes from here.
 */
export type OperationDefinition = {
  /** Any one of these scopes suffices; empty: any authenticated caller. */
  scopes: readonly Scope[];
  /** Writes pass the terms-of-service gate unless `termsGate` is false. */
  access: "read" | "write";
  /** false for the few writes that let a user comply or leave (accept the terms, cancel the account). */
  termsGate?: boolean;
  /** The doors that may call it; default every one. */
  via?: readonly ViaType[];
  /** The kinds of caller that may call it; default both. `["developer"]`: developer keys only. */
  kinds?: readonly Actor["kind"][];
  /**
   * The `marea.*` scope an OAuth app's token must hold to call it through its MCP tool (docs/mcp.md, "Scopes"):
   * what the step-up challenge asks for. Only for operations an MCP tool runs and `via` lets OAuth reach.
   */
  oauthScope?: McpScope;
  /**
   * An operator operation (docs/architecture.md, "Actors"): only the operator's context (`operatorContext`: the
   * CLI and its admin endpoint) runs it, through `authorizeOperator`; `authorize` refuses it to every actor.
   */
  operator?: true;
  /**
   * The operation commits its own writes, even when it answers 4xx (verifyEmail keeps a wrong code counted). An
   * idempotent executor (the /v1 pipeline, GraphQL's Idempotency-Key) must never run it inside a transaction that
   * a refusal rolls back: it claims the key first, runs the operation outside, then stores its answer.
   */
  commitsOwnWrites?: true;
};

/** Every operation of the service, gathered from the feature folders. Names are the REST operationIds. */
export const OPERATIONS = {
  ...ACCOUNT_OPERATIONS,
  ...STOREFRONT_OPERATIONS,
  ...PRODUCT_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...EVENT_OPERATIONS,
  ...LISTEN_OPERATIONS,
  ...FILE_OPERATIONS,
  ...ORDER_OPERATIONS,
  ...OAUTH_OPERATIONS,
  ...OVERVIEW_OPERATIONS,
} satisfies Record<string, OperationDefinition>;

export type OperationName = keyof typeof OPERATIONS;

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(OPERATIONS, name);
}

/** Whether the operation of this name commits its own writes (`commitsOwnWrites`); false for any other name. */
export function commitsOwnWrites(name: string | null | undefined): boolean {
  if (!name || !isOperationName(name)) return false;
  const definition: OperationDefinition = OPERATIONS[name];
  return definition.commitsOwnWrites === true;
}
