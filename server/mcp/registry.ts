import { z } from "zod";
import type { Actor, ServiceContext } from "@/server/context";
import { isAvailableTo } from "@/server/gate/authorize";
import type { McpScope } from "@/server/gate/oauth-scopes";
import type { ToolDefinition } from "./tool";

/** A resource template, as `resources/templates/list` shows it. */
export type ResourceTemplate = {
  uriTemplate: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
};

/** The resources the MCP door serves, provided by a feature (server/storefronts/mcp.ts). */
export type McpResources = {
  templates: ResourceTemplate[];
  /** The `marea.*` scope an OAuth token needs to list them, and to read one (null: none). */
  listScope: McpScope | null;
  readScope: McpScope | null;
  list: (
    ctx: ServiceContext,
  ) => Promise<Array<{ uri: string; name: string; title: string; mimeType: string }>>;
  /** Whether the URI names a resource of this kind at all (else the protocol's invalid params). */
  names: (uri: string) => boolean;
  read: (
    ctx: ServiceContext,
    uri: string,
  ) => Promise<{ contents: Array<{ uri: string; mimeType: string; text: string }> }>;
};

/** What the MCP door serves: every tool, in the order `tools/list` shows them, and the resources. */
export type McpCatalogue = { tools: readonly ToolDefinition[]; resources: McpResources };

type Installed = { catalogue: McpCatalogue; byName: Map<string, ToolDefinition>; listings?: ToolListing[] };
let installed: Installed | undefined;

/**
 * Sets what the door serves; `createMcpDoor` (http.ts) calls it with the catalogue server/wiring/mcp.ts gathers,
 * so this kit names no feature's tools. One catalogue per process.
 */
export function installMcpCatalogue(catalogue: McpCatalogue): void {
  installed = {
    catalogue,
    byName: new Map(catalogue.tools.map((definition) => [definition.name, definition])),
  };
}

function current(): Installed {
  if (!installed)
    throw new Error("MCP door used before server/wiring/mcp.ts gave it its tools (createMcpDoor)");
  return installed;
}

export function findTool(name: string): ToolDefinition | undefined {
  return current().byName.get(name);
}

export function mcpResources(): McpResources {
  return current().catalogue.resources;
}

/**
 * A tool is listed when its operation is open to the caller (its door and kind, from the operations table:
 * `marea.bootstrap_user` only for developer keys); scopes decide when it runs.
 */
export function canSeeTool(definition: ToolDefinition, actor: Actor): boolean {
  return isAvailableTo(actor, definition.definition);
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

/** The JSON Schemas are made once per process, not per request. */
function allListings(): ToolListing[] {
  const state = current();
  state.listings ??= state.catalogue.tools.map((definition) => ({
    name: definition.name,
    title: definition.title,
    description: definition.description,
    inputSchema: jsonSchema(definition.input, "input"),
    outputSchema: jsonSchema(definition.output, "output"),
    annotations: { title: definition.title, ...definition.annotations },
  }));
  return state.listings;
}

/** What `tools/list` shows this caller: `marea.bootstrap_user` only to developer keys. */
export function listToolsFor(actor: Actor): ToolListing[] {
  const tools = current().catalogue.tools;
  return allListings().filter((_, index) => canSeeTool(tools[index] as ToolDefinition, actor));
}
