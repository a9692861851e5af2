import { isDatabaseUnavailable } from "@/server/db/client";
import { AppError, isAppError } from "@/server/errors";
import { log } from "@/server/lib/log";

/**
 * Anything a door caught, as the catalogue error it answers (docs/api.md, "Errors"), for every door: an AppError
 * passes through; a lost database is 503 `service_unavailable` (retry in 5 s, also as `Retry-After`); anything
 * else is logged with the request id (and `where`: the tool, the procedure, the path) and answered as a 500
 * `internal_error` that reveals nothing.
 */
export function toAppError(error: unknown, where: { requestId: string; [field: string]: unknown }): AppError {
  if (isAppError(error)) return error;
  if (isDatabaseUnavailable(error)) {
    log("error", "database unavailable", { ...where, error });
    return new AppError("service_unavailable", { retryAfterMs: 5000, headers: { "retry-after": "5" } });
  }
  log("error", "unhandled error", { ...where, error });
  return new AppError("internal_error");
}
