import type { z } from "zod";
import type { ServiceContext } from "@/server/context";
import type { McpScope } from "@/server/oauth/scopes";
import type { OperationName } from "@/server/operations";

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
   * The `marea.*` scope an OAuth token needs for it (docs/mcp.md, "Scopes"); null: never reachable over OAuth,
   * whatever the scopes (absent from `tools/list` and refused on `tools/call`).
   */
  scope: McpScope | null;
  /** Listed and callable only with a developer key (`mk_dev_*`). */
  isDeveloperOnly: boolean;
  input: z.ZodType;
  output: z.ZodType;
  annotations: ToolAnnotations;
  run: (ctx: ServiceContext, input: never) => Promise<unknown>;
};

type ToolOptions<I extends z.ZodType, O extends z.ZodType> = {
  title: string;
  description: string;
  operation: OperationName;
  scope: McpScope | null;
  isDeveloperOnly?: boolean;
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
  return {
    name,
    ...options,
    isDeveloperOnly: options.isDeveloperOnly ?? false,
    run: run as ToolDefinition["run"],
  };
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
