import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createTrpcContextFromRequest } from "@/server/trpc/context";
import { appRouter } from "@/server/trpc/router";

// The dashboard's tRPC door (docs/ui.md, "tRPC"): session cookie, Origin-checked mutations.
export const dynamic = "force-dynamic";

function handle(request: Request): Promise<Response> {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext: () => createTrpcContextFromRequest(request),
  });
}

export { handle as GET, handle as POST };
