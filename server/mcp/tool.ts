import type { z } from "zod";
import type { ServiceContext } from "@/server/context";
import type { McpScope } from "@/server/gate/oauth-scopes";
import type { OperationDefinition, OperationTable } from "@/server/operations";

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
  /** The operation its service function authorizes (its feature's operations.ts). */
  operation: string;
  /** That operation's definition: which callers the tool is listed to, and its OAuth scope. */
  definition: OperationDefinition;
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

type ToolOptions<I extends z.ZodType, O extends z.ZodType, N extends string> = {
  title: string;
  description: string;
  operation: N;
  input: I;
  output: O;
  annotations: ToolAnnotations;
};

/**
 * The `tool` of one feature, over that feature's operations table (`const tool = toolsFor(STOREFRONT_OPERATIONS)`
 * in its mcp.ts): the kit names no feature's operations. `tool` defines a tool; `run` receives the parsed input
 * and answers what the output schema describes.
 */
export function toolsFor<T extends OperationTable>(table: T) {
  return function tool<I extends z.ZodType, O extends z.ZodType>(
    name: string,
    options: ToolOptions<I, O, keyof T & string>,
    run: (ctx: ServiceContext, input: z.output<I>) => Promise<z.input<O>>,
  ): ToolDefinition {
    const definition: OperationDefinition = table[options.operation] as OperationDefinition;
    return {
      name,
      ...options,
      definition,
      scope: oauthScopeOf(definition),
      run: run as ToolDefinition["run"],
    };
  };
}

/** What an OAuth token needs for an operation, from its definition: null when OAuth cannot reach it. */
export function oauthScopeOf(definition: OperationDefinition): McpScope | null {
  if (definition.via && !definition.via.includes("oauth")) return null;
  return (definition.oauthScope as McpScope | undefined) ?? null;
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
