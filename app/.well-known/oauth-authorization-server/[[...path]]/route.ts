import { handleAuthorizationServerMetadata, handlePreflight } from "@/server/oauth/http";

// RFC 8414 (the issuer is APP_URL, so the document lives at the root form).
export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  return handleAuthorizationServerMetadata(request);
}
export const OPTIONS = handlePreflight;
