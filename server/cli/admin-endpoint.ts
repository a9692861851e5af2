import { z } from "zod";
import { dbReady } from "@/server/db/client";
import { type AppError, ERROR_CATALOGUE, isAppError, messageFor } from "@/server/errors";
import { log } from "@/server/lib/log";
import { isLocalRequest, peerAddress } from "@/server/sessions/client-ip";
import { isValidAdminToken } from "./admin-channel";
import { runCommand } from "./commands";

const AdminRequest = z.object({ argv: z.array(z.string()).max(20) });

/**
 * POST /api/admin/cli: runs a CLI command inside the server that holds the embedded database. Needs the token of
 * `DATA_DIR/admin.json` and, where the server knows the socket's peer (the production start), a request from
 * this machine (docs/security.md, "Development pages").
 */
export async function runAdminCommand(request: Request): Promise<Response> {
  const isFromElsewhere = peerAddress(request.headers) !== null && !isLocalRequest(request.headers);
  if (isFromElsewhere || !isValidAdminToken(request.headers.get("x-admin-token"))) {
    return Response.json(
      { error: { code: "invalid_api_key", message: "Invalid admin token" } },
      { status: 401 },
    );
  }
  const parsed = AdminRequest.safeParse(await request.json().catch(() => null));
  if (!parsed.success)
    return Response.json(
      { error: { code: "invalid_request", message: "Body must be {argv: string[]}" } },
      { status: 400 },
    );
  try {
    return Response.json(await runCommand(await dbReady(), parsed.data.argv));
  } catch (error) {
    if (isAppError(error))
      return Response.json(cliError(error), { status: ERROR_CATALOGUE[error.code].status });
    log("error", "admin command failed", { error });
    return Response.json(
      { error: { code: "internal_error", message: "Command failed; see the server log" } },
      { status: 500 },
    );
  }
}

export function cliError(error: AppError): {
  error: { code: string; message: string; param: string | null };
} {
  return {
    error: { code: error.code, message: messageFor(error, "en"), param: error.options.param ?? null },
  };
}
