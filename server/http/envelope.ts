import type { AppError, ErrorObject, Language, RejectedProduct } from "@/server/errors";
import { envelopeResponse } from "@/server/kit/envelope";
import { renderRejected } from "@/server/kit/rejected";
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
  return envelopeResponse(error, { requestId, language, headers, resolveAction: restActionFor });
}

/** Rejected items of a partial result (207) with each error as the envelope's error object. */
export function rejectedToRest(
  ctx: { requestId: string; language: Language },
  rejected: RejectedProduct[] | undefined,
): Array<{ index: number; error: ErrorObject }> | undefined {
  return renderRejected(rejected, {
    requestId: ctx.requestId,
    language: ctx.language,
    resolveAction: restActionFor,
  });
}
