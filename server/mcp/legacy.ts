import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
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

/**
 * The handshake-based revisions (2025-03-26, 2025-06-18, 2025-11-25) through the official SDK's web-standard
 * Streamable HTTP transport, stateless: a server and a transport per request (nothing is kept between
 * requests, so any process can answer any request), JSON responses instead of SSE streams.
 */
export async function handleLegacyRequest(request: Request, body: unknown, call: McpCall): Promise<Response> {
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
