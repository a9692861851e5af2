import {
  callTool,
  INSTRUCTIONS,
  INVALID_PARAMS,
  listResources,
  listTools,
  type McpCall,
  McpProtocolError,
  RESOURCE_TEMPLATES,
  readResource,
  SERVER_INFO,
} from "./handlers";

/**
 * The stateless revision 2026-07-28 (docs/mcp.md, "Protocol versions"): no `initialize` handshake; every request
 * carries its protocol version in `_meta` and in the `MCP-Protocol-Version` header, and mirrors its method (and
 * the tool or resource it names) in `Mcp-Method` / `Mcp-Name`. The SDK this service runs on predates it, so this
 * small dispatcher answers it over the same handlers.
 */

export const MODERN_VERSIONS = ["2026-07-28"] as const;
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
export const SUPPORTED_VERSIONS = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

const META_VERSION = "io.modelcontextprotocol/protocolVersion";
const HEADER_MISMATCH = -32020;
const UNSUPPORTED_VERSION = -32022;
const METHOD_NOT_FOUND = -32601;
const INVALID_REQUEST = -32600;
/** How long a client may reuse a list (`ttlMs`): lists only change with a deploy. */
const LIST_TTL_MS = 300_000;

type JsonRpcId = string | number | null;
type JsonRpcRequest = { jsonrpc: "2.0"; id?: JsonRpcId; method: string; params?: Record<string, unknown> };

function json(status: number, body: unknown): Response {
  return new Response(body === null ? null : JSON.stringify(body), {
    status,
    headers: body === null ? {} : { "content-type": "application/json" },
  });
}

function rpcError(status: number, id: JsonRpcId, code: number, message: string, data?: unknown): Response {
  return json(status, {
    jsonrpc: "2.0",
    id,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  });
}

/** The protocol version a modern request declares in its body's `_meta`, if any. */
export function declaredVersion(body: unknown): string | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const params = (body as { params?: unknown }).params;
  if (typeof params !== "object" || params === null) return null;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== "object" || meta === null) return null;
  const version = (meta as Record<string, unknown>)[META_VERSION];
  return typeof version === "string" ? version : null;
}

/** True when the request speaks the per-request-metadata era (header or `_meta`), not the handshake one. */
export function isModernRequest(headerVersion: string | null, body: unknown): boolean {
  if (headerVersion !== null && (MODERN_VERSIONS as readonly string[]).includes(headerVersion)) return true;
  return declaredVersion(body) !== null;
}

/** `Mcp-Name` may carry a value base64-encoded as `=?base64?…?=`. */
function decodeHeaderValue(value: string | null): string | null {
  if (value === null) return null;
  const match = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value.trim());
  return match ? Buffer.from(match[1] ?? "", "base64").toString("utf8") : value.trim();
}

function isRequest(body: unknown): body is JsonRpcRequest {
  return (
    typeof body === "object" &&
    body !== null &&
    !Array.isArray(body) &&
    (body as { jsonrpc?: unknown }).jsonrpc === "2.0" &&
    typeof (body as { method?: unknown }).method === "string"
  );
}

function withServerInfo(result: Record<string, unknown>): Record<string, unknown> {
  return { resultType: "complete", ...result, _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO } };
}

/** Answers one modern request (headers already authenticated and authorized by the caller). */
export async function handleModernRequest(request: Request, body: unknown, call: McpCall): Promise<Response> {
  if (!isRequest(body)) return rpcError(400, null, INVALID_REQUEST, "The body must be one JSON-RPC request.");
  const id = body.id ?? null;
  const headerVersion = request.headers.get("mcp-protocol-version");
  const bodyVersion = declaredVersion(body);
  if (!headerVersion || !bodyVersion || headerVersion !== bodyVersion)
    return rpcError(
      400,
      id,
      HEADER_MISMATCH,
      "Header mismatch: MCP-Protocol-Version must be sent and equal _meta's io.modelcontextprotocol/protocolVersion.",
    );
  if (!(MODERN_VERSIONS as readonly string[]).includes(bodyVersion))
    return rpcError(400, id, UNSUPPORTED_VERSION, "Unsupported protocol version", {
      supported: SUPPORTED_VERSIONS,
      requested: bodyVersion,
    });
  if (request.headers.get("mcp-method") !== body.method)
    return rpcError(400, id, HEADER_MISMATCH, `Header mismatch: Mcp-Method must be ${body.method}.`);
  const params = body.params ?? {};
  const named =
    body.method === "tools/call" ? params.name : body.method === "resources/read" ? params.uri : null;
  if (named !== null && decodeHeaderValue(request.headers.get("mcp-name")) !== named)
    return rpcError(400, id, HEADER_MISMATCH, "Header mismatch: Mcp-Name must name the tool or resource.");
  // A notification: accepted, nothing to answer.
  if (body.id === undefined) return json(202, null);
  try {
    const result = await dispatch(body.method, params, call);
    if (result === null) return rpcError(404, id, METHOD_NOT_FOUND, `Method not found: ${body.method}`);
    return json(200, { jsonrpc: "2.0", id, result: withServerInfo(result) });
  } catch (error) {
    if (error instanceof McpProtocolError) return rpcError(200, id, error.code, error.message);
    throw error;
  }
}

async function dispatch(
  method: string,
  params: Record<string, unknown>,
  call: McpCall,
): Promise<Record<string, unknown> | null> {
  switch (method) {
    case "server/discover":
      return {
        supportedVersions: SUPPORTED_VERSIONS,
        capabilities: { tools: {}, resources: {} },
        instructions: INSTRUCTIONS,
        ttlMs: LIST_TTL_MS,
        cacheScope: "public",
      };
    case "tools/list":
      return { tools: listTools(call), ttlMs: LIST_TTL_MS, cacheScope: "private" };
    case "tools/call": {
      if (typeof params.name !== "string")
        throw new McpProtocolError(INVALID_PARAMS, "params.name is required.");
      return { ...(await callTool(call, params.name, params.arguments)) };
    }
    case "resources/list":
      return { resources: await listResources(call), ttlMs: 0, cacheScope: "private" };
    case "resources/templates/list":
      return { resourceTemplates: RESOURCE_TEMPLATES, ttlMs: LIST_TTL_MS, cacheScope: "public" };
    case "resources/read": {
      if (typeof params.uri !== "string")
        throw new McpProtocolError(INVALID_PARAMS, "params.uri is required.");
      return { ...(await readResource(call, params.uri)), ttlMs: 0, cacheScope: "private" };
    }
    default:
      return null;
  }
}
