import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import type { Span } from "@opentelemetry/api";
import { env } from "@/server/env";
import { AppError } from "@/server/errors";
import { envelopeResponse } from "@/server/kit/envelope";
import { accessLog } from "@/server/lib/log";
import { METRICS_CONTENT_TYPE, type Metrics, metrics, metricsText } from "@/server/observability/metrics";
import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  tracer,
  tracingEnabled,
} from "@/server/observability/tracing";
import type { DirectRoute } from "./fast-doors";
import { sendResponse } from "./node-server";

/**
 * What the production start (server/host/main.ts) does around every request (docs/operations.md,
 * "Observability"): it names the request's door and route pattern, counts and times it, traces it, and writes one
 * access-log line when the answer is done.
 */

/** The door a request came through: the direct handlers', or Next's paths by family. */
export type Door = DirectRoute | "pages" | "static" | "oauth" | "inngest" | "admin" | "metrics";

export function doorOf(direct: DirectRoute | null, pathname: string): Door {
  if (direct) return direct;
  if (pathname.startsWith("/_next/")) return "static";
  if (pathname.startsWith("/oauth/") || pathname.startsWith("/.well-known/oauth-")) return "oauth";
  if (pathname === "/api/inngest" || pathname.startsWith("/api/inngest?")) return "inngest";
  if (pathname.startsWith("/api/admin/")) return "admin";
  return "pages";
}

type RoutePattern = { pattern: RegExp; route: string; params: number };

/**
 * The App Router's route patterns from the build (`.next/app-path-routes-manifest.json`: `/s/[slug]`, ...), so a
 * Next request's route label is its pattern and never a slug or an id: the label set is bounded by the app's
 * routes. A path no route matches (a 404) is `unmatched`.
 */
export function nextRoutePatterns(distDir: string): (pathname: string) => string {
  const file = path.join(distDir, "app-path-routes-manifest.json");
  const routes = existsSync(file)
    ? Object.values(JSON.parse(readFileSync(file, "utf8")) as Record<string, string>)
    : [];
  const compiled: RoutePattern[] = [...new Set(routes)].map((route) => {
    let params = 0;
    const source = route
      .split("/")
      .filter(Boolean)
      .map((segment) => {
        if (/^\[\[\.\.\.\w+\]\]$/.test(segment)) {
          params += 100;
          return "(?:/.*)?";
        }
        if (/^\[\.\.\.\w+\]$/.test(segment)) {
          params += 100;
          return "/.+";
        }
        if (/^\[\w+\]$/.test(segment)) {
          params += 1;
          return "/[^/]+";
        }
        return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`;
      })
      .join("");
    return { pattern: new RegExp(`^${source || "/"}$`), route, params };
  });
  // Literal routes before parameters, parameters before catch-alls (`/docs/api` before `/docs/[guide]`).
  compiled.sort((a, b) => a.params - b.params);
  return (pathname) => {
    if (pathname.startsWith("/_next/static/")) return "/_next/static";
    if (pathname.startsWith("/_next/")) return "/_next";
    for (const { pattern, route } of compiled) if (pattern.test(pathname)) return route;
    return "unmatched";
  };
}

/** The route label of a request: the /v1 router's pattern, the fixed path of a direct door, or Next's pattern. */
export function routeOf(
  door: Door,
  pathname: string,
  patterns: { v1: (pathname: string) => string; next: (pathname: string) => string },
): string {
  switch (door) {
    case "v1":
      return patterns.v1(pathname);
    case "health":
      return "/healthz";
    case "graphql":
      return "/api/graphql";
    case "mcp":
      return "/mcp";
    case "trpc":
      // Procedure names come from the client: the door's one pattern keeps the label set bounded.
      return "/api/trpc/[procedure]";
    default:
      return patterns.next(pathname);
  }
}

/** The path without its query string (tokens travel there: `?t=` of an order's status page). */
export function pathnameOf(target: string): string {
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

/**
 * Watches one request: at its end, counts it (metrics on), ends its span (tracing on) and writes its access-log
 * line (LOG_LEVEL info or debug). The answer gets an `X-Request-Id` now, which a door's own id replaces (theirs is
 * the one their logs and error envelopes carry), and the log line reads it back from the answer.
 * Returns the span to run the handler in, or null.
 */
export function observeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  door: Door,
  route: string,
  pathname: string,
): Span | null {
  const started = performance.now();
  res.setHeader("x-request-id", `req_${randomBytes(12).toString("hex")}`);
  const m: Metrics | null = metrics();
  const method = req.method ?? "GET";
  const span = tracingEnabled()
    ? tracer().startSpan(`${method} ${route}`, {
        kind: SpanKind.SERVER,
        attributes: {
          "http.request.method": method,
          "http.route": route,
          "url.path": pathname,
          "marea.door": door,
        },
      })
    : null;
  res.once("close", () => {
    const seconds = (performance.now() - started) / 1000;
    const status = res.headersSent ? String(res.statusCode) : "aborted";
    const requestId = String(res.getHeader("x-request-id") ?? "");
    if (m) {
      const labels = { door, route, method, status };
      m.httpRequests.inc(labels);
      m.httpDuration.observe(labels, seconds);
    }
    if (span) {
      span.setAttribute("http.response.status_code", res.statusCode);
      span.setAttribute("marea.request_id", requestId);
      if (res.statusCode >= 500 || status === "aborted")
        span.setStatus({ code: SpanStatusCode.ERROR, message: status });
      span.end();
    }
    accessLog({
      request_id: requestId,
      method,
      path: pathname,
      door,
      route,
      status: res.headersSent ? res.statusCode : null,
      duration_ms: Math.round(seconds * 10_000) / 10,
      peer: req.socket.remoteAddress,
      aborted: status === "aborted" || undefined,
    });
  });
  return span;
}

/** Runs `handle` with `span` as the active span, so the services' statement spans become its children. */
export function runInSpan(span: Span | null, handle: () => void): void {
  if (!span) {
    handle();
    return;
  }
  context.with(trace.setSpan(context.active(), span), handle);
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/**
 * `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time (over SHA-256 digests, so the length of the
 * token leaks nothing either). With no token configured, every request passes (the METRICS_PORT listener).
 */
export function metricsAuthorized(authorization: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (!match?.[1]) return false;
  return timingSafeEqual(digest(match[1]), digest(token));
}

/**
 * Answers a scrape: 401 in the error envelope without the token (`missing_authorization`, `invalid_api_key`),
 * 405 for another method, else the registry's text (`metricsSource` in a cluster: the primary's sum).
 */
export async function serveMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  metricsSource: () => Promise<string> = metricsText,
): Promise<void> {
  const config = env();
  const requestId = String(res.getHeader("x-request-id") ?? `req_${randomBytes(12).toString("hex")}`);
  const fail = (error: AppError, headers: Record<string, string> = {}) =>
    sendResponse(res, envelopeResponse(error, { requestId, language: "en", headers }));
  if (!metricsAuthorized(req.headers.authorization, config.METRICS_TOKEN)) {
    await fail(new AppError(req.headers.authorization ? "invalid_api_key" : "missing_authorization"), {
      "www-authenticate": 'Bearer realm="metrics"',
      "cache-control": "no-store",
    });
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    await fail(new AppError("method_not_allowed"), { allow: "GET, HEAD" });
    return;
  }
  const text = await metricsSource();
  res.statusCode = 200;
  res.setHeader("content-type", METRICS_CONTENT_TYPE);
  res.setHeader("cache-control", "no-store");
  res.end(req.method === "HEAD" ? undefined : text);
}
