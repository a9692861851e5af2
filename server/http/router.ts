import { z } from "zod";
import { AppError } from "@/server/errors";
import { isOperationIn, type OperationDefinition, type OperationTable } from "@/server/operations";
import { errorResponse, installRestActions } from "./envelope";
import { buildOpenApiDocument, type OpenApiWebhooks } from "./openapi";
import { newRequestState, renderFailure, runPipeline } from "./pipeline";
import { type AnyRoute, defineRoute } from "./route";

/** The /v1 API over a list of routes and the operations they name (server/wiring/rest.ts gives the app's). */
export type V1Api = {
  /**
   * Entry point of the whole /v1 API: a plain `(Request) => Promise<Response>` that imports nothing from Next,
   * so the same API can be served by any fetch-style HTTP server. Unknown paths answer 404 `route_not_found`,
   * known paths with another method 405 `method_not_allowed` (with `Allow`), both before authentication.
   */
  handle: (request: Request, options?: { now?: () => Date }) => Promise<Response>;
  /**
   * The route pattern a /v1 request path matches (`/v1/storefronts/{id}`), for metrics and traces: a bounded set
   * of labels, never a raw id (docs/operations.md, "Observability"); `unmatched` for a path no route has.
   */
  routePattern: (pathname: string) => string;
  /** The document `/v1/openapi.json` serves, built once; the API reference page (/docs/api) renders it. */
  openApiDocument: () => unknown;
};

/**
 * Builds the /v1 API; `events` are the webhooks its OpenAPI document describes. Next actions in error bodies point
 * at these routes (`restActionFor`, installed for the REST renderers of envelope.ts: one /v1 API per process).
 */
export function createV1Api(
  routes: readonly AnyRoute[],
  operations: OperationTable,
  restActionFor: (operation: string) => { method: string; url: string } | null,
  events: OpenApiWebhooks,
): V1Api {
  installRestActions(restActionFor);
  let openApiDocument: unknown;
  const getOpenApiDocument = (): unknown => {
    openApiDocument ??= buildOpenApiDocument(allRoutes, operations, events);
    return openApiDocument;
  };
  const openApiRoute = defineRoute({
    operationId: "getOpenApiDocument",
    method: "GET",
    path: "/v1/openapi.json",
    summary: "This API's OpenAPI 3.1 description (version 1.0.0). No key needed; not rate limited.",
    tags: ["meta"],
    auth: "none",
    responses: { 200: { description: "The OpenAPI document", schema: z.object({}).passthrough() } },
    handler: async () => ({ status: 200, body: getOpenApiDocument() }),
  });
  const allRoutes: AnyRoute[] = [...routes, openApiRoute];

  // A keyed route without an operation would skip `authorize`, and a path parameter without a schema would reach
  // the database unchecked: refuse to start rather than serve either.
  const definitions = new Map<AnyRoute, OperationDefinition>();
  for (const route of allRoutes) {
    if (isOperationIn(operations, route.operationId)) {
      definitions.set(route, operations[route.operationId] as OperationDefinition);
    } else if (route.auth === "key") {
      throw new Error(`/v1 route ${route.operationId} names no operation in server/wiring/operations.ts`);
    }
    if (route.path.includes("{") && !route.params) {
      throw new Error(`/v1 route ${route.operationId} has path parameters but no params schema`);
    }
  }
  const compiled = compile(allRoutes);
  return {
    handle: (request, options) => handleV1Request(compiled, definitions, request, options),
    routePattern: (pathname) => v1RoutePattern(compiled, pathname),
    openApiDocument: getOpenApiDocument,
  };
}

type CompiledPath = { pattern: RegExp; names: string[]; routes: AnyRoute[] };

function compile(routes: readonly AnyRoute[]): CompiledPath[] {
  const byPath = new Map<string, CompiledPath>();
  for (const route of routes) {
    let compiled = byPath.get(route.path);
    if (!compiled) {
      const names: string[] = [];
      const source = route.path
        .split("/")
        .map((segment) => {
          const param = /^\{(\w+)\}$/.exec(segment);
          if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
          names.push(param[1]);
          return "([^/]+)";
        })
        .join("/");
      // No optional trailing slash: an empty segment names no operation (docs/api.md, "Hostile and malformed
      // input"), and /v1 never redirects.
      compiled = { pattern: new RegExp(`^${source}$`), names, routes: [] };
      byPath.set(route.path, compiled);
    }
    compiled.routes.push(route);
  }
  // Literal segments win over parameters (`/v1/storefronts/batch` before `/v1/storefronts/{id}`).
  return [...byPath.values()].sort((a, b) => a.names.length - b.names.length);
}

/**
 * A path parameter as the client meant it, or undefined when its percent-encoding is malformed or is not UTF-8
 * (`%ZZ`, `%C0%AE`): such an id names nothing, and the route's params schema answers the resource's 404.
 */
function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function v1RoutePattern(paths: CompiledPath[], pathname: string): string {
  for (const compiled of paths) {
    if (compiled.pattern.test(pathname)) return compiled.routes[0]?.path ?? "unmatched";
  }
  return "unmatched";
}

async function handleV1Request(
  paths: CompiledPath[],
  definitions: Map<AnyRoute, OperationDefinition>,
  request: Request,
  options: { now?: () => Date } = {},
): Promise<Response> {
  const state = newRequestState(request, options.now);
  try {
    const pathname = state.url.pathname;
    const method = request.method === "HEAD" ? "GET" : request.method;
    for (const compiled of paths) {
      const match = compiled.pattern.exec(pathname);
      if (!match) continue;
      const route = compiled.routes.find((r) => r.method === method);
      if (!route) {
        const allow = compiled.routes.map((r) => r.method).join(", ");
        return errorResponse(new AppError("method_not_allowed"), state.requestId, state.language, { allow });
      }
      const params: Record<string, string | undefined> = {};
      compiled.names.forEach((name, index) => {
        params[name] = decodePathSegment(match[index + 1] ?? "");
      });
      return await runPipeline(route, request, params, state, definitions.get(route));
    }
    return errorResponse(new AppError("route_not_found"), state.requestId, state.language);
  } catch (error) {
    return renderFailure(error, state);
  }
}
