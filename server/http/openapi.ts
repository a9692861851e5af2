import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from "zod-openapi";
import { ErrorEnvelope } from "@/server/errors";
import { isOperationName, OPERATIONS } from "@/server/operations";
import type { AnyRoute } from "./route";

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Invalid request (`invalid_request`, `invalid_json`, ...)",
  401: "Missing or invalid API key",
  402: "A plan limit blocks the action (`upgrade` says how to lift it)",
  403: "Scope or account state does not allow the action",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict",
  410: "Gone",
  413: "Body over 1 MiB",
  429: "Rate limited (`Retry-After`)",
  500: "Internal error",
  503: "Service unavailable",
};

/**
 * The OpenAPI 3.1 document (version 1.0.0), generated from the same zod schemas that validate requests, so
 * the description can never drift from what the API accepts (docs/api.md, "Versioning").
 */
export function buildOpenApiDocument(routes: AnyRoute[]): unknown {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const responses: ZodOpenApiOperationObject["responses"] = {};
    for (const [status, response] of Object.entries(route.responses)) {
      responses[status as `${1 | 2 | 3 | 4 | 5}${string}`] = {
        description: response.description,
        content: { "application/json": { schema: response.schema } },
      };
    }
    for (const status of route.errors) {
      responses[`${status}` as `${1 | 2 | 3 | 4 | 5}${string}`] = {
        description: ERROR_DESCRIPTIONS[status] ?? "Error",
        content: { "application/json": { schema: ErrorEnvelope } },
      };
    }
    // The scopes come from the one operations table (any one suffices); OpenAPI 3.1 lets a non-OAuth security
    // requirement list the roles it needs.
    const scopes = isOperationName(route.operationId) ? [...OPERATIONS[route.operationId].scopes] : [];
    const operation: ZodOpenApiOperationObject = {
      operationId: route.operationId,
      summary: route.summary,
      description:
        route.auth === "key"
          ? scopes.length > 0
            ? `Required scope (any of): ${scopes.map((s) => `\`${s}\``).join(", ")}.`
            : "Any valid key."
          : "No key needed; not rate limited.",
      tags: route.tags,
      security: route.auth === "key" ? [{ bearerAuth: scopes }, { apiKeyHeader: scopes }] : [],
      responses,
    };
    const requestParams: NonNullable<ZodOpenApiOperationObject["requestParams"]> = {};
    if (route.params) requestParams.path = route.params as z.ZodObject;
    if (route.query) requestParams.query = route.query as z.ZodObject;
    if (route.method !== "GET" && route.auth === "key" && (route.idempotent ?? true)) {
      requestParams.header = z.object({
        "Idempotency-Key": z.string().max(255).optional().meta({
          description: "Retries of a mutation reuse the same key; the first result is replayed for 24 h.",
        }),
      });
    }
    if (Object.keys(requestParams).length > 0) operation.requestParams = requestParams;
    if (route.body) {
      operation.requestBody = { required: true, content: { "application/json": { schema: route.body } } };
    }
    const pathItem = paths[route.path] ?? {};
    paths[route.path] = pathItem;
    const method = route.method.toLowerCase() as "get" | "post" | "patch" | "delete" | "put";
    pathItem[method] = operation;
  }
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Marea API",
      version: "1.0.0",
      description: "Storefront catalog and webhook service. Errors use one envelope; see docs/api.md.",
    },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "`mk_dev_*` or `mk_user_*` key" },
        apiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" },
      },
    },
    paths,
  });
}
