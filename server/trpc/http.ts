import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createTrpcContextFromRequest } from "./context";
import { appRouter } from "./router";

/**
 * The dashboard's tRPC door over HTTP (docs/ui.md, "tRPC"): `/api/trpc/<procedure>`. The App Router route
 * (app/api/trpc/[trpc]/route.ts) serves it under `next dev`; the production start serves it directly
 * (server/http/direct.ts).
 */
export function handleTrpcRequest(request: Request): Promise<Response> {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext: () => createTrpcContextFromRequest(request),
  });
}
