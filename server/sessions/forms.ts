import { dbReady } from "@/server/db/client";
import { type AppError, ERROR_CATALOGUE, isAppError, type Language, pickLanguage } from "@/server/errors";
import { clientIp } from "./client-ip";
import {
  clearPendingSignInCookie,
  clearSessionCookie,
  decodePendingSignIn,
  LANGUAGE_COOKIE,
  type PendingSignIn,
  pendingSignInCookie,
  readCookie,
  SESSION_COOKIE,
  SIGN_IN_COOKIE,
  sessionCookie,
} from "./cookies";
import { DEFAULT_AFTER_SIGN_IN, safeNextPath } from "./next-path";
import { isSameOrigin } from "./origin";
import { ChoiceStepForm, CodeStepForm, EmailStepForm, type SignInResult, TermsStepForm } from "./schema";
import {
  acceptTermsForAccount,
  completeBootstrapChoice,
  requestSignInCode,
  resolveSession,
  signOut,
  verifySignInCode,
} from "./service";

/**
 * The HTTP adapter of the sign-in pages: each POST of a plain HTML form (they work without JavaScript) parses
 * its fields, calls one service function and answers 303 See Other to the page that shows the next step, or
 * back to the step with `?error=<catalogue code>&param=<field>` for the field that caused it.
 * Every handler first refuses cross-site requests (`isSameOrigin`).
 */

type Redirect = { location: string; cookies?: string[] };

function seeOther({ location, cookies = [] }: Redirect): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}

function languageOf(request: Request): Language {
  const chosen = readCookie(request, LANGUAGE_COOKIE);
  if (chosen === "es" || chosen === "en" || chosen === "pt") return chosen;
  return pickLanguage(request.headers.get("accept-language"));
}

function refused(request: Request): Response {
  return new Response(ERROR_CATALOGUE.cross_site_request.messages[languageOf(request)], {
    status: 403,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });
}

async function readForm(request: Request): Promise<Record<string, string>> {
  try {
    const data = await request.formData();
    const fields: Record<string, string> = {};
    for (const [key, value] of data.entries()) if (typeof value === "string") fields[key] = value;
    return fields;
  } catch {
    return {};
  }
}

/**
 * `/signin?error=…`: what the page needs to show the error next to its field. An error about no field in
 * particular (a rate limit) goes next to the step's own field, `field`.
 */
function errorLocation(
  path: string,
  error: AppError,
  extra: Record<string, string> = {},
  field?: string,
): string {
  const query = new URLSearchParams(extra);
  query.set("error", error.code);
  const param = error.options.param ?? field;
  if (param) query.set("param", param);
  if (error.options.retryAfterMs)
    query.set("retry", String(Math.max(1, Math.ceil(error.options.retryAfterMs / 60_000))));
  return `${path}?${query.toString()}`;
}

function pendingOf(request: Request): PendingSignIn | null {
  return decodePendingSignIn(readCookie(request, SIGN_IN_COOKIE));
}

function afterSignIn(
  result: Extract<SignInResult, { kind: "signed_in" }>,
  next: string | null,
  now: Date,
): Response {
  const target = safeNextPath(next) ?? DEFAULT_AFTER_SIGN_IN;
  const location = result.needsTerms ? `/signin/terms?${new URLSearchParams({ next: target })}` : target;
  return seeOther({ location, cookies: [sessionCookie(result.session, now), clearPendingSignInCookie()] });
}

async function guarded(request: Request, work: () => Promise<Response>, onError: (e: AppError) => Response) {
  if (!isSameOrigin(request)) return refused(request);
  try {
    return await work();
  } catch (error) {
    if (isAppError(error)) return onError(error);
    throw error;
  }
}

/** POST /signin/email: mail a code to the address typed, then show the code step. */
export async function handleEmailStep(request: Request): Promise<Response> {
  const fields = EmailStepForm.safeParse(await readForm(request));
  const email = fields.success ? fields.data.email.trim().slice(0, 254) : "";
  const next = safeNextPath(fields.success ? fields.data.next : null);
  const pending = pendingSignInCookie({ email, next });
  return guarded(
    request,
    async () => {
      const db = await dbReady();
      const sent = await requestSignInCode(
        db,
        { email, ip: clientIp(request), language: languageOf(request) },
        new Date(),
      );
      return seeOther({ location: "/signin", cookies: [pendingSignInCookie({ email: sent.email, next })] });
    },
    (error) =>
      seeOther({ location: errorLocation("/signin", error, { step: "email" }, "email"), cookies: [pending] }),
  );
}

/** POST /signin/resend: a new code for the address of the sign-in in progress (at most one mail a minute). */
export async function handleResend(request: Request): Promise<Response> {
  const pending = pendingOf(request);
  return guarded(
    request,
    async () => {
      if (!pending?.email) return seeOther({ location: "/signin?step=email" });
      const db = await dbReady();
      await requestSignInCode(
        db,
        { email: pending.email, ip: clientIp(request), language: languageOf(request) },
        new Date(),
      );
      return seeOther({ location: "/signin?resent=1" });
    },
    (error) => seeOther({ location: errorLocation("/signin", error, {}, "code") }),
  );
}

/** POST /signin/code: prove the address; signs in, or asks the bootstrap-account question. */
export async function handleCodeStep(request: Request): Promise<Response> {
  const pending = pendingOf(request);
  const fields = CodeStepForm.safeParse(await readForm(request));
  return guarded(
    request,
    async () => {
      if (!pending?.email)
        return seeOther({ location: "/signin?step=email&error=sign_in_expired&param=email" });
      const db = await dbReady();
      const now = new Date();
      const result = await verifySignInCode(
        db,
        {
          email: pending.email,
          code: fields.success ? fields.data.code : "",
          ip: clientIp(request),
          language: languageOf(request),
          replacingSessionToken: readCookie(request, SESSION_COOKIE),
        },
        now,
      );
      if (result.kind === "choose") {
        return seeOther({
          location: "/signin",
          cookies: [pendingSignInCookie({ ...pending, challenge: result.challengeToken })],
        });
      }
      return afterSignIn(result, pending.next, now);
    },
    (error) => seeOther({ location: errorLocation("/signin", error, {}, "code") }),
  );
}

/** POST /signin/choose: continue with the developer-made account, or start a new one. */
export async function handleChoiceStep(request: Request): Promise<Response> {
  const pending = pendingOf(request);
  const fields = ChoiceStepForm.safeParse(await readForm(request));
  return guarded(
    request,
    async () => {
      if (!pending?.challenge)
        return seeOther({ location: "/signin?step=email&error=sign_in_expired&param=email" });
      if (!fields.success) return seeOther({ location: "/signin?error=invalid_request&param=choice" });
      const db = await dbReady();
      const now = new Date();
      const result = await completeBootstrapChoice(
        db,
        {
          challengeToken: pending.challenge,
          choice: fields.data.choice,
          replacingSessionToken: readCookie(request, SESSION_COOKIE),
        },
        now,
      );
      return afterSignIn(result, pending.next, now);
    },
    (error) =>
      seeOther({
        location: errorLocation("/signin", error, { step: "email" }, "email"),
        cookies: [clearPendingSignInCookie()],
      }),
  );
}

/** POST /signin/terms/accept: the signed-in account accepts the current terms, then goes on. */
export async function handleTermsStep(request: Request): Promise<Response> {
  const fields = TermsStepForm.safeParse(await readForm(request));
  const next = safeNextPath(fields.success ? fields.data.next : null) ?? DEFAULT_AFTER_SIGN_IN;
  return guarded(
    request,
    async () => {
      const db = await dbReady();
      const now = new Date();
      const session = await resolveSession(db, readCookie(request, SESSION_COOKIE), now);
      if (!session) return seeOther({ location: `/signin?${new URLSearchParams({ next })}` });
      await acceptTermsForAccount(
        db,
        { accountId: session.accountId, version: fields.success ? fields.data.version : "" },
        now,
      );
      return seeOther({ location: next });
    },
    (error) => seeOther({ location: errorLocation("/signin/terms", error, { next }) }),
  );
}

/**
 * POST /signout: ends this session (`scope=everywhere`: every session of the account) and clears the cookie.
 * `after=cancelled` (the account page, right after cancelling the account) lands on /signin saying so.
 */
export async function handleSignOut(request: Request): Promise<Response> {
  const form = await readForm(request);
  return guarded(
    request,
    async () => {
      const db = await dbReady();
      await signOut(db, readCookie(request, SESSION_COOKIE), { everywhere: form.scope === "everywhere" });
      const location = form.after === "cancelled" ? "/signin?cancelled=1" : "/signin?signedout=1";
      return seeOther({ location, cookies: [clearSessionCookie()] });
    },
    (error) => seeOther({ location: errorLocation("/signin", error) }),
  );
}
