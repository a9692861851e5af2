import type { Metadata } from "next";
import { Button, buttonClasses } from "@/app/_components/ui/button";
import { Card, CardContent, CardFooter } from "@/app/_components/ui/card";
import { CheckIcon } from "@/app/_components/ui/icons";
import { Notice } from "@/app/_components/ui/notice";
import { SubmitButton } from "@/app/_components/ui/submit-button";
import { getLanguage, getT } from "@/app/_i18n/server";
import { FocusedPage } from "@/app/oauth/_components/focused-page";
import { createServiceContext } from "@/server/context";
import { dbReady } from "@/server/db/client";
import { ERROR_CATALOGUE, type ErrorCode, isAppError } from "@/server/errors";
import type { McpScope } from "@/server/gate/oauth-scopes";
import { newId } from "@/server/lib/ids";
import { getConsentRequest } from "@/server/oauth/authorization";
import type { ConsentRequestDto } from "@/server/oauth/dto";
import { consentFormToken } from "@/server/oauth/forms";
import { actorOfSignedInSession } from "@/server/sessions/actor";
import { requireSignedInAccount } from "../../_lib/session";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("oauth.consent.pageTitle") };
}

const SCOPE_TEXT = {
  "marea.read": "oauth.scope.read",
  "marea.write": "oauth.scope.write",
  "marea.publish": "oauth.scope.publish",
} as const satisfies Record<McpScope, string>;

/**
 * /dashboard/oauth/consent?request=oar_…: the signed-in person allows or denies an MCP client (docs/mcp.md,
 * "Consent"). Shows the app's name, where its client id comes from, where the answer goes and the scopes in
 * words. Served with `frame-ancestors 'none'` (next.config.ts) so no other site can frame it.
 */
export default async function ConsentPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const requestId = typeof params.request === "string" ? params.request : "";
  const [session, t, language] = await Promise.all([requireSignedInAccount(), getT(), getLanguage()]);
  const db = await dbReady();
  const ctx = createServiceContext({
    db,
    actor: actorOfSignedInSession(session),
    requestId: newId("req"),
    language,
  });
  let consent: ConsentRequestDto | null = null;
  let errorCode: ErrorCode | null =
    typeof params.error === "string" && Object.hasOwn(ERROR_CATALOGUE, params.error)
      ? (params.error as ErrorCode)
      : null;
  try {
    consent = await getConsentRequest(ctx, { requestId });
  } catch (error) {
    if (!isAppError(error)) throw error;
    errorCode = error.code;
  }

  if (!consent) {
    return (
      <FocusedPage>
        <Card>
          <CardContent className="space-y-5">
            <h1 className="text-2xl font-semibold tracking-tight text-fg">{t("oauth.consent.pageTitle")}</h1>
            <Notice tone="danger" role="alert">
              {ERROR_CATALOGUE[errorCode ?? "oauth_request_expired"].messages[language]}
            </Notice>
            <a href="/dashboard" className={buttonClasses("secondary")}>
              {t("oauth.error.back")}
            </a>
          </CardContent>
        </Card>
      </FocusedPage>
    );
  }

  const app = consent.clientName;
  return (
    <FocusedPage>
      <Card>
        <CardContent className="space-y-5">
          {errorCode ? (
            <Notice tone="danger" role="alert">
              {ERROR_CATALOGUE[errorCode].messages[language]}
            </Notice>
          ) : null}
          <div>
            <h1 className="text-2xl font-semibold tracking-tight break-words text-fg">
              {t("oauth.consent.heading", { app })}
            </h1>
            <p className="mt-2 text-sm text-muted">{t("oauth.consent.intro", { app })}</p>
            <p className="mt-1 text-sm text-muted">
              {t("oauth.consent.signedInAs", { email: session.account.email })}
            </p>
          </div>
          <dl className="divide-y divide-border rounded-md border border-border bg-surface-muted text-sm">
            <div className="grid gap-0.5 px-4 py-2.5 sm:grid-cols-[10rem_1fr] sm:gap-4">
              <dt className="text-muted">{t("oauth.consent.appLabel")}</dt>
              <dd className="font-medium break-words text-fg" data-testid="consent-app">
                {app}
              </dd>
            </div>
            <div className="grid gap-0.5 px-4 py-2.5 sm:grid-cols-[10rem_1fr] sm:gap-4">
              <dt className="text-muted">{t("oauth.consent.clientLabel")}</dt>
              <dd className="break-words text-fg" data-testid="consent-client-host">
                {consent.clientHost ?? t("oauth.consent.clientRegistered")}
              </dd>
            </div>
            {consent.clientUri ? (
              <div className="grid gap-0.5 px-4 py-2.5 sm:grid-cols-[10rem_1fr] sm:gap-4">
                <dt className="text-muted">{t("oauth.consent.websiteLabel")}</dt>
                <dd className="break-words text-fg">{new URL(consent.clientUri).host}</dd>
              </div>
            ) : null}
            <div className="grid gap-0.5 px-4 py-2.5 sm:grid-cols-[10rem_1fr] sm:gap-4">
              <dt className="text-muted">{t("oauth.consent.redirectLabel")}</dt>
              <dd className="break-words text-fg" data-testid="consent-redirect-host">
                {consent.redirectHost}
              </dd>
            </div>
          </dl>
          <div>
            <h2 className="text-base font-semibold text-fg">{t("oauth.consent.scopesHeading")}</h2>
            <ul className="mt-3 space-y-3 text-sm text-fg" data-testid="consent-scopes">
              {consent.scopes
                .filter((scope) => !consent.unavailableScopes.includes(scope))
                .map((scope) => (
                  <li key={scope} className="flex items-start gap-2.5">
                    <CheckIcon className="mt-0.5 shrink-0 text-success" />
                    <div className="min-w-0">
                      <p>{t(SCOPE_TEXT[scope])}</p>
                      <p className="mt-0.5 font-mono text-xs text-muted">{scope}</p>
                    </div>
                  </li>
                ))}
            </ul>
            {consent.unavailableScopes.length > 0 ? (
              <p className="mt-3 text-sm text-muted">
                {t("oauth.consent.unavailable", {
                  scopes: consent.unavailableScopes.map((scope) => t(SCOPE_TEXT[scope])).join("; "),
                })}
              </p>
            ) : null}
          </div>
          <p className="text-sm text-muted">
            {consent.isConnected
              ? t("oauth.consent.reconnect", { app })
              : t("oauth.consent.keyNote", { app })}
          </p>
          <Notice tone="info">{t("oauth.consent.trust")}</Notice>
        </CardContent>
        <CardFooter>
          <form method="post" action="/oauth/consent" className="flex w-full flex-wrap gap-2 sm:justify-end">
            <input type="hidden" name="request" value={consent.requestId} />
            <input type="hidden" name="csrf" value={consentFormToken(session.sessionId, consent.requestId)} />
            <Button
              type="submit"
              name="decision"
              value="deny"
              variant="secondary"
              className="flex-1 sm:flex-none"
            >
              {t("oauth.consent.deny")}
            </Button>
            <SubmitButton name="decision" value="approve" className="flex-1 sm:flex-none">
              {t("oauth.consent.approve")}
            </SubmitButton>
          </form>
        </CardFooter>
      </Card>
    </FocusedPage>
  );
}
