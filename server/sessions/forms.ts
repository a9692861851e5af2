import { dbReady } from "@/server/db/client";
import { AppError, isAppError } from "@/server/errors";
import { isSameOrigin } from "@/server/gate/origin";
import { BODY_LIMITS } from "@/server/kit/body";
import { readCookie, SESSION_COOKIE, SIGN_IN_COOKIE } from "@/server/kit/cookies";
import { formFields, readFormBody, refusedForm, seeOther } from "@/server/kit/form";
import { requestLanguage } from "@/server/kit/language";
import { clientIp } from "./client-ip";
import {
  clearPendingSignInCookie,
  clearSessionCookie,
  decodePendingSignIn,
  type PendingSignIn,
  pendingSignInCookie,
  sessionCookie,
} from "./cookies";
import { DEFAULT_AFTER_SIGN_IN, safeNextPath } from "./next-path";
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
 * Every handler first refuses cross-site requests (`isSameOrigin`), then reads the form through the door kit's
 * capped reader (16 KiB; docs/security.md, "Request bodies and door limits"): a larger body is a plain 413, a
 * multipart one a plain 400, before any work.
 */

type Redirect = { location: string; cookies?: string[] };

function redirectTo({ location, cookies = [] }: Redirect): Response {
  return seeOther(location, cookies);
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
  return redirectTo({ location, cookies: [sessionCookie(result.session, now), clearPendingSignInCookie()] });
}

type Fields = Record<string, string>;

/**
 * The shell of every form handler: same origin first, then the form (capped; none when `readsForm` is false),
 * then `work`; a catalogue error of `work` goes to `onError`, which sends the person back to the step.
 */
async function guarded(
  request: Request,
  options: { readsForm: boolean },
  work: (fields: Fields) => Promise<Response>,
  onError: (error: AppError, fields: Fields) => Response,
): Promise<Response> {
  if (!isSameOrigin(request)) return refusedForm(request, new AppError("cross_site_request"));
  let fields: Fields = {};
  if (options.readsForm) {
    try {
      fields = formFields(await readFormBody(request, BODY_LIMITS.form));
    } catch (error) {
      if (isAppError(error)) return refusedForm(request, error);
      throw error;
    }
  }
  try {
    return await work(fields);
  } catch (error) {
    if (isAppError(error)) return onError(error, fields);
    throw error;
  }
}

function emailStepOf(form: Fields): { email: string; next: string | null } {
  const fields = EmailStepForm.safeParse(form);
  return {
    email: fields.success ? fields.data.email.trim().slice(0, 254) : "",
    next: safeNextPath(fields.success ? fields.data.next : null),
  };
}

/** POST /signin/email: mail a code to the address typed, then show the code step. */
export async function handleEmailStep(request: Request): Promise<Response> {
  return guarded(
    request,
    { readsForm: true },
    async (form) => {
      const { email, next } = emailStepOf(form);
      const db = await dbReady();
      const sent = await requestSignInCode(
        db,
        { email, ip: clientIp(request), language: requestLanguage(request) },
        new Date(),
      );
      return redirectTo({ location: "/signin", cookies: [pendingSignInCookie({ email: sent.email, next })] });
    },
    (error, form) =>
      redirectTo({
        location: errorLocation("/signin", error, { step: "email" }, "email"),
        cookies: [pendingSignInCookie(emailStepOf(form))],
      }),
  );
}

/** POST /signin/resend: a new code for the address of the sign-in in progress (at most one mail a minute). */
export async function handleResend(request: Request): Promise<Response> {
  const pending = pendingOf(request);
  return guarded(
    request,
    { readsForm: false },
    async () => {
      if (!pending?.email) return redirectTo({ location: "/signin?step=email" });
      const db = await dbReady();
      await requestSignInCode(
        db,
        { email: pending.email, ip: clientIp(request), language: requestLanguage(request) },
        new Date(),
      );
      return redirectTo({ location: "/signin?resent=1" });
    },
    (error) => redirectTo({ location: errorLocation("/signin", error, {}, "code") }),
  );
}

/** POST /signin/code: prove the address; signs in, or asks the bootstrap-account question. */
export async function handleCodeStep(request: Request): Promise<Response> {
  const pending = pendingOf(request);
  return guarded(
    request,
    { readsForm: true },
    async (form) => {
      const fields = CodeStepForm.safeParse(form);
      if (!pending?.email)
        return redirectTo({ location: "/signin?step=email&error=sign_in_expired&param=email" });
      const db = await dbReady();
      const now = new Date();
      const result = await verifySignInCode(
        db,
        {
          email: pending.email,
          code: fields.success ? fields.data.code : "",
          ip: clientIp(request),
          language: requestLanguage(request),
          replacingSessionToken: readCookie(request, SESSION_COOKIE),
        },
        now,
      );
      if (result.kind === "choose") {
        return redirectTo({
          location: "/signin",
          cookies: [pendingSignInCookie({ ...pending, challenge: result.challengeToken })],
        });
      }
      return afterSignIn(result, pending.next, now);
    },
    (error) => redirectTo({ location: errorLocation("/signin", error, {}, "code") }),
  );
}

/** POST /signin/choose: continue with the developer-made account, or start a new one. */
export async function handleChoiceStep(request: Request): Promise<Response> {
  const pending = pendingOf(request);
  return guarded(
    request,
    { readsForm: true },
    async (form) => {
      const fields = ChoiceStepForm.safeParse(form);
      if (!pending?.challenge)
        return redirectTo({ location: "/signin?step=email&error=sign_in_expired&param=email" });
      if (!fields.success) return redirectTo({ location: "/signin?error=invalid_request&param=choice" });
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
      redirectTo({
        location: errorLocation("/signin", error, { step: "email" }, "email"),
        cookies: [clearPendingSignInCookie()],
      }),
  );
}

/** POST /signin/terms/accept: the signed-in account accepts the current terms, then goes on. */
export async function handleTermsStep(request: Request): Promise<Response> {
  const termsOf = (form: Fields) => {
    const fields = TermsStepForm.safeParse(form);
    const next = safeNextPath(fields.success ? fields.data.next : null) ?? DEFAULT_AFTER_SIGN_IN;
    return { version: fields.success ? fields.data.version : "", next };
  };
  return guarded(
    request,
    { readsForm: true },
    async (form) => {
      const { version, next } = termsOf(form);
      const db = await dbReady();
      const now = new Date();
      const session = await resolveSession(db, readCookie(request, SESSION_COOKIE), now);
      if (!session) return redirectTo({ location: `/signin?${new URLSearchParams({ next })}` });
      await acceptTermsForAccount(db, { accountId: session.accountId, version }, now);
      return redirectTo({ location: next });
    },
    (error, form) =>
      redirectTo({ location: errorLocation("/signin/terms", error, { next: termsOf(form).next }) }),
  );
}

/**
 * POST /signout: ends this session (`scope=everywhere`: every session of the account) and clears the cookie.
 * `after=cancelled` (the account page, right after cancelling the account) lands on /signin saying so.
 */
export async function handleSignOut(request: Request): Promise<Response> {
  return guarded(
    request,
    { readsForm: true },
    async (form) => {
      const db = await dbReady();
      await signOut(db, readCookie(request, SESSION_COOKIE), { everywhere: form.scope === "everywhere" });
      const location = form.after === "cancelled" ? "/signin?cancelled=1" : "/signin?signedout=1";
      return redirectTo({ location, cookies: [clearSessionCookie()] });
    },
    (error) => redirectTo({ location: errorLocation("/signin", error) }),
  );
}
