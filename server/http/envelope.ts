import type { ActionResolver, AppError, ErrorObject, Language, RejectedProduct } from "@/server/errors";
import { envelopeResponse } from "@/server/kit/envelope";
import { renderRejected } from "@/server/kit/rejected";

/**
 * Next actions name operations; over REST they point at the operation's method and /v1 path. The /v1 API installs
 * the resolver its routes give (`createV1Api`, from server/wiring/rest.ts `restActionFor`), so this file names no
 * route; before that, no action resolves.
 */
let restActionFor: ActionResolver = () => null;

export function installRestActions(resolver: ActionResolver): void {
  restActionFor = resolver;
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/**
 * Renders an AppError as the envelope with X-Request-Id (and any headers the error carries, e.g. Retry-After).
 * Next actions point at the /v1 routes: `resolveAction` when given (a door outside the /v1 API's module graph,
 * such as GraphQL's route under Next), else the installed one.
 */
export function errorResponse(
  error: AppError,
  requestId: string,
  language: Language,
  headers: Record<string, string> = {},
  resolveAction?: ActionResolver,
): Response {
  return envelopeResponse(error, {
    requestId,
    language,
    headers,
    resolveAction: resolveAction ?? ((operation) => restActionFor(operation)),
  });
}

/** Rejected items of a partial result (207) with each error as the envelope's error object. */
export function rejectedToRest(
  ctx: { requestId: string; language: Language },
  rejected: RejectedProduct[] | undefined,
): Array<{ index: number; error: ErrorObject }> | undefined {
  return renderRejected(rejected, {
    requestId: ctx.requestId,
    language: ctx.language,
    resolveAction: (operation) => restActionFor(operation),
  });
}
