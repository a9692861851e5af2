import type { Metadata } from "next";
import Link from "next/link";
import { Badge, statusTone } from "@/app/_components/ui/badge";
import { buttonClasses } from "@/app/_components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/app/_components/ui/card";
import { PageHeader } from "@/app/_components/ui/page-header";
import { SubmitButton } from "@/app/_components/ui/submit-button";
import { getLanguage, getT } from "@/app/_i18n/server";
import { getServerCaller } from "@/app/_trpc/server";
import { Shell } from "../_components/shell";
import { formatDate, formatNumber } from "../_lib/format";
import { requireSignedInAccount } from "../_lib/session";
import { ConnectedApps } from "../oauth/_components/connected-apps";
import { AcceptTermsButton, CancelAccount, LanguageForm, PartnerAccessForm } from "./account-forms";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("account.title") };
}

/** A labelled usage bar (role meter): how much of a plan limit the account uses. */
function UsageBar({
  label,
  used,
  limit,
  language,
  text,
}: {
  label: string;
  used: number;
  limit: number;
  language: string;
  text: string;
}) {
  const share = limit > 0 ? Math.min(1, used / limit) : 1;
  return (
    <div className="space-y-1.5">
      <div className="flex items-baseline justify-between gap-2 text-sm">
        <span className="font-medium text-fg">{label}</span>
        <span className="text-muted">{text}</span>
      </div>
      {/* biome-ignore lint/a11y/useSemanticElements: a native <meter> cannot take our colour tokens in every browser */}
      <div
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={Math.min(used, limit)}
        aria-valuetext={`${formatNumber(used, language)} / ${formatNumber(limit, language)}`}
        className="h-2 w-full overflow-hidden rounded-full border border-border-strong bg-surface-muted"
      >
        <div
          className={
            share >= 1 ? "h-full bg-danger" : share >= 0.8 ? "h-full bg-warning" : "h-full bg-primary"
          }
          style={{ width: `${Math.round(share * 100)}%` }}
        />
      </div>
    </div>
  );
}

/**
 * /dashboard/account (docs/ui.md, "Account"): email and verification, plan with its limits and usage, the
 * upgrade link, language, terms, connected apps, sign out everywhere, and cancelling the account.
 */
export default async function AccountPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const [{ account: shellAccount }, t, language, caller] = await Promise.all([
    requireSignedInAccount(),
    getT(),
    getLanguage(),
    getServerCaller(),
  ]);
  const account = await caller.accounts.get();
  const planName = t(`plan.${account.plan}`);
  return (
    <Shell
      account={{ email: shellAccount.email, status: shellAccount.status, plan: shellAccount.plan }}
      hasDeveloperKeys={shellAccount.hasDeveloperKeys}
      current="/dashboard/account"
    >
      <PageHeader title={t("account.title")} description={t("account.description")} />
      <div className="space-y-6">
        <Card>
          <CardHeader>
            <CardTitle>{t("account.email.title")}</CardTitle>
          </CardHeader>
          <CardContent className="space-y-2">
            <div className="flex flex-wrap items-center gap-2">
              <span className="font-medium break-all text-fg" data-testid="account-email">
                {account.email}
              </span>
              <Badge tone={statusTone(account.status)}>{t(`status.${account.status}`)}</Badge>
            </div>
            {account.status === "verified" ? (
              <p className="text-sm text-muted">
                {account.verifiedAt
                  ? `${t("account.email.verifiedOn", { date: formatDate(account.verifiedAt, language) })} `
                  : null}
                {t("account.email.verifiedByCode")}
              </p>
            ) : (
              <p className="text-sm text-muted">{t("account.email.unverified")}</p>
            )}
          </CardContent>
        </Card>

        <Card>
          <CardHeader>
            <CardTitle>{t("account.plan.title")}</CardTitle>
            <CardDescription>
              {t("account.plan.current", { plan: planName })}{" "}
              {t(account.limits.publishable ? "account.plan.canPublish" : "account.plan.cannotPublish")}
            </CardDescription>
          </CardHeader>
          <CardContent className="space-y-4">
            <UsageBar
              label={t("account.plan.storefronts")}
              used={account.usage.storefronts}
              limit={account.limits.storefronts}
              language={language}
              text={t("account.plan.usage", {
                used: formatNumber(account.usage.storefronts, language),
                limit: formatNumber(account.limits.storefronts, language),
              })}
            />
            <UsageBar
              label={t("account.plan.products")}
              used={account.usage.products}
              limit={account.limits.products}
              language={language}
              text={t("account.plan.usage", {
                used: formatNumber(account.usage.products, language),
                limit: formatNumber(account.limits.products, language),
              })}
            />
            {account.upgradeUrl ? (
              <a href={account.upgradeUrl} className={buttonClasses("primary")}>
                {t("account.plan.upgrade")}
              </a>
            ) : null}
          </CardContent>
        </Card>

        {account.partner ? (
          <Card data-testid="partner-access">
            <CardHeader>
              <CardTitle>{t("account.partner.title")}</CardTitle>
              <CardDescription>
                {t("account.partner.description", {
                  partner: account.partner.name
                    ? `${account.partner.name} (${account.partner.email})`
                    : account.partner.email,
                })}
              </CardDescription>
            </CardHeader>
            <CardContent className="space-y-3">
              <p className="text-sm font-medium text-fg" data-testid="partner-access-state">
                {t(
                  !account.partner.isKeyLive
                    ? "account.partner.detached"
                    : account.partner.hasAccess
                      ? "account.partner.on"
                      : "account.partner.off",
                )}
              </p>
              <p className="text-sm text-muted">
                {t("account.partner.keys", { count: formatNumber(account.partner.liveKeys, language) })}{" "}
                <Link
                  href="/dashboard/keys"
                  className="font-medium text-primary underline underline-offset-2"
                >
                  {t("account.partner.keysLink")}
                </Link>
              </p>
              {account.partner.isKeyLive ? (
                <PartnerAccessForm
                  partner={account.partner.name ?? account.partner.email}
                  hasAccess={account.partner.hasAccess}
                />
              ) : null}
            </CardContent>
          </Card>
        ) : null}

        <Card>
          <CardHeader>
            <CardTitle>{t("account.language.title")}</CardTitle>
            <CardDescription>{t("account.language.description")}</CardDescription>
          </CardHeader>
          <CardContent>
            <LanguageForm accountLanguage={account.language} />
          </CardContent>
        </Card>

        <Card>
          <CardHeader>
            <CardTitle>{t("account.terms.title")}</CardTitle>
          </CardHeader>
          <CardContent className="space-y-3">
            {account.terms.isAccepted ? (
              <p className="text-sm text-fg">
                {t("account.terms.accepted", { version: account.terms.currentVersion })}
              </p>
            ) : (
              <>
                <p className="text-sm text-fg">
                  {t("account.terms.pending", { version: account.terms.currentVersion })}
                </p>
                <AcceptTermsButton version={account.terms.currentVersion} />
              </>
            )}
          </CardContent>
        </Card>

        <div id="connected-apps" className="scroll-mt-20">
          <ConnectedApps
            next="/dashboard/account"
            disconnected={typeof params.disconnected === "string" ? params.disconnected : null}
            error={typeof params.error === "string" ? params.error : null}
          />
        </div>

        <Card>
          <CardHeader>
            <CardTitle>{t("account.sessions.title")}</CardTitle>
            <CardDescription>{t("account.sessions.description")}</CardDescription>
          </CardHeader>
          <CardContent>
            <form method="post" action="/signout">
              <input type="hidden" name="scope" value="everywhere" />
              <SubmitButton variant="secondary">{t("account.sessions.everywhere")}</SubmitButton>
            </form>
          </CardContent>
        </Card>

        <Card className="border-danger">
          <CardHeader>
            <CardTitle>{t("account.cancel.title")}</CardTitle>
            <CardDescription>{t("account.cancel.description")}</CardDescription>
          </CardHeader>
          <CardContent>
            <CancelAccount email={account.email} />
          </CardContent>
        </Card>
      </div>
    </Shell>
  );
}
