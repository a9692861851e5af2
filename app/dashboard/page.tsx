import type { Metadata } from "next";
import Link from "next/link";
import { Badge, type BadgeTone } from "@/app/_components/ui/badge";
import { buttonClasses } from "@/app/_components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/app/_components/ui/card";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Table, TableCaption, TableContainer, TBody, Td, THead, Th, Tr } from "@/app/_components/ui/table";
import { type Language, plural, type Translate } from "@/app/_i18n/catalogue";
import { getLanguage, getT } from "@/app/_i18n/server";
import { getServerCaller } from "@/app/_trpc/server";
import type { DeliveryOverviewDto, MerchantOverviewDto, NextStep } from "@/server/overview/schema";
import { Shell } from "./_components/shell";
import { formatNumber } from "./_lib/format";
import { requireSignedInAccount } from "./_lib/session";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("overview.title") };
}

const STATE_TONE: Record<MerchantOverviewDto["storefronts"][number]["state"], BadgeTone> = {
  published: "success",
  hidden: "warning",
  draft: "neutral",
};

function money(amount: number, currency: string, language: string): string {
  try {
    return new Intl.NumberFormat(language, { style: "currency", currency }).format(amount);
  } catch {
    return `${formatNumber(amount, language)} ${currency}`;
  }
}

function stepView(step: NextStep, t: Translate): { text: string; href: string } {
  switch (step.kind) {
    case "verify_email":
      return { text: t("overview.next.verify_email"), href: "/dashboard/account" };
    case "accept_terms":
      return { text: t("overview.next.accept_terms", { version: step.version }), href: "/dashboard/account" };
    case "create_storefront":
      return { text: t("overview.next.create_storefront"), href: "/dashboard/storefronts" };
    case "upgrade_to_publish":
      return { text: t("overview.next.upgrade_to_publish"), href: step.upgradeUrl };
    case "publish":
      return {
        text: t("overview.next.publish", { name: step.storefrontName }),
        href: `/dashboard/storefronts/${step.storefrontId}`,
      };
  }
}

function NextSteps({ steps, t }: { steps: NextStep[]; t: Translate }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>{t("overview.next.title")}</CardTitle>
      </CardHeader>
      <CardContent>
        {steps.length === 0 ? (
          <p className="text-sm text-muted">{t("overview.next.none")}</p>
        ) : (
          <ol className="space-y-2" data-testid="next-steps">
            {steps.map((step) => {
              const view = stepView(step, t);
              return (
                <li
                  key={`${step.kind}-${"storefrontId" in step ? step.storefrontId : ""}`}
                  className="flex flex-col gap-2 rounded-md border border-border p-3 sm:flex-row sm:items-center sm:justify-between"
                >
                  <span className="text-sm text-fg">{view.text}</span>
                  <Link
                    href={view.href}
                    className={buttonClasses("secondary", "sm", "self-start sm:self-auto")}
                  >
                    {t("overview.next.go")}
                    <span className="sr-only">: {view.text}</span>
                  </Link>
                </li>
              );
            })}
          </ol>
        )}
      </CardContent>
    </Card>
  );
}

function StorefrontsToday({
  overview,
  t,
  language,
}: {
  overview: MerchantOverviewDto;
  t: Translate;
  language: string;
}) {
  if (overview.storefronts.length === 0) return null;
  return (
    <section aria-labelledby="today-heading" className="space-y-3">
      <h2 id="today-heading" className="text-lg font-semibold text-fg">
        {t("overview.storefronts.title")}
      </h2>
      <TableContainer label={t("overview.storefronts.caption")}>
        <Table>
          <TableCaption className="sr-only">{t("overview.storefronts.caption")}</TableCaption>
          <THead>
            <Tr>
              <Th>{t("overview.storefronts.colName")}</Th>
              <Th>{t("overview.storefronts.colState")}</Th>
              <Th className="text-right">{t("overview.storefronts.colOrders")}</Th>
              <Th className="text-right">{t("overview.storefronts.colRevenue")}</Th>
            </Tr>
          </THead>
          <TBody>
            {overview.storefronts.map((storefront) => (
              <Tr key={storefront.id} data-testid="storefront-today">
                <Td>
                  <Link href={`/dashboard/storefronts/${storefront.id}`} className="font-medium">
                    {storefront.name}
                  </Link>
                  {storefront.publicUrl ? (
                    <div className="text-xs">
                      <a href={storefront.publicUrl}>{t("overview.storefronts.open")}</a>
                    </div>
                  ) : null}
                </Td>
                <Td>
                  <Badge tone={STATE_TONE[storefront.state]}>{t(`overview.state.${storefront.state}`)}</Badge>
                </Td>
                <Td className="text-right tabular-nums">{formatNumber(storefront.ordersToday, language)}</Td>
                <Td className="text-right whitespace-nowrap tabular-nums">
                  {money(storefront.revenueToday, storefront.currency, language)}
                </Td>
              </Tr>
            ))}
          </TBody>
        </Table>
      </TableContainer>
      <p className="text-sm text-muted">{t("overview.storefronts.note")}</p>
    </section>
  );
}

const TOTALS = ["delivered", "pending", "failed", "max_attempts_reached"] as const;
const TOTAL_TONE: Record<(typeof TOTALS)[number], string> = {
  delivered: "text-success",
  pending: "text-warning",
  failed: "text-danger",
  max_attempts_reached: "text-danger",
};

function Deliveries({
  overview,
  t,
  language,
}: {
  overview: DeliveryOverviewDto;
  t: Translate;
  language: Language;
}) {
  return (
    <section aria-labelledby="deliveries-heading" className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="deliveries-heading" className="text-lg font-semibold text-fg">
          {t("overview.deliveries.title")}
        </h2>
        <Link href="/dashboard/webhooks" className={buttonClasses("secondary", "sm")}>
          {t("overview.deliveries.manage")}
        </Link>
      </div>
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4" data-testid="delivery-totals">
        {TOTALS.map((status) => (
          <div key={status} className="rounded-lg border border-border bg-surface p-4">
            <dt className="text-sm text-muted">{t(`overview.deliveries.total.${status}`)}</dt>
            <dd className={`mt-1 text-2xl font-semibold tabular-nums ${TOTAL_TONE[status]}`}>
              {formatNumber(overview.totals[status], language)}
            </dd>
          </div>
        ))}
      </dl>
      {overview.endpoints.length === 0 ? (
        <EmptyState
          title={t("overview.deliveries.empty")}
          description={t("overview.deliveries.emptyBody")}
          headingLevel="h3"
        />
      ) : (
        <TableContainer label={t("overview.deliveries.caption")}>
          <Table>
            <TableCaption className="sr-only">{t("overview.deliveries.caption")}</TableCaption>
            <THead>
              <Tr>
                <Th>{t("overview.deliveries.colEndpoint")}</Th>
                <Th>{t("overview.deliveries.colHealth")}</Th>
                <Th className="text-right">{t("overview.deliveries.colDelivered")}</Th>
                <Th className="text-right">{t("overview.deliveries.colPending")}</Th>
                <Th className="text-right">{t("overview.deliveries.colFailed")}</Th>
                <Th className="text-right">{t("overview.deliveries.colGaveUp")}</Th>
              </Tr>
            </THead>
            <TBody>
              {overview.endpoints.map((endpoint) => (
                <Tr key={endpoint.id} data-testid="endpoint-health">
                  <Td className="max-w-72 font-mono text-xs break-all">{endpoint.url}</Td>
                  <Td>
                    <div className="flex flex-wrap gap-1">
                      {endpoint.isFailing ? (
                        <Badge tone="danger">{t("overview.deliveries.failing")}</Badge>
                      ) : (
                        <Badge tone="success">{t("overview.deliveries.healthy")}</Badge>
                      )}
                      {endpoint.enabled ? null : (
                        <Badge tone="warning">{t("overview.deliveries.paused")}</Badge>
                      )}
                    </div>
                    {endpoint.consecutiveFailures > 0 ? (
                      <div className="mt-1 text-xs text-muted">
                        {plural(t, language, "overview.deliveries.failures", {
                          count: endpoint.consecutiveFailures,
                        })}
                      </div>
                    ) : null}
                  </Td>
                  <Td className="text-right tabular-nums">
                    {formatNumber(endpoint.last24h.delivered, language)}
                  </Td>
                  <Td className="text-right tabular-nums">
                    {formatNumber(endpoint.last24h.pending, language)}
                  </Td>
                  <Td className="text-right tabular-nums">
                    {formatNumber(endpoint.last24h.failed, language)}
                  </Td>
                  <Td className="text-right tabular-nums">
                    {formatNumber(endpoint.last24h.max_attempts_reached, language)}
                  </Td>
                </Tr>
              ))}
            </TBody>
          </Table>
        </TableContainer>
      )}
    </section>
  );
}

/**
 * /dashboard (docs/ui.md, "Overview"): for a merchant, today's orders and revenue per storefront, their state
 * and what to do next; for an account holding developer keys, the last 24 hours of webhook deliveries by status,
 * failing endpoints first.
 */
export default async function OverviewPage() {
  const [{ account }, t, language, caller] = await Promise.all([
    requireSignedInAccount(),
    getT(),
    getLanguage(),
    getServerCaller(),
  ]);
  const [merchant, deliveries] = await Promise.all([
    caller.overview.merchant(),
    account.hasDeveloperKeys ? caller.overview.deliveries() : Promise.resolve(null),
  ]);
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current="/dashboard"
    >
      <PageHeader title={t("overview.title")} description={t("overview.description")} />
      <div className="space-y-8">
        {deliveries ? <Deliveries overview={deliveries} t={t} language={language} /> : null}
        <NextSteps steps={merchant.nextSteps} t={t} />
        <StorefrontsToday overview={merchant} t={t} language={language} />
      </div>
    </Shell>
  );
}
