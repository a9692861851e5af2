import cluster from "node:cluster";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { env } from "@/server/env";
import { isAllowedHost } from "@/server/http/hosts";
import { applyMailDefaults, isLoopbackHost } from "@/server/http/mail-defaults";
import { wrapPageCache } from "@/server/http/page-script-hashes";
import { markPeerHeaderStamped, stampPeer } from "@/server/http/peer";
import { baseSecurityHeaders, secureDirectAnswer, secureNextAnswer } from "@/server/http/security-headers";
import { isLoopbackAddress, parseIpAddress } from "@/server/lib/ip";
import { log } from "@/server/lib/log";
import { metrics } from "@/server/observability/metrics";
import { startTracing, stopTracing } from "@/server/observability/tracing";
import { directHandlers, directRoute } from "./fast-doors";
import { clusterMetricsText, listenForMetrics, metricsFromPrimary } from "./metrics-server";
import { serveFetch } from "./node-server";
import {
  doorOf,
  nextRoutePatterns,
  observeRequest,
  pathnameOf,
  routeOf,
  runInSpan,
  serveMetrics,
} from "./observability";

/**
 * The production start (`npm start`; docs/operations.md, "Running"): ONE node:http server on PORT per process.
 * `/v1/*`, `/healthz`, `/api/graphql`, `/mcp` and `/api/trpc/*` go straight to their fetch-style handlers through the node:http
 * bridge (server/host/node-server.ts), without Next's per-request work, which cost about three quarters of an
 * API call (bench/README.md); every other path (dashboard, public pages, tRPC, /api/inngest, OAuth pages, static
 * files) goes to Next's request handler, Next's documented custom-server mode. The App Router routes for the
 * same paths still serve `next dev` and hosts that run Next alone: the same handlers either way.
 *
 * WEB_CONCURRENCY=N > 1 starts N such processes under node:cluster, sharing the port (PostgreSQL only). Each hears
 * the storefront changes of the others through PostgreSQL, as processes on other hosts do
 * (server/storefronts/change-relay.ts).
 *
 * On every request, before any handler (docs/security.md): the socket's peer goes into a header of the server's
 * own (server/http/peer.ts; the client address of every per-IP limit starts there), the security headers are
 * set (server/http/security-headers.ts), and a page asked for under a Host name that is not this service's is
 * refused with 421 (server/http/hosts.ts). Each request is also named (door, route pattern), counted, traced and
 * logged (server/host/observability.ts; docs/operations.md, "Observability"), and `/metrics` is served behind
 * METRICS_TOKEN on PORT, or on a METRICS_PORT listener of its own.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** How long a stopping process waits for requests in flight before closing their connections. */
const DRAIN_TIMEOUT_MS = 25_000;

/**
 * In production, Next prepares its server (and runs instrumentation.ts: migrations, the worker, and the direct
 * handlers it publishes) on its first request, which for /healthz and /v1 never comes. So do now what that first
 * request would, through the server `app.prepare()` set up. Not a documented API: the start-up test
 * (server/host/main.test.ts) fails if a Next upgrade moves it.
 */
async function prepareNextServer(app: unknown): Promise<void> {
  const wrapper = (app as { server?: { getServer?: () => Promise<{ prepare?: () => Promise<void> }> } })
    .server;
  const server = await wrapper?.getServer?.();
  if (typeof server?.prepare !== "function")
    throw new Error("cannot prepare Next's server: this Next version does not expose it as expected");
  await server.prepare();
}

async function runServer(): Promise<void> {
  const config = env();
  process.title = "marea-server";
  // Before Next loads, so its spans and the services' join the same provider.
  startTracing();
  metrics();
  const { default: next } = await import("next");
  const app = next({ dev: false, dir: ROOT, hostname: config.HOST ?? "localhost", port: config.PORT });
  await app.prepare();
  await prepareNextServer(app);
  const handlers = directHandlers();
  if (!handlers)
    throw new Error("instrumentation.ts did not publish the /v1 handlers: is `.next` a build of this app?");
  const handleNext = app.getRequestHandler();
  markPeerHeaderStamped();
  const headerConfig = { isHttps: config.APP_URL.startsWith("https:") };
  const baseHeaders = baseSecurityHeaders(headerConfig);
  const hostPolicy = { urls: [config.APP_URL, config.MCP_URL] };
  const isDevelopment = config.NODE_ENV !== "production";
  const direct = {
    v1: serveFetch(handlers.v1),
    health: serveFetch(handlers.health),
    graphql: serveFetch(handlers.graphql),
    mcp: serveFetch(handlers.mcp),
    trpc: serveFetch(handlers.trpc),
  };

  const routePatterns = { v1: handlers.v1RoutePattern, next: nextRoutePatterns(path.join(ROOT, ".next")) };
  // /metrics on PORT only with a token and no listener of its own; a cluster's worker answers the primary's sum.
  const metricsOnPort = Boolean(config.METRICS_TOKEN && !config.METRICS_PORT);
  const metricsSource = cluster.isWorker ? metricsFromPrimary : undefined;

  let stopping = false;
  const inFlight = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    res.once("close", () => inFlight.delete(res));
    // A request that arrives while the process drains is still answered, and its connection then closed.
    if (stopping) res.setHeader("connection", "close");
    stampPeer(req);
    const target = req.url ?? "/";
    const route = directRoute(req.method, target);
    const pathname = pathnameOf(target);
    if (metricsOnPort && pathname === "/metrics") {
      const span = observeRequest(req, res, "metrics", "/metrics", pathname);
      secureDirectAnswer(res, baseHeaders);
      runInSpan(span, () => {
        serveMetrics(req, res, metricsSource).catch(() => {
          if (!res.headersSent) res.statusCode = 500;
          res.end();
        });
      });
      return;
    }
    const door = doorOf(route, pathname);
    const span = observeRequest(req, res, door, routeOf(door, pathname, routePatterns), pathname);
    runInSpan(span, () => handle(req, res, route));
  });

  const handle = (req: IncomingMessage, res: ServerResponse, route: ReturnType<typeof directRoute>) => {
    if (route) {
      secureDirectAnswer(res, baseHeaders);
      direct[route](req, res);
      return;
    }
    secureNextAnswer(req, res, baseHeaders, headerConfig);
    // Each cached page keeps the hashes of its inline scripts, for its CSP (server/http/page-script-hashes.ts).
    wrapPageCache((globalThis as { __incrementalCache?: unknown }).__incrementalCache);
    const host = req.headers.host;
    if (
      !isAllowedHost(host, hostPolicy, false) &&
      !((isDevelopment || isLoopbackPeer(req)) && isAllowedHost(host, hostPolicy, true))
    ) {
      misdirected(res, config.APP_URL);
      return;
    }
    handleNext(req, res).catch((error: unknown) => {
      log("error", "Next request handler failed", { error });
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  };

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  log("info", "listening", { port: config.PORT, host: config.HOST ?? "*", pid: process.pid });
  // One process: its own /metrics listener; in a cluster the primary has it (runPrimary).
  const metricsServer = cluster.isWorker ? null : await listenForMetrics();

  // Graceful shutdown (docs/operations.md, "Stopping"): stop accepting, answer what is in flight (each of those
  // connections closes after its answer), then stop the worker, Next, and the database.
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log("info", "draining before exit", { signal, inFlight: inFlight.size });
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const res of inFlight) if (!res.headersSent) res.setHeader("connection", "close");
    // A keep-alive connection whose answer just went out is idle: close it now rather than after its timeout.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    const deadline = setTimeout(() => {
      log("warn", "drain timed out: closing the connections left", { inFlight: inFlight.size });
      server.closeAllConnections();
    }, DRAIN_TIMEOUT_MS);
    await closed;
    metricsServer?.close();
    clearInterval(sweep);
    clearTimeout(deadline);
    try {
      await handlers.shutdown();
      await app.close();
      await stopTracing();
    } catch (error) {
      log("warn", "error while stopping", { error });
    }
    process.exit(0);
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      void stop(signal);
    });
  }
}

function isLoopbackPeer(req: IncomingMessage): boolean {
  const peer = parseIpAddress(req.socket.remoteAddress ?? "");
  return peer !== null && isLoopbackAddress(peer);
}

/** 421: this server does not answer pages for that Host name (docs/security.md, "Host names"). */
function misdirected(res: ServerResponse, appUrl: string): void {
  res.statusCode = 421;
  res.setHeader("content-type", "text/plain; charset=utf-8");
  res.setHeader("cache-control", "no-store");
  res.end(`Misdirected request: this server answers pages at ${appUrl}.\n`);
}

/**
 * `npm start` without SMTP_URL (README's quick start): mail is kept in the outbox and shown at /dev/mail, to this
 * machine only. Say so loudly, and say it louder when nobody can read it (docs/security.md, "/dev/mail").
 */
function announceMail(config: ReturnType<typeof env>): void {
  if (config.SMTP_URL) return;
  if (config.DEV_MAIL === "1") {
    log(
      "warn",
      `SMTP_URL is not set: mail is not sent. Sign-in and verification codes are shown at ` +
        `${config.APP_URL}/dev/mail, to a browser on this machine only` +
        `${config.HOST && isLoopbackHost(config.HOST) ? ` (listening on ${config.HOST} only)` : ""}. ` +
        "Set SMTP_URL (and HOST) before serving anyone else.",
      { host: config.HOST ?? "*" },
    );
    return;
  }
  log(
    "error",
    "SMTP_URL is not set and /dev/mail is off: mail stays in the outbox and is never sent, so nobody can sign in. " +
      "Set SMTP_URL (or DEV_MAIL=1 to read mail at /dev/mail from this machine).",
    { host: config.HOST ?? "*" },
  );
}

function runPrimary(count: number): void {
  if (!env().DATABASE_URL) {
    process.stderr.write(
      `WEB_CONCURRENCY=${count} needs DATABASE_URL: the embedded database (PGlite) can be opened by one process ` +
        "only. Set DATABASE_URL to a PostgreSQL database, or WEB_CONCURRENCY=1.\n",
    );
    process.exit(1);
  }
  process.title = "marea-primary";
  let stopping = false;
  const alive = new Set<number>();
  const listening = new Set<number>();
  const fork = () => alive.add(cluster.fork().id);
  cluster.on("listening", (worker) => listening.add(worker.id));
  cluster.on("exit", (worker, code, signal) => {
    alive.delete(worker.id);
    if (stopping) {
      if (alive.size === 0) process.exit();
      return;
    }
    // A worker that never listened failed at start-up (database unreachable, no build): so would the next.
    if (!listening.has(worker.id)) {
      log("error", "a server process failed to start; stopping", { pid: worker.process.pid, code, signal });
      stopping = true;
      process.exitCode = 1;
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill("SIGTERM");
      if (alive.size === 0) process.exit();
      return;
    }
    log("error", "a server process died; starting another", { pid: worker.process.pid, code, signal });
    fork();
  });
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      if (alive.size === 0) process.exit();
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
    });
  }
  for (let i = 0; i < count; i++) fork();
  log("info", "started server processes", { count, port: env().PORT });
  // /metrics for the whole cluster: the workers' registries summed (docs/operations.md, "Observability").
  if (env().METRICS_PORT || env().METRICS_TOKEN)
    listenForMetrics(clusterMetricsText).catch((error: unknown) => {
      log("error", "the metrics listener could not start", { error });
    });
}

// Next reads NODE_ENV when it loads: the production start is production unless told otherwise.
(process.env as Record<string, string | undefined>).NODE_ENV ??= "production";
applyMailDefaults(process.env);
const concurrency = env().WEB_CONCURRENCY;
if (cluster.isPrimary) announceMail(env());
if (cluster.isPrimary && concurrency > 1) runPrimary(concurrency);
else
  runServer().catch((error: unknown) => {
    log("error", "the server could not start", { error });
    process.exit(1);
  });
