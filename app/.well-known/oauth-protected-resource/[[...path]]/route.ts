import { handlePreflight, handleProtectedResourceMetadata } from "@/server/oauth/http";

// RFC 9728: served at the root form and at the path-inserted form for the MCP URL (/mcp).
export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  return handleProtectedResourceMetadata(request);
}
export const OPTIONS = handlePreflight;
