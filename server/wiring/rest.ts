import { accountRoutes } from "@/server/accounts/rest";
import { eventRoutes } from "@/server/events/rest";
import { fileRoutes } from "@/server/files/rest";
import type { AnyRoute } from "@/server/http/route";
import { createV1Api } from "@/server/http/router";
import { listenRoutes } from "@/server/listen/rest";
import { orderRoutes } from "@/server/orders/rest";
import { productRoutes } from "@/server/products/rest";
import { storefrontRoutes } from "@/server/storefronts/rest";
import { eventSchemaComponents, webhooksOpenApi } from "@/server/webhooks/event-schemas";
import { webhookRoutes } from "@/server/webhooks/rest";
import { OPERATIONS } from "./operations";

/** Every /v1 operation, gathered from the feature folders. */
export const API_ROUTES: AnyRoute[] = [
  ...accountRoutes,
  ...storefrontRoutes,
  ...productRoutes,
  ...webhookRoutes,
  ...eventRoutes,
  ...listenRoutes,
  ...fileRoutes,
  ...orderRoutes,
];

/** Next actions name operations; over REST they point at the operation's method and /v1 path. */
const ACTIONS = new Map(API_ROUTES.map((r) => [r.operationId, { method: r.method, url: r.path }]));

export function restActionFor(operation: string): { method: string; url: string } | null {
  return ACTIONS.get(operation) ?? null;
}

const V1 = createV1Api(API_ROUTES, OPERATIONS, restActionFor, {
  webhooks: webhooksOpenApi,
  schemas: eventSchemaComponents,
});

/** The whole /v1 API as `(Request) => Promise<Response>` (app/v1, the production start, the tests). */
export const handleV1Request = V1.handle;
/** The route pattern of a /v1 path, for metrics and traces. */
export const v1RoutePattern = V1.routePattern;
/** The document `/v1/openapi.json` serves; the API reference page (/docs/api) renders it. */
export const getOpenApiDocument = V1.openApiDocument;
