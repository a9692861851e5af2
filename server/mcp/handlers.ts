import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { type Actor, createServiceContext, type ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import type { AppError, Language } from "@/server/errors";
import { assertAvailableTo } from "@/server/gate/authorize";
import { toAppError } from "@/server/kit/errors";
import { parseInput } from "@/server/validation";
import { mcpErrorObject } from "./errors";
import { findTool, listToolsFor, mcpResources, type ToolListing } from "./registry";

/**
 * What the MCP methods do, for every protocol revision (docs/mcp.md, "Protocol versions"): `server.ts` registers
 * them on the SDK's server, which serves the stateless 2026-07-28 revision and the handshake-based ones alike.
 */

/** The caller of one MCP request: its actor, and what the request's context is made from. */
export type McpCall = {
  db: Db;
  actor: Actor;
  requestId: string;
  language: Language;
  now: () => Date;
  usage?: ServiceContext["usage"];
};

export const SERVER_INFO = { name: "marea", title: "Marea", version: "1.0.0" } as const;

export const INSTRUCTIONS =
  "Marea manages online storefronts: their profile, branding, schedule, delivery, products and orders. " +
  "Read before you write: list or get a storefront, then change it. Errors come back as results with isError, " +
  "a stable `code`, a `message` and the `param` at fault. Publishing needs a verified account on a plan that " +
  "can publish.";

const INVALID_PARAMS = ProtocolErrorCode.InvalidParams;

/**
 * A catalogue error outside a tool call: a JSON-RPC error (the SDK's `ProtocolError`, which it answers with its
 * code) whose message is the catalogue's error object.
 */
function protocolErrorOf(error: AppError, call: McpCall): ProtocolError {
  return new ProtocolError(
    error.status >= 500 ? ProtocolErrorCode.InternalError : INVALID_PARAMS,
    JSON.stringify(mcpErrorObject(error, call)),
  );
}

export type CallToolResult = {
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

function contextOf(call: McpCall): ServiceContext {
  return createServiceContext({
    db: call.db,
    actor: call.actor,
    requestId: call.requestId,
    language: call.language,
    now: call.now,
    usage: call.usage,
  });
}

export function listTools(call: McpCall): ToolListing[] {
  return listToolsFor(call.actor);
}

/** The catalogue's error as a tool result: `isError`, and the error object as the text. */
function errorResult(error: AppError, call: McpCall): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify(mcpErrorObject(error, call)) }] };
}

/** Anything a tool threw, as a catalogue error (unknown failures are logged and answered as 500s). */
function failureOf(error: unknown, call: McpCall, name: string): AppError {
  return toAppError(error, { requestId: call.requestId, tool: name });
}

/**
 * `tools/call`: the arguments are parsed with the tool's zod schema (a bad one is `invalid_request` with the JSON
 * path in `param`), then ONE service function runs with the caller's context. Its DTO is `structuredContent`
 * (and the text, as JSON); a failure is an `isError` result carrying the catalogue's error object.
 */
export async function callTool(call: McpCall, name: string, args: unknown): Promise<CallToolResult> {
  const definition = findTool(name);
  if (!definition) throw new ProtocolError(INVALID_PARAMS, `Unknown tool: ${name}`);
  const ctx = contextOf(call);
  try {
    // A tool not open to the caller (its operation's door and kind) is refused before its arguments are read.
    assertAvailableTo(call.actor, definition.operation, definition.definition);
    const input = parseInput(definition.input, args ?? {}, call.language);
    const result = (await definition.run(ctx, input as never)) as Record<string, unknown>;
    ctx.runAfterCommit();
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
  } catch (error) {
    return errorResult(failureOf(error, call, name), call);
  }
}

// Resources: what the catalogue's `resources` provide (the storefronts, server/storefronts/mcp.ts).

export function resourceTemplates() {
  return mcpResources().templates;
}

/** `resources/list`: every resource the caller may read. */
export async function listResources(call: McpCall) {
  const ctx = contextOf(call);
  try {
    return await mcpResources().list(ctx);
  } catch (error) {
    throw protocolErrorOf(failureOf(error, call, "resources/list"), call);
  }
}

/** `resources/read`: one resource; an unknown URI or resource is a protocol error (invalid params). */
export async function readResource(call: McpCall, uri: string) {
  const resources = mcpResources();
  if (!resources.names(uri)) throw new ProtocolError(INVALID_PARAMS, `Unknown resource: ${uri}`);
  const ctx = contextOf(call);
  try {
    return await resources.read(ctx, uri);
  } catch (error) {
    throw protocolErrorOf(failureOf(error, call, "resources/read"), call);
  }
}
