import { type ActionResolver, type AppError, errorBody, type Language } from "@/server/errors";

/**
 * The catalogue's error envelope as a JSON answer (docs/api.md, "Errors"), with `X-Request-Id` and the headers the
 * error carries (`Retry-After`). `resolveAction` places next actions (the /v1 door passes its routes).
 */
export function envelopeResponse(
  error: AppError,
  answer: {
    requestId: string;
    language: Language;
    headers?: Record<string, string>;
    resolveAction?: ActionResolver;
  },
): Response {
  return new Response(
    JSON.stringify(errorBody(error, answer.requestId, answer.language, answer.resolveAction)),
    {
      status: error.status,
      headers: {
        "content-type": "application/json; charset=utf-8",
        ...retryAfterOf(error),
        ...answer.headers,
        ...error.options.headers,
        "x-request-id": answer.requestId,
      },
    },
  );
}

/** A 429 a service threw with `retryAfterMs` (a per-account limit) says when to retry in `Retry-After` too. */
export function retryAfterOf(error: AppError): Record<string, string> {
  const ms = error.options.retryAfterMs;
  return error.status === 429 && ms ? { "retry-after": String(Math.max(1, Math.ceil(ms / 1000))) } : {};
}
