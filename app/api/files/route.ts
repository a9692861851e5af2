import { handleSessionUpload } from "@/server/files/session-door";

// The dashboard's photo uploads (docs/ui.md, "Photos"): POST /v1/files behind the session cookie.
export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  return handleSessionUpload(request);
}
