import { clsx } from "clsx";
import type { Metadata } from "next";
import { Badge } from "@/app/_components/ui/badge";
import { Card, CardContent, CardHeader, CardTitle } from "@/app/_components/ui/card";
import { Notice } from "@/app/_components/ui/notice";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Table, TableContainer, TBody, Td, THead, Th, Tr } from "@/app/_components/ui/table";
import { getLanguage, getT } from "@/app/_i18n/server";
import { PLAN_LIMITS } from "@/server/accounts/plans";
import { Shell } from "../_components/shell";
import { formatNumber } from "../_lib/format";
import { requireSignedInAccount } from "../_lib/session";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("billing.title") };
}

const PLANS = ["FREE_NEW", "FREE_OLD", "PRO"] as const;
type PlanName = (typeof PLANS)[number];

function isPlan(value: unknown): value is PlanName {
  return typeof value === "string" && (PLANS as readonly string[]).includes(value);
}

/**
 * /dashboard/billing, the plan screen every 402's `upgrade.upgradeUrl` opens (`?plan=PRO`; docs/ui.md, "Plans"):
 * the account's plan, the three plans' limits side by side (from server/accounts/plans.ts, the limits the
 * services enforce), and how to move to the suggested plan. There is no self-service payment: the Marea team
 * sets plans (`npm run cli -- plan set`), and the page says so.
 */
export default async function BillingPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [{ plan: asked }, { account }, t, language] = await Promise.all([
    searchParams,
    requireSignedInAccount(),
    getT(),
    getLanguage(),
  ]);
  const suggested: PlanName = isPlan(asked) ? asked : "PRO";
  const planName = (plan: PlanName) => t(`plan.${plan}`);
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current="/dashboard/account"
    >
      <PageHeader title={t("billing.title")} description={t("billing.description")} />
      <div className="space-y-6">
        <p className="text-fg">{t("billing.current", { plan: planName(account.plan) })}</p>
        <TableContainer label={t("billing.compare")}>
          <Table>
            <THead>
              <Tr>
                <Th>{t("billing.plan")}</Th>
                <Th className="text-right">{t("billing.storefronts")}</Th>
                <Th className="text-right">{t("billing.products")}</Th>
                <Th>{t("billing.publish")}</Th>
              </Tr>
            </THead>
            <TBody>
              {PLANS.map((plan) => {
                const limits = PLAN_LIMITS[plan];
                const isSuggested = plan === suggested && plan !== account.plan;
                return (
                  <Tr key={plan} className={clsx(isSuggested && "bg-primary-soft")}>
                    <th scope="row" className="px-4 py-3 text-left font-medium text-fg">
                      <span className="flex flex-wrap items-center gap-2">
                        {planName(plan)}
                        {plan === account.plan ? <Badge tone="success">{t("billing.yours")}</Badge> : null}
                        {isSuggested ? <Badge tone="info">{t("billing.suggested")}</Badge> : null}
                      </span>
                    </th>
                    <Td className="text-right tabular-nums">{formatNumber(limits.storefronts, language)}</Td>
                    <Td className="text-right tabular-nums">{formatNumber(limits.products, language)}</Td>
                    <Td>{limits.publishable ? t("billing.yes") : t("billing.no")}</Td>
                  </Tr>
                );
              })}
            </TBody>
          </Table>
        </TableContainer>
        <Card>
          <CardHeader>
            <CardTitle>{t("billing.howTitle")}</CardTitle>
          </CardHeader>
          <CardContent>
            {account.plan === "PRO" ? (
              <Notice tone="success">{t("billing.onPro")}</Notice>
            ) : (
              <p className="text-sm text-fg">
                {t("billing.how", { plan: planName(suggested), email: account.email })}
              </p>
            )}
          </CardContent>
        </Card>
      </div>
    </Shell>
  );
}
