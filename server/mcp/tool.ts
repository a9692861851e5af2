import type { z } from "zod";
import type { ServiceContext } from "@/server/context";
import type { McpScope } from "@/server/oauth/scopes";
import { OPERATIONS, type OperationDefinition, type OperationName } from "@/server/operations";

/**
 * One MCP tool (docs/mcp.md, "Tools"): a few lines over ONE service function. The input schema is the service's
 * input (validated with `parseInput`, so a bad argument is the catalogue's `invalid_request` with its JSON path in
 * `param`); the output schema is the DTO the service returns (`structuredContent`).
 */
export type ToolAnnotations = {
  readOnlyHint: boolean;
  /** Meaningful for tools that change something: true when it may overwrite or remove data. */
  destructiveHint: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint: boolean;
  /** It reaches beyond Marea (mail, webhook receivers). */
  openWorldHint: boolean;
};

export type ToolDefinition = {
  name: string;
  title: string;
  description: string;
  /** The operation its service function authorizes (server/operations.ts). */
  operation: OperationName;
  /**
   * The `marea.*` scope an OAuth token needs for it (docs/mcp.md, "Scopes"), read from its operation
   * (`oauthScope`); null: its operation is closed to OAuth (`via`), so the tool is neither listed nor callable.
   */
  scope: McpScope | null;
  input: z.ZodType;
  output: z.ZodType;
  annotations: ToolAnnotations;
  run: (ctx: ServiceContext, input: never) => Promise<unknown>;
};

type ToolOptions<I extends z.ZodType, O extends z.ZodType> = {
  title: string;
  description: string;
  operation: OperationName;
  input: I;
  output: O;
  annotations: ToolAnnotations;
};

/** Defines a tool; `run` receives the parsed input and answers what the output schema describes. */
export function tool<I extends z.ZodType, O extends z.ZodType>(
  name: string,
  options: ToolOptions<I, O>,
  run: (ctx: ServiceContext, input: z.output<I>) => Promise<z.input<O>>,
): ToolDefinition {
  return { name, ...options, scope: oauthScopeOf(options.operation), run: run as ToolDefinition["run"] };
}

/** What an OAuth token needs for an operation, from the operations table: null when OAuth cannot reach it. */
export function oauthScopeOf(operation: OperationName): McpScope | null {
  const definition: OperationDefinition = OPERATIONS[operation];
  if (definition.via && !definition.via.includes("oauth")) return null;
  return definition.oauthScope ?? null;
}

/** Read-only tools, and the annotations of tools that change something. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export function writes(annotations: Omit<ToolAnnotations, "readOnlyHint">): ToolAnnotations {
  return { readOnlyHint: false, ...annotations };
}
