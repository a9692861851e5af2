import type { Metadata } from "next";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { Card, CardContent } from "@/app/_components/ui/card";
import { Field } from "@/app/_components/ui/field";
import { Input } from "@/app/_components/ui/input";
import { Notice } from "@/app/_components/ui/notice";
import { SubmitButton } from "@/app/_components/ui/submit-button";
import { getLanguage, getT } from "@/app/_i18n/server";
import { dbReady } from "@/server/db/client";
import { ERROR_CATALOGUE, type ErrorCode } from "@/server/errors";
import { currentTerms } from "@/server/gate/terms";
import { SIGN_IN_COOKIE, sessionCookieName } from "@/server/kit/cookies";
import { decodePendingSignIn } from "@/server/sessions/cookies";
import { DEFAULT_AFTER_SIGN_IN, safeNextPath } from "@/server/sessions/next-path";
import { resolveSession } from "@/server/sessions/service";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("signin.title") };
}

type SearchParams = Record<string, string | string[] | undefined>;

function one(params: SearchParams, name: string): string | null {
  const value = params[name];
  return typeof value === "string" ? value : null;
}

function StepHeading({ title, description }: { title: string; description?: string }) {
  return (
    <div className="mb-6">
      <h1 className="text-2xl font-semibold tracking-tight text-fg">{title}</h1>
      {description ? <p className="mt-2 text-sm text-muted">{description}</p> : null}
    </div>
  );
}

/**
 * /signin, one page for the steps of a sign-in (each a plain form posting to a route in server/sessions/forms.ts):
 * email → code → (only for an address a developer partner registered) the account choice. Which step shows
 * comes from the httpOnly `marea_signin` cookie; errors come back as `?error=<catalogue code>&param=<field>`
 * and show next to that field in the interface language.
 */
export default async function SignInPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const [t, language, cookieStore] = await Promise.all([getT(), getLanguage(), cookies()]);
  const pending = decodePendingSignIn(cookieStore.get(SIGN_IN_COOKIE)?.value);
  const next = safeNextPath(one(params, "next"));
  const step =
    one(params, "step") === "email" || !pending?.email ? "email" : pending.challenge ? "choose" : "code";

  if (step === "email" && !pending && !one(params, "error")) {
    const session = await resolveSession(
      await dbReady(),
      cookieStore.get(sessionCookieName())?.value,
      new Date(),
    );
    if (session) redirect(next ?? DEFAULT_AFTER_SIGN_IN);
  }

  const code = one(params, "error");
  const errorCode = code && Object.hasOwn(ERROR_CATALOGUE, code) ? (code as ErrorCode) : null;
  const retry = Number(one(params, "retry"));
  const errorText = errorCode
    ? [
        ERROR_CATALOGUE[errorCode].messages[language],
        Number.isInteger(retry) && retry > 0 ? t("signin.retryIn", { minutes: retry }) : "",
      ]
        .filter(Boolean)
        .join(" ")
    : null;
  const param = one(params, "param");
  const fieldOfStep = { email: "email", code: "code", choose: "choice" }[step];
  const fieldError = errorText && param === fieldOfStep ? errorText : null;
  const formError = errorText && !fieldError ? errorText : null;

  return (
    <Card>
      <CardContent className="space-y-6">
        {one(params, "signedout") ? (
          <Notice tone="success" role="status">
            {t("signin.signedOut")}
          </Notice>
        ) : null}
        {one(params, "cancelled") ? (
          <Notice tone="success" role="status">
            {t("account.cancelled")}
          </Notice>
        ) : null}
        {formError ? (
          <Notice tone="danger" role="alert">
            {formError}
          </Notice>
        ) : null}

        {step === "email" ? (
          <>
            <StepHeading title={t("signin.email.heading")} description={t("signin.email.description")} />
            <form method="post" action="/signin/email" noValidate className="space-y-5">
              {next ? <input type="hidden" name="next" value={next} /> : null}
              <Field id="email" label={t("signin.email.label")} error={fieldError}>
                <Input
                  name="email"
                  type="email"
                  autoComplete="email"
                  inputMode="email"
                  spellCheck={false}
                  required
                  autoFocus
                  defaultValue={pending?.email ?? ""}
                />
              </Field>
              <SubmitButton className="w-full">{t("signin.email.submit")}</SubmitButton>
            </form>
          </>
        ) : null}

        {step === "code" && pending ? (
          <>
            <StepHeading
              title={t("signin.code.heading")}
              description={t("signin.code.description", { email: pending.email })}
            />
            {one(params, "resent") ? (
              <Notice tone="info" role="status">
                {t("signin.code.resent")}
              </Notice>
            ) : null}
            <form method="post" action="/signin/code" noValidate className="space-y-5">
              <Field id="code" label={t("signin.code.label")} hint={t("signin.code.hint")} error={fieldError}>
                <Input
                  name="code"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  pattern="[0-9]*"
                  maxLength={6}
                  spellCheck={false}
                  required
                  autoFocus
                  className="font-mono text-lg tracking-[0.3em] sm:text-lg"
                />
              </Field>
              <SubmitButton className="w-full">{t("signin.code.submit")}</SubmitButton>
            </form>
            <div className="flex flex-col items-start gap-3 border-t border-border pt-5 text-sm">
              <form method="post" action="/signin/resend">
                <SubmitButton variant="link" size="sm" aria-describedby="resend-hint">
                  {t("signin.code.resend")}
                </SubmitButton>
                <p id="resend-hint" className="text-muted">
                  {t("signin.code.resendHint")}
                </p>
              </form>
              <a href="/signin?step=email">{t("signin.code.otherEmail")}</a>
            </div>
          </>
        ) : null}

        {step === "choose" && pending ? (
          <>
            <StepHeading
              title={t("signin.choose.heading")}
              description={t("signin.choose.description", { email: pending.email })}
            />
            <form method="post" action="/signin/choose">
              <fieldset className="space-y-4">
                <legend className="sr-only">{t("signin.choose.legend")}</legend>
                {fieldError ? (
                  <Notice tone="danger" role="alert">
                    {fieldError}
                  </Notice>
                ) : null}
                <div className="rounded-lg border border-border p-4">
                  <h2 className="font-semibold text-fg">{t("signin.choose.continue")}</h2>
                  <p id="choice-continue-hint" className="mt-1 text-sm text-muted">
                    {t("signin.choose.continueHint", { version: currentTerms().version })}
                  </p>
                  <SubmitButton
                    name="choice"
                    value="continue"
                    className="mt-4 w-full"
                    aria-describedby="choice-continue-hint"
                  >
                    {t("signin.choose.continue")}
                  </SubmitButton>
                </div>
                <div className="rounded-lg border border-border p-4">
                  <h2 className="font-semibold text-fg">{t("signin.choose.new")}</h2>
                  <p id="choice-new-hint" className="mt-1 text-sm text-muted">
                    {t("signin.choose.newHint")}
                  </p>
                  <SubmitButton
                    name="choice"
                    value="new"
                    variant="secondary"
                    className="mt-4 w-full"
                    aria-describedby="choice-new-hint"
                  >
                    {t("signin.choose.new")}
                  </SubmitButton>
                </div>
              </fieldset>
            </form>
            <a href="/signin?step=email" className="inline-block text-sm">
              {t("signin.code.otherEmail")}
            </a>
          </>
        ) : null}
      </CardContent>
    </Card>
  );
}
