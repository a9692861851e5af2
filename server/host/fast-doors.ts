import type { FetchHandler } from "./node-server";

/**
 * What the production start (server/host/main.ts) serves without Next's request handling: the /v1 pipeline
 * and the health check, plus how to stop this process's background work. Published by Next's start-up hook
 * (instrumentation.ts), so they are the very modules Next loaded: one copy of the app per process, one
 * database client, one worker, whichever door a request comes through. Kept on `globalThis` under a
 * registered symbol because main.ts and Next's bundle are separate module graphs.
 */
export type DirectHandlers = {
  v1: FetchHandler;
  health: FetchHandler;
  /** The GraphQL door (app/api/graphql/route.ts serves the same under `next dev`). */
  graphql: FetchHandler;
  /** The MCP server (app/mcp/route.ts serves the same under `next dev`). */
  mcp: FetchHandler;
  /** The dashboard's tRPC door (app/api/trpc/[trpc]/route.ts serves the same under `next dev`). */
  trpc: FetchHandler;
  /** The /v1 route pattern of a path, for metrics and traces (server/http/router.ts). */
  v1RoutePattern: (pathname: string) => string;
  /** Stops the background worker and closes the database (graceful shutdown, after the last answer). */
  shutdown: () => Promise<void>;
};

const KEY = Symbol.for("marea.directHandlers");

export function publishDirectHandlers(handlers: DirectHandlers): void {
  (globalThis as { [KEY]?: DirectHandlers })[KEY] = handlers;
}

export function directHandlers(): DirectHandlers | undefined {
  return (globalThis as { [KEY]?: DirectHandlers })[KEY];
}

export type DirectRoute = "v1" | "health" | "graphql" | "mcp" | "trpc";

/** `target` is `path` itself or `path?query`. */
function isPath(target: string, path: string): boolean {
  return target === path || (target.startsWith(path) && target.charAt(path.length) === "?");
}

/**
 * The request targets served without Next: `/v1` and below; and, with the methods their App Router routes
 * export, `/healthz` (GET, HEAD), `/api/graphql` (GET, POST), `/mcp` (POST, GET, DELETE) and `/api/trpc/<procedure>`
 * (GET, POST). Anything else
 * (another method, a trailing slash, absolute-form targets, `//` paths) is Next's, which answers it as before.
 */
export function directRoute(method: string | undefined, target: string): DirectRoute | null {
  if (target === "/v1" || target.startsWith("/v1/") || target.startsWith("/v1?")) return "v1";
  if (isPath(target, "/healthz")) return method === "GET" || method === "HEAD" ? "health" : null;
  if (isPath(target, "/api/graphql")) return method === "POST" || method === "GET" ? "graphql" : null;
  if (isPath(target, "/mcp"))
    return method === "POST" || method === "GET" || method === "DELETE" ? "mcp" : null;
  if (target.startsWith("/api/trpc/") && !target.startsWith("/api/trpc//"))
    return method === "POST" || method === "GET" ? "trpc" : null;
  return null;
}
