import type { Metadata } from "next";
import { buttonClasses } from "@/app/_components/ui/button";
import { Card, CardContent } from "@/app/_components/ui/card";
import { Notice } from "@/app/_components/ui/notice";
import { getLanguage, getT } from "@/app/_i18n/server";
import { ERROR_CATALOGUE } from "@/server/errors";
import { isAuthorizePageReason, isShownOAuthErrorCode } from "@/server/oauth/errors";
import { FocusedPage } from "../_components/focused-page";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("oauth.error.title") };
}

/**
 * /oauth/error: an authorization request that could not be answered at the client's redirect URI (unknown client,
 * unregistered redirect URI, malformed request), so the person is told here instead (docs/mcp.md, "Authorize").
 * It shows only the catalogue's text for a known `reason` and a known RFC `error` code: anyone can link here, so
 * nothing else from the query string reaches the page.
 */
export default async function OAuthErrorPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const [t, language] = await Promise.all([getT(), getLanguage()]);
  const reason = isAuthorizePageReason(params.reason) ? params.reason : null;
  const code = isShownOAuthErrorCode(params.error) ? params.error : null;
  return (
    <FocusedPage>
      <Card>
        <CardContent className="space-y-5">
          <h1 className="text-2xl font-semibold tracking-tight text-fg">{t("oauth.error.title")}</h1>
          <Notice tone="danger" role="alert">
            {t("oauth.error.body")}
          </Notice>
          {reason ? (
            <p className="break-words text-fg" data-testid="oauth-error-detail">
              {ERROR_CATALOGUE[reason].messages[language]}
            </p>
          ) : null}
          {code ? (
            <p className="text-sm text-muted" data-testid="oauth-error-code">
              {t("oauth.error.code", { code })}
            </p>
          ) : null}
          <a href="/dashboard" className={buttonClasses("secondary")}>
            {t("oauth.error.back")}
          </a>
        </CardContent>
      </Card>
    </FocusedPage>
  );
}
