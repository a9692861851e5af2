import { z } from "zod";
import { env } from "@/server/env";
import { AppError, ERROR_CATALOGUE, type Language, messageFor } from "@/server/errors";

/** The spec's error envelope (spec, Errors): every non-2xx answers with exactly this shape. */
export const ErrorEnvelope = z
  .object({
    error: z.object({
      type: z.enum([
        "rate_limited",
        "invalid_request",
        "auth",
        "not_found",
        "plan_limit",
        "internal",
        "conflict",
        "idempotency_conflict",
        "service_unavailable",
        "tos_not_accepted",
      ]),
      code: z.string(),
      message: z.string(),
      doc: z.string(),
      param: z.string().nullable(),
      requestId: z.string().regex(/^req_/),
      recoverable: z.boolean(),
      retryAfterMs: z.number().int().nullable(),
      nextActions: z.array(
        z.object({ label: z.string(), method: z.string().nullable(), url: z.string().nullable() }),
      ),
      upgrade: z
        .object({
          currentPlan: z.string(),
          requiredPlan: z.string(),
          upgradeUrl: z.string(),
          previewUrl: z.string().optional(),
        })
        .nullable(),
      requiredScopes: z.array(z.string()).optional(),
      heldScopes: z.array(z.string()).optional(),
    }),
  })
  .meta({ id: "ErrorEnvelope", description: "Every non-2xx response uses this envelope." });

export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

export function errorBody(error: AppError, requestId: string, language: Language): ErrorEnvelope {
  const entry = ERROR_CATALOGUE[error.code];
  const o = error.options;
  const body: ErrorEnvelope["error"] = {
    type: entry.type,
    code: error.code,
    message: messageFor(error, language),
    doc: `${env().DOCS_URL}/errors#${error.code}`,
    param: o.param ?? null,
    requestId,
    recoverable: entry.recoverable,
    retryAfterMs: o.retryAfterMs ?? null,
    nextActions: o.nextActions ?? [],
    upgrade: o.upgrade ?? null,
  };
  if (o.requiredScopes) body.requiredScopes = o.requiredScopes;
  if (o.heldScopes) body.heldScopes = o.heldScopes;
  return { error: body };
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
  return jsonResponse(error.status, errorBody(error, requestId, language), {
    ...headers,
    ...error.options.headers,
    "x-request-id": requestId,
  });
}

export function internalError(): AppError {
  return new AppError("internal_error");
}
