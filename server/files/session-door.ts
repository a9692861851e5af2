import { AppError } from "@/server/errors";
import { BODY_LIMITS, readBoundedBytes } from "@/server/kit/body";
import { envelopeResponse } from "@/server/kit/envelope";
import { toAppError } from "@/server/kit/errors";
import { createTrpcContextFromRequest } from "@/server/trpc/context";
import { imageOf, MULTIPART_OVERHEAD } from "./rest";
import { createFile } from "./service";

/**
 * The dashboard's upload door, `POST /api/files` (docs/ui.md, "Photos"; docs/security.md, "Request bodies and door
 * limits"): the session cookie instead of a key, checked as the tRPC door checks it (401 without a live session,
 * 429 over the account's session limit, 403 `cross_site_request` from another origin), all before a byte of the
 * body is read. The body is what POST /v1/files takes (the raw image or a multipart part `file`, 10 MiB), and the
 * answer is its answer: 201 `{file}` or the catalogue's envelope. Every rule lives in `createFile`.
 */
export async function handleSessionUpload(request: Request): Promise<Response> {
  const { service, sameOrigin, refusal } = await createTrpcContextFromRequest(request);
  const answer = { requestId: service.requestId, language: service.language };
  try {
    if (!service.actor) throw new AppError("missing_authorization");
    if (refusal) throw refusal;
    if (!sameOrigin)
      throw new AppError("cross_site_request", {
        detail:
          "A dashboard session authorizes changes only from the dashboard's own origin (the Origin header).",
      });
    const raw = await readBoundedBytes(request, BODY_LIMITS.file + MULTIPART_OVERHEAD);
    const file = await createFile(service, await imageOf(raw, request.headers));
    service.runAfterCommit();
    return Response.json({ file }, { status: 201, headers: { "x-request-id": service.requestId } });
  } catch (error) {
    return envelopeResponse(toAppError(error, { requestId: service.requestId, door: "files" }), answer);
  }
}
