import type { ServiceContext } from "@/server/context";
import { type AppError, type ErrorObject, errorBody } from "@/server/errors";

/**
 * The catalogue's error object for an MCP answer (docs/mcp.md, "Errors"): the same fields as the REST envelope's
 * `error` (code, localized message, param, type, requestId...). Next actions name operations, not URLs.
 */
export function mcpErrorObject(
  error: AppError,
  ctx: Pick<ServiceContext, "requestId" | "language">,
): ErrorObject {
  return errorBody(error, ctx.requestId, ctx.language).error;
}
