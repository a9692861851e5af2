import type { Metadata } from "next";
import { buttonClasses } from "@/app/_components/ui/button";
import { Card, CardContent } from "@/app/_components/ui/card";
import { Notice } from "@/app/_components/ui/notice";
import { getT } from "@/app/_i18n/server";
import { FocusedPage } from "../_components/focused-page";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("oauth.error.title") };
}

/**
 * /oauth/error: an authorization request that could not be answered at the client's redirect URI (unknown client,
 * unregistered redirect URI), so the person is told here instead (docs/mcp.md, "Authorize").
 */
export default async function OAuthErrorPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const t = await getT();
  const detail =
    typeof params.error_description === "string"
      ? params.error_description.slice(0, 300)
      : typeof params.error === "string"
        ? params.error.slice(0, 60)
        : null;
  return (
    <FocusedPage>
      <Card>
        <CardContent className="space-y-5">
          <h1 className="text-2xl font-semibold tracking-tight text-fg">{t("oauth.error.title")}</h1>
          <Notice tone="danger" role="alert">
            {t("oauth.error.body")}
          </Notice>
          {detail ? (
            <p className="text-sm break-words text-muted" data-testid="oauth-error-detail">
              {t("oauth.error.detail", { detail })}
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
