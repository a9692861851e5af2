/**
 * Next.js start-up hook: migrate the database before the first request, publish the admin channel for the
 * CLI (embedded database only), and start the in-process background worker. Then hand the /v1 pipeline, the
 * health check, GraphQL, MCP and tRPC to the production start, which serves them beside Next (server/host/fast-doors.ts).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Traces and the delivery queue's gauges (docs/operations.md, "Observability"); the production start has
  // started tracing already, `next start` alone starts it here.
  const [{ startTracing }, { registerQueueProbe }] = await Promise.all([
    import("@/server/observability/tracing"),
    import("@/server/host/queue-probe"),
  ]);
  startTracing();
  registerQueueProbe();
  const { startServer, stopServer } = await import("@/server/host/startup");
  await startServer();
  const [
    { handleV1Request, v1RoutePattern },
    { handleHealthRequest },
    { yoga },
    { handleMcpRequest },
    { handleTrpcRequest },
    { publishDirectHandlers },
  ] = await Promise.all([
    import("@/server/wiring/rest"),
    import("@/server/health/http"),
    import("@/server/wiring/graphql"),
    import("@/server/wiring/mcp"),
    import("@/server/wiring/trpc"),
    import("@/server/host/fast-doors"),
  ]);
  publishDirectHandlers({
    v1: handleV1Request,
    health: handleHealthRequest,
    graphql: async (request) => yoga.fetch(request),
    mcp: handleMcpRequest,
    trpc: handleTrpcRequest,
    v1RoutePattern,
    shutdown: stopServer,
  });
}
