import type { Actor, ViaType } from "@/server/context";

/**
 * What one operation needs from its caller (docs/architecture.md, "Operations"). Each feature declares its
 * operations once in its `operations.ts`; `authorize` (server/gate/authorize.ts) enforces them for every
 * adapter, and the OpenAPI document reads the scopes from the table server/wiring/operations.ts gathers. The scope
 * types are parameters so that this file names no feature: the gathered table checks them against the API-key
 * scopes and the `marea.*` OAuth scopes.
 */
export type OperationDefinition<S extends string = string, M extends string = string> = {
  /** Any one of these scopes suffices; empty: any authenticated caller. */
  scopes: readonly S[];
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
  oauthScope?: M;
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

/** A table of operations by name: one feature's, or every feature's (server/wiring/operations.ts). */
export type OperationTable = { readonly [name: string]: OperationDefinition };

/** Whether `name` is an operation of `table`. */
export function isOperationIn<T extends OperationTable>(table: T, name: string): name is keyof T & string {
  return Object.hasOwn(table, name);
}
