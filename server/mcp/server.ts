import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  isSpecType,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import {
  callTool,
  INSTRUCTIONS,
  listResources,
  listTools,
  type McpCall,
  readResource,
  resourceTemplates,
  SERVER_INFO,
} from "./handlers";

/**
 * The MCP protocol through the official SDK, `@modelcontextprotocol/server` 2.x (docs/mcp.md, "Protocol
 * versions"): one server per request built over the handlers (`serverFor`), served by the SDK's HTTP entry for the
 * stateless revision 2026-07-28 and by its Streamable HTTP transport, stateless with JSON answers, for the
 * handshake-based revisions 2025-03-26 to 2025-11-25. The door in front (`http.ts`) has authenticated, counted and
 * read the one message already; the SDK answers the protocol (eras, headers, versions, the handshake, errors).
 */

/** What `server/discover` names: the modern revision, then the handshake-based ones the same endpoint serves. */
export const SUPPORTED_VERSIONS = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] as const;

/** How long a client may reuse a list (`ttlMs`, 2026-07-28): lists only change with a deploy. */
const LIST_TTL_MS = 300_000;

/** A request's own answers (its storefronts) are never shared nor kept; the tool list is per caller. */
const CACHE_HINTS = {
  "server/discover": { ttlMs: LIST_TTL_MS, cacheScope: "public" },
  "tools/list": { ttlMs: LIST_TTL_MS, cacheScope: "private" },
  "resources/templates/list": { ttlMs: LIST_TTL_MS, cacheScope: "public" },
  "resources/list": { ttlMs: 0, cacheScope: "private" },
  "resources/read": { ttlMs: 0, cacheScope: "private" },
} as const;

/**
 * One server for one request of one caller. The low-level `Server` rather than `McpServer`: the tools keep the
 * catalogue's errors (a bad argument is `invalid_request` with its JSON path, not the SDK's validation text), their
 * own JSON Schemas, and a list that depends on the caller (`marea.bootstrap_user` for developer keys).
 */
export function serverFor(call: McpCall): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    instructions: INSTRUCTIONS,
    cacheHints: CACHE_HINTS,
  });
  // The SDK's own discover lists the modern revisions only; this endpoint also serves the 2025 ones, and says so.
  const discover = (
    server as unknown as { _ondiscover: () => { supportedVersions: string[] } }
  )._ondiscover.bind(server);
  Object.assign(server, {
    _ondiscover: () => ({ ...discover(), supportedVersions: [...SUPPORTED_VERSIONS] }),
  });
  server.setRequestHandler("tools/list", () => ({ tools: listTools(call) }));
  server.setRequestHandler("tools/call", (request) =>
    callTool(call, request.params.name, request.params.arguments),
  );
  server.setRequestHandler("resources/list", async () => ({ resources: await listResources(call) }));
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: resourceTemplates() }));
  server.setRequestHandler("resources/read", (request) => readResource(call, request.params.uri));
  return server;
}

/**
 * The SDK hands the factory what the door authenticated as `authInfo` (it verifies nothing itself): the caller
 * rides in `extra`; the credential stays in the door.
 */
function authInfoOf(call: McpCall): AuthInfo {
  const via = call.actor.via;
  return {
    token: "",
    clientId: via.type === "oauth" ? via.clientId : via.type === "api_key" ? via.key.keyId : "",
    scopes: call.actor.scopes,
    extra: { call },
  };
}

function callOf(authInfo: AuthInfo | undefined): McpCall {
  const call = authInfo?.extra?.call as McpCall | undefined;
  if (!call) throw new ProtocolError(-32603, "No authenticated caller.");
  return call;
}

/**
 * The 2026-07-28 entry. `legacy: "reject"`: the 2025 revisions go to `serveLegacy` below instead of the SDK's
 * stateless fallback, which answers in SSE streams; these clients get one JSON answer, as before.
 */
const modern = createMcpHandler(({ authInfo }) => serverFor(callOf(authInfo)), { legacy: "reject" });

/**
 * The handshake-based revisions: the SDK's Streamable HTTP transport, stateless (a server and a transport per
 * request, no session id, nothing kept between requests, so any process answers any request), JSON answers.
 */
async function serveLegacy(request: Request, body: unknown, call: McpCall): Promise<Response> {
  const server = serverFor(call);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body, authInfo: authInfoOf(call) });
  } finally {
    void server.close().catch(() => {});
  }
}

type Shapes = Record<string, (value: unknown) => boolean>;

/** The requests this server answers in each era, each with the SDK's own predicate for its shape. */
const MODERN_SHAPES: Shapes = {
  "server/discover": isSpecType.DiscoverRequest,
  "tools/list": isSpecType.ListToolsRequest,
  "tools/call": isSpecType.CallToolRequest,
  "resources/list": isSpecType.ListResourcesRequest,
  "resources/templates/list": isSpecType.ListResourceTemplatesRequest,
  "resources/read": isSpecType.ReadResourceRequest,
};
const LEGACY_SHAPES: Shapes = {
  ...MODERN_SHAPES,
  initialize: isSpecType.InitializeRequest,
  ping: isSpecType.PingRequest,
};

/**
 * A request whose params its method's schema refuses is the client's mistake: JSON-RPC invalid params (-32602).
 * The SDK 2.4 answers most of them as an internal error (-32603) instead (typescript-sdk issue 2284, fix proposed
 * in pull request 2492); this answers them first, in both eras, until a release carries the fix.
 */
function invalidParams(body: unknown, shapes: Shapes): Response | null {
  if (typeof body !== "object" || body === null) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  const isShape = typeof method === "string" ? shapes[method] : undefined;
  if (!isShape || isShape(body)) return null;
  return Response.json({
    jsonrpc: "2.0",
    id: typeof id === "string" || typeof id === "number" ? id : null,
    error: { code: ProtocolErrorCode.InvalidParams, message: `Invalid params: not the params of ${method}.` },
  });
}

/**
 * Answers one message the door has read (`body`, already parsed; one message, not a batch) for `call`: routed by
 * the SDK's own classification (`isLegacyRequest`: a request carrying the 2026-07-28 `_meta` envelope, or naming
 * that revision in `MCP-Protocol-Version`, is modern; the rest speak a handshake-based revision).
 */
export async function serveMcp(request: Request, body: unknown, call: McpCall): Promise<Response> {
  const isLegacy = await isLegacyRequest(request, body);
  const invalid = invalidParams(body, isLegacy ? LEGACY_SHAPES : MODERN_SHAPES);
  if (invalid) return invalid;
  if (isLegacy) return serveLegacy(request, body, call);
  return modern.fetch(request, { parsedBody: body, authInfo: authInfoOf(call) });
}
