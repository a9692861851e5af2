import { z } from "zod";
import { isAvailableTo } from "@/server/accounts/authorize";
import { accountTools } from "@/server/accounts/mcp";
import type { Actor } from "@/server/context";
import { eventTools } from "@/server/events/mcp";
import { fileTools } from "@/server/files/mcp";
import { orderTools } from "@/server/orders/mcp";
import { productTools } from "@/server/products/mcp";
import { storefrontTools } from "@/server/storefronts/mcp";
import { webhookTools } from "@/server/webhooks/mcp";
import type { ToolDefinition } from "./tool";

/** Every tool, in the order `tools/list` shows them (deterministic, so clients can cache the list). */
export const TOOLS: readonly ToolDefinition[] = [
  ...accountTools.slice(0, 1),
  ...storefrontTools,
  ...productTools,
  ...fileTools,
  ...orderTools,
  ...webhookTools,
  ...eventTools,
  ...accountTools.slice(1),
];

const BY_NAME = new Map(TOOLS.map((definition) => [definition.name, definition]));

export function findTool(name: string): ToolDefinition | undefined {
  return BY_NAME.get(name);
}

/**
 * A tool is listed when its operation is open to the caller (its door and kind, from the operations table:
 * `marea.bootstrap_user` only for developer keys); scopes decide when it runs.
 */
export function canSeeTool(definition: ToolDefinition, actor: Actor): boolean {
  return isAvailableTo(actor, definition.operation);
}

/** A tool as `tools/list` describes it. */
export type ToolListing = {
  name: string;
  title: string;
  description: string;
  inputSchema: ObjectSchema;
  outputSchema: ObjectSchema;
  annotations: ToolDefinition["annotations"] & { title: string };
};

/** A tool's input and output are JSON objects (every tool's schema is a `z.object`). */
type ObjectSchema = { type: "object"; [keyword: string]: unknown };

// Inline JSON Schema (no $ref to shared ids): what every client revision can read.
function jsonSchema(schema: z.ZodType, io: "input" | "output"): ObjectSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    metadata: z.registry(),
  }) as Record<string, unknown>;
  return { ...rest, type: "object" };
}

let listings: ToolListing[] | undefined;

/** The JSON Schemas are made once per process, not per request. */
function allListings(): ToolListing[] {
  listings ??= TOOLS.map((definition) => ({
    name: definition.name,
    title: definition.title,
    description: definition.description,
    inputSchema: jsonSchema(definition.input, "input"),
    outputSchema: jsonSchema(definition.output, "output"),
    annotations: { title: definition.title, ...definition.annotations },
  }));
  return listings;
}

/** What `tools/list` shows this caller: `marea.bootstrap_user` only to developer keys. */
export function listToolsFor(actor: Actor): ToolListing[] {
  return allListings().filter((_, index) => canSeeTool(TOOLS[index] as ToolDefinition, actor));
}
