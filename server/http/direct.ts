import type { FetchHandler } from "./node-server";

/**
 * What the production start (server/http/main.ts) serves without Next's request handling: the /v1 pipeline
 * and the health check, plus how to stop this process's background work. Published by Next's start-up hook
 * (instrumentation.ts), so they are the very modules Next loaded: one copy of the app per process, one
 * database client, one worker, whichever door a request comes through. Kept on `globalThis` under a
 * registered symbol because main.ts and Next's bundle are separate module graphs.
 */
export type DirectHandlers = {
  v1: FetchHandler;
  health: FetchHandler;
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

/**
 * The request target served without Next: `/v1` and below, and the health check (GET/HEAD only, as its App
 * Router route). Anything else, absolute-form targets and `//` paths included, is Next's.
 */
export function directRoute(method: string | undefined, target: string): "v1" | "health" | null {
  if (target === "/v1" || target.startsWith("/v1/") || target.startsWith("/v1?")) return "v1";
  if ((target === "/healthz" || target.startsWith("/healthz?")) && (method === "GET" || method === "HEAD"))
    return "health";
  return null;
}
