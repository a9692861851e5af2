import { createHmac } from "node:crypto";
import { createServiceContext } from "@/server/context";
import { dbReady } from "@/server/db/client";
import { AppError, isAppError } from "@/server/errors";
import { isSameOrigin } from "@/server/gate/origin";
import { BODY_LIMITS } from "@/server/kit/body";
import { formFields, readFormBody, refusedForm, seeOther } from "@/server/kit/form";
import { requestLanguage } from "@/server/kit/language";
import { safeEqual } from "@/server/lib/crypto";
import { newId } from "@/server/lib/ids";
import { actorFromSessionCookie } from "@/server/sessions/actor";
import { sameSitePath } from "@/server/sessions/next-path";
import { decideConsent } from "./authorization";
import { disconnectApp } from "./grants";

/**
 * The dashboard's OAuth forms (docs/mcp.md, "Consent" and "Connected apps"): plain HTML form posts with the
 * session cookie. Each refuses a cross-site request (`isSameOrigin`); the consent form also carries a token bound
 * to the session and the authorization request, so a forged post cannot approve an app even from the same site.
 * The form is read after the same-origin check, through the door kit's capped reader (16 KiB; docs/security.md,
 * "Request bodies and door limits").
 */

export const CONSENT_PAGE = "/dashboard/oauth/consent";

/** The consent form's anti-forgery token: HMAC-SHA256 of the request id, keyed by the session id (never sent). */
export function consentFormToken(sessionId: string, requestId: string): string {
  return createHmac("sha256", sessionId).update(`oauth-consent:${requestId}`).digest("hex");
}

/** A refusal before any work (another site, a forged token, a body over the cap), as plain text. */
function refused(request: Request, error: AppError = new AppError("cross_site_request")): Response {
  return refusedForm(request, error);
}

/** The form's fields (each cut to 4,000 characters), or the refusal of its body. */
async function readForm(request: Request): Promise<Record<string, string> | Response> {
  try {
    const fields = formFields(await readFormBody(request, BODY_LIMITS.form));
    for (const key of Object.keys(fields)) fields[key] = (fields[key] ?? "").slice(0, 4000);
    return fields;
  } catch (error) {
    if (isAppError(error)) return refused(request, error);
    throw error;
  }
}

function signInFirst(next: string): Response {
  return seeOther(`/signin?${new URLSearchParams({ next })}`);
}

/**
 * POST /oauth/consent: `decision` approve or deny for the authorization request `request`. Answers 303 to the
 * client's redirect URI (with `code` or `error`, `state` and `iss`), or back to the consent page with
 * `?error=<catalogue code>`.
 */
export async function handleConsentDecision(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) return refused(request);
  const form = await readForm(request);
  if (form instanceof Response) return form;
  const requestId = form.request ?? "";
  const consentPage = `${CONSENT_PAGE}?${new URLSearchParams({ request: requestId })}`;
  const db = await dbReady();
  const now = new Date();
  const actor = await actorFromSessionCookie(db, request, now);
  if (actor?.via.type !== "session") return signInFirst(consentPage);
  if (!safeEqual(form.csrf ?? "", consentFormToken(actor.via.sessionId, requestId))) return refused(request);
  const ctx = createServiceContext({
    db,
    actor,
    requestId: newId("req"),
    language: requestLanguage(request),
  });
  try {
    const { redirectTo } = await decideConsent(ctx, { requestId, approve: form.decision === "approve" });
    ctx.runAfterCommit();
    return seeOther(redirectTo);
  } catch (error) {
    if (isAppError(error)) return seeOther(`${consentPage}&${new URLSearchParams({ error: error.code })}`);
    throw error;
  }
}

/**
 * POST /oauth/disconnect: `clientId` of the app to disconnect, `next` the dashboard page to go back to (default the
 * account page), which then shows `?disconnected=<clientId>` or `?error=<catalogue code>`.
 */
export async function handleDisconnect(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) return refused(request);
  const form = await readForm(request);
  if (form instanceof Response) return form;
  const next = sameSitePath(form.next) ?? "/dashboard/account";
  const back = (query: Record<string, string>) =>
    seeOther(`${next}${next.includes("?") ? "&" : "?"}${new URLSearchParams(query)}`);
  const db = await dbReady();
  const actor = await actorFromSessionCookie(db, request, new Date());
  if (!actor) return signInFirst(next);
  const ctx = createServiceContext({
    db,
    actor,
    requestId: newId("req"),
    language: requestLanguage(request),
  });
  try {
    await disconnectApp(ctx, { clientId: form.clientId ?? "" });
    ctx.runAfterCommit();
    return back({ disconnected: form.clientId ?? "" });
  } catch (error) {
    if (isAppError(error)) return back({ error: error.code });
    throw error;
  }
}
