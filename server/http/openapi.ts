import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from "zod-openapi";
import { ERROR_CATALOGUE, type ErrorCode, ErrorEnvelope } from "@/server/errors";
import { isOperationIn, type OperationDefinition, type OperationTable } from "@/server/operations";
import { notFoundCodeOf } from "@/server/validation";
import { type AnyRoute, isIdempotentRoute } from "./route";

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Invalid request",
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
 * Every error code an operation can answer, derived from its route, so the document cannot drift from what the
 * pipeline does: every operation refuses unknown query parameters (400) and may fail (500, 503); a key
 * (401, 403, 429, and the terms gate on writes); a body (400, 413); path ids (each one's 404); Idempotency-Key
 * (400, 409); then the operation's own codes.
 */
export function errorCodesOf(route: AnyRoute, operations: OperationTable): ErrorCode[] {
  const codes = new Set<ErrorCode>(["invalid_request", "internal_error", "service_unavailable"]);
  if (route.auth === "key") {
    for (const code of AUTH_CODES) codes.add(code);
    const operation: OperationDefinition | undefined = isOperationIn(operations, route.operationId)
      ? operations[route.operationId]
      : undefined;
    if (operation?.access === "write" && operation.termsGate !== false) codes.add("tos_not_accepted");
    if (isIdempotentRoute(route)) for (const code of IDEMPOTENCY_CODES) codes.add(code);
  }
  if (route.body) for (const code of BODY_CODES) codes.add(code);
  if (route.rawBody) codes.add("payload_too_large");
  if (route.params instanceof z.ZodObject) {
    for (const name of Object.keys(route.params.shape)) {
      const notFound = notFoundCodeOf(route.params, name);
      if (notFound) codes.add(notFound);
    }
  }
  for (const code of route.errors ?? []) codes.add(code);
  return [...codes];
}

const AUTH_CODES: ErrorCode[] = [
  "missing_authorization",
  "invalid_api_key",
  "api_key_revoked",
  "account_cancelled",
  "insufficient_scope",
  "rate_limit_exceeded",
];
const BODY_CODES: ErrorCode[] = ["invalid_json", "invalid_request", "payload_too_large"];
const IDEMPOTENCY_CODES: ErrorCode[] = [
  "invalid_request",
  "idempotency_key_reused",
  "idempotency_request_in_progress",
];

/** The codes of `errorCodesOf` grouped by their catalogue status. */
export function errorStatusesOf(route: AnyRoute, operations: OperationTable): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route, operations)) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
}

/**
 * The OpenAPI 3.1 document (version 1.0.0), generated from the same zod schemas that validate requests, so
 * the description can never drift from what the API accepts (docs/api.md, "Versioning").
 */
/** What the document holds beside the routes: the events Marea POSTs to receivers, and their named schemas. */
export type OpenApiWebhooks = {
  webhooks: () => ZodOpenApiPathsObject;
  schemas: () => Record<string, z.ZodType>;
};

export function buildOpenApiDocument(
  routes: readonly AnyRoute[],
  operations: OperationTable,
  events: OpenApiWebhooks,
): unknown {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const responses: ZodOpenApiOperationObject["responses"] = {};
    for (const [status, response] of Object.entries(route.responses)) {
      responses[status as `${1 | 2 | 3 | 4 | 5}${string}`] = {
        description: response.description,
        content: { [response.contentType ?? "application/json"]: { schema: response.schema } },
      };
    }
    for (const [status, codes] of errorStatusesOf(route, operations)) {
      responses[`${status}` as `${1 | 2 | 3 | 4 | 5}${string}`] = {
        description: `${ERROR_DESCRIPTIONS[status] ?? "Error"}. Codes: ${codes.map((c) => `\`${c}\``).join(", ")}.`,
        content: { "application/json": { schema: ErrorEnvelope } },
        "x-error-codes": codes,
      };
    }
    // The scopes come from the one operations table (any one suffices); OpenAPI 3.1 lets a non-OAuth security
    // requirement list the roles it needs.
    const scopes = isOperationIn(operations, route.operationId)
      ? [...(operations[route.operationId]?.scopes ?? [])]
      : [];
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
    if (route.auth === "key" && isIdempotentRoute(route)) {
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
    if (route.rawBody) {
      // The bytes of an upload, bounded by their size (every input has a maximum: server/maxima.test.ts).
      const binary = z.string().max(route.rawBody.maxBytes).meta({ format: "binary" });
      const content: Record<string, { schema: z.ZodType }> = {};
      for (const type of route.rawBody.contentTypes)
        content[type] =
          type === "multipart/form-data" ? { schema: z.object({ file: binary }) } : { schema: binary };
      operation.requestBody = { required: true, content };
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
      schemas: events.schemas(),
    },
    paths,
    // The events Marea POSTs to receivers (docs/webhooks.md, "Events"), after everything else in the document.
    webhooks: events.webhooks(),
  });
}
