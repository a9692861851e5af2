import type { AnyTRPCRouter } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { isAppError } from "@/server/errors";
import { BODY_LIMITS, boundedRequest } from "@/server/kit/body";
import { retryAfterOf } from "@/server/kit/envelope";
import { createTrpcContextFromRequest } from "./context";

/** The most calls one tRPC request may batch. */
export const TRPC_MAX_BATCH_SIZE = 10;

/**
 * The dashboard's tRPC door over HTTP (docs/ui.md, "tRPC"): `/api/trpc/<procedure>`. The App Router route
 * (app/api/trpc/[trpc]/route.ts) serves it under `next dev`; the production start serves it directly
 * (server/host/fast-doors.ts), each with the router server/wiring/trpc.ts gathers.
 *
 * The body is capped at 1 MiB (docs/security.md, "Request bodies and door limits"). tRPC's fetch adapter has no
 * `maxBodySize` (only its node:http adapter does), and it reads the body only when a procedure parses its input,
 * after the `signedIn` middleware (server/trpc/init.ts): so the request goes in with a capped body stream, and a
 * signed-out caller is refused (401) before a byte of it is read, a signed-in one with 413 as it passes 1 MiB.
 */
export function handleTrpcRequest(router: AnyTRPCRouter, request: Request): Promise<Response> {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: boundedRequest(request, BODY_LIMITS.api),
    router,
    createContext: () => createTrpcContextFromRequest(request),
    // A batch counts as one request against the session limit (docs/security.md, "Limits"): keep it small. The
    // client's batch link sends at most as many (app/_trpc/client.tsx).
    maxBatchSize: TRPC_MAX_BATCH_SIZE,
    // A 429 says when to come back, as every door's does.
    responseMeta: ({ errors }) => {
      const limited = errors
        .map((error) => error.cause)
        .find((cause) => isAppError(cause) && cause.status === 429);
      return isAppError(limited) ? { headers: retryAfterOf(limited) } : {};
    },
  });
}
