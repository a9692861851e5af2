import { AppError, type ErrorObject, errorBody, type Language } from "@/server/errors";
import type { RejectedProduct } from "@/server/products/schema";
import { API_ROUTES } from "./routes";

/** Next actions name operations; over REST they point at the operation's method and /v1 path. */
let routesByOperation: Map<string, { method: string; url: string }> | undefined;

export function restActionFor(operation: string): { method: string; url: string } | null {
  routesByOperation ??= new Map(API_ROUTES.map((r) => [r.operationId, { method: r.method, url: r.path }]));
  return routesByOperation.get(operation) ?? null;
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** Renders an AppError as the envelope with X-Request-Id (and any headers the error carries, e.g. Retry-After). */
export function errorResponse(
  error: AppError,
  requestId: string,
  language: Language,
  headers: Record<string, string> = {},
): Response {
  return jsonResponse(error.status, errorBody(error, requestId, language, restActionFor), {
    ...retryAfterOf(error),
    ...headers,
    ...error.options.headers,
    "x-request-id": requestId,
  });
}

/** A 429 a service threw with `retryAfterMs` (a per-account limit) says when to retry in `Retry-After` too. */
export function retryAfterOf(error: AppError): Record<string, string> {
  const ms = error.options.retryAfterMs;
  return error.status === 429 && ms ? { "retry-after": String(Math.max(1, Math.ceil(ms / 1000))) } : {};
}

/** Rejected items of a partial result (207) with each error as the envelope's error object. */
export function rejectedToRest(
  ctx: { requestId: string; language: Language },
  rejected: RejectedProduct[] | undefined,
): Array<{ index: number; error: ErrorObject }> | undefined {
  return rejected?.map(({ index, code, ...options }) => ({
    index,
    error: errorBody(new AppError(code, options), ctx.requestId, ctx.language, restActionFor).error,
  }));
}
