import { handleV1Request } from "@/server/wiring/rest";

// Every /v1 request goes through the one pipeline; the router answers 404/405 in the error envelope.
export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  return handleV1Request(request);
}
export const POST = GET;
export const PATCH = GET;
export const PUT = GET;
export const DELETE = GET;
export const HEAD = GET;
export const OPTIONS = GET;
