import { handleTrpcRequest } from "@/server/wiring/trpc";

// The dashboard's tRPC door (docs/ui.md, "tRPC"): session cookie, Origin-checked mutations. Wrapped rather than
// re-exported: Next type-checks route exports.
export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  return handleTrpcRequest(request);
}

export async function POST(request: Request): Promise<Response> {
  return handleTrpcRequest(request);
}
