import { handleMcpRequest } from "@/server/wiring/mcp";

// {mcp_url}: MCP over Streamable HTTP, stateless (docs/mcp.md). Every method is authenticated first; only POST
// carries messages.
export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  return handleMcpRequest(request);
}
export const GET = POST;
export const DELETE = POST;
