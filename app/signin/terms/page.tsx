import type { Metadata } from "next";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { Button } from "@/app/_components/ui/button";
import { Card, CardContent } from "@/app/_components/ui/card";
import { Notice } from "@/app/_components/ui/notice";
import { SubmitButton } from "@/app/_components/ui/submit-button";
import { getLanguage, getT } from "@/app/_i18n/server";
import { dbReady } from "@/server/db/client";
import { ERROR_CATALOGUE, type ErrorCode } from "@/server/errors";
import { currentTerms, hasAcceptedCurrentTerms } from "@/server/gate/terms";
import { sessionCookieName } from "@/server/kit/cookies";
import { DEFAULT_AFTER_SIGN_IN, safeNextPath } from "@/server/sessions/next-path";
import { resolveSignedInSession } from "@/server/sessions/service";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("signin.terms.heading") };
}

/** /signin/terms: a signed-in account that has not accepted the current terms accepts them (or signs out). */
export default async function TermsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const next = safeNextPath(typeof params.next === "string" ? params.next : null) ?? DEFAULT_AFTER_SIGN_IN;
  const db = await dbReady();
  const session = await resolveSignedInSession(
    db,
    (await cookies()).get(sessionCookieName())?.value,
    new Date(),
  );
  const account = session?.account;
  if (!account) redirect(`/signin?${new URLSearchParams({ next })}`);
  if (hasAcceptedCurrentTerms(account.tosAcceptedVersion)) redirect(next);

  const [t, language] = await Promise.all([getT(), getLanguage()]);
  const { version } = currentTerms();
  const code =
    typeof params.error === "string" && Object.hasOwn(ERROR_CATALOGUE, params.error) ? params.error : null;
  return (
    <Card>
      <CardContent className="space-y-6">
        {code ? (
          <Notice tone="danger" role="alert">
            {ERROR_CATALOGUE[code as ErrorCode].messages[language]}
          </Notice>
        ) : null}
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-fg">{t("signin.terms.heading")}</h1>
          <p className="mt-2 text-sm text-muted">{t("signin.terms.description", { version })}</p>
          <p className="mt-2 text-sm text-muted">{t("signin.terms.signedInAs", { email: account.email })}</p>
        </div>
        <form method="post" action="/signin/terms/accept">
          <input type="hidden" name="version" value={version} />
          <input type="hidden" name="next" value={next} />
          <SubmitButton className="w-full">{t("signin.terms.accept")}</SubmitButton>
        </form>
        <form method="post" action="/signout">
          <Button type="submit" variant="ghost" className="w-full">
            {t("signin.terms.signOut")}
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
