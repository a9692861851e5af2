import type { ServiceContext } from "@/server/context";
import { AppError, type ErrorObject, errorBody } from "@/server/errors";
import type { RejectedProduct } from "@/server/products/schema";

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

/** Products a plan kept out (partial success), each with the catalogue's error object, as REST shows them. */
export function rejectedToMcp(
  ctx: Pick<ServiceContext, "requestId" | "language">,
  rejected: RejectedProduct[] | undefined,
): Array<{ index: number; error: ErrorObject }> | undefined {
  return rejected?.map(({ index, code, ...options }) => ({
    index,
    error: mcpErrorObject(new AppError(code, options), ctx),
  }));
}
