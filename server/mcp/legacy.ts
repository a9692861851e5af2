import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  callTool,
  INSTRUCTIONS,
  listResources,
  listTools,
  type McpCall,
  McpProtocolError,
  RESOURCE_TEMPLATES,
  readResource,
  SERVER_INFO,
} from "./handlers";

/** Protocol errors reach the client as JSON-RPC errors with their code; everything else is the SDK's. */
async function protocolErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof McpProtocolError) throw new McpError(error.code, error.message);
    throw error;
  }
}

/** The requests this server answers through the SDK, each with the SDK's own schema of it. */
const REQUEST_SCHEMAS: Record<string, { safeParse: (value: unknown) => { success: boolean } }> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
  "resources/list": ListResourcesRequestSchema,
  "resources/templates/list": ListResourceTemplatesRequestSchema,
  "resources/read": ReadResourceRequestSchema,
};

/**
 * A request whose params its method's schema refuses is the client's mistake: JSON-RPC invalid params (-32602).
 * The SDK parses them inside its handler and would answer an internal error (-32603).
 */
function invalidParams(body: unknown): Response | null {
  if (typeof body !== "object" || body === null) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  const schema = typeof method === "string" ? REQUEST_SCHEMAS[method] : undefined;
  if (!schema || schema.safeParse(body).success) return null;
  return new Response(
    JSON.stringify({
      jsonrpc: "2.0",
      id: typeof id === "string" || typeof id === "number" ? id : null,
      error: { code: -32602, message: `Invalid params: not the params of ${String(method)}.` },
    }),
    { status: 200, headers: { "content-type": "application/json" } },
  );
}

/**
 * The handshake-based revisions (2025-03-26, 2025-06-18, 2025-11-25) through the official SDK's web-standard
 * Streamable HTTP transport, stateless: a server and a transport per request (nothing is kept between
 * requests, so any process can answer any request), JSON responses instead of SSE streams.
 */
export async function handleLegacyRequest(request: Request, body: unknown, call: McpCall): Promise<Response> {
  const invalid = invalidParams(body);
  if (invalid) return invalid;
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools(call) }));
  server.setRequestHandler(CallToolRequestSchema, (req) =>
    protocolErrors(() => callTool(call, req.params.name, req.params.arguments)),
  );
  server.setRequestHandler(ListResourcesRequestSchema, () =>
    protocolErrors(async () => ({ resources: await listResources(call) })),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: RESOURCE_TEMPLATES,
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (req) =>
    protocolErrors(() => readResource(call, req.params.uri)),
  );
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    void server.close().catch(() => {});
  }
}
