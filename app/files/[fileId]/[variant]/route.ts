import { serveFile } from "@/server/files/http";

export const dynamic = "force-dynamic";

export async function GET(
  _request: Request,
  context: { params: Promise<{ fileId: string; variant: string }> },
): Promise<Response> {
  const { fileId, variant } = await context.params;
  return serveFile(fileId, variant);
}
