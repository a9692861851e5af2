import type { Metadata } from "next";
import Link from "next/link";
import { Badge, statusTone } from "@/app/_components/ui/badge";
import { buttonClasses } from "@/app/_components/ui/button";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Table, TableContainer, TBody, Td, THead, Th, Tr } from "@/app/_components/ui/table";
import { getT } from "@/app/_i18n/server";
import { getServerCaller } from "@/app/_trpc/server";
import { docsHref } from "@/app/docs/_lib/links";
import { eventTypesFor, MAX_ENDPOINTS_PER_ACCOUNT } from "@/server/webhooks/endpoints";
import type { EndpointOverviewDto } from "@/server/webhooks/schema";
import { Shell } from "../_components/shell";
import { requireSignedInAccount } from "../_lib/session";
import { endpointHref, formatUtc, successRate } from "./_components/format";
import { ListenSessions } from "./_components/listen-sessions";
import { SuccessBar } from "./_components/success-bar";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("webhooks.title") };
}

/**
 * /dashboard/webhooks: every endpoint of the account (merchant ones; developer ones too while it holds developer
 * keys) with its state, last delivery, failures in a row and the last 24 hours' success rate (docs/ui.md,
 * "Webhooks").
 */
export default async function WebhooksPage() {
  const [{ account }, t, caller] = await Promise.all([requireSignedInAccount(), getT(), getServerCaller()]);
  const [merchant, developer, listenSessions] = await Promise.all([
    caller.webhooks.overview({ scope: "merchant" }),
    account.hasDeveloperKeys ? caller.webhooks.overview({ scope: "developer" }) : { data: [] },
    caller.listen.list(),
  ]);
  const endpoints: EndpointOverviewDto[] = [...merchant.data, ...developer.data];
  const isFull = endpoints.length >= MAX_ENDPOINTS_PER_ACCOUNT;
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current="/dashboard/webhooks"
    >
      <PageHeader
        title={t("webhooks.title")}
        description={t("webhooks.description")}
        actions={
          <>
            <a href={docsHref("/events")} className={buttonClasses("secondary")}>
              {t("docs.nav.events")}
            </a>
            {isFull ? null : (
              <Link href="/dashboard/webhooks/new" className={buttonClasses("primary")}>
                {t("webhooks.add")}
              </Link>
            )}
          </>
        }
      />
      {endpoints.length === 0 ? (
        <EmptyState
          title={t("webhooks.empty")}
          description={t("webhooks.emptyBody")}
          action={
            <Link href="/dashboard/webhooks/new" className={buttonClasses("primary")}>
              {t("webhooks.add")}
            </Link>
          }
        />
      ) : (
        <>
          <TableContainer label={t("webhooks.caption")}>
            <Table data-testid="endpoints">
              <THead>
                <Tr>
                  <Th>{t("webhooks.col.url")}</Th>
                  <Th>{t("webhooks.col.scope")}</Th>
                  <Th>{t("webhooks.col.events")}</Th>
                  <Th>{t("webhooks.col.state")}</Th>
                  <Th>{t("webhooks.col.lastDelivery")}</Th>
                  <Th>{t("webhooks.col.failures")}</Th>
                  <Th>{t("webhooks.col.successRate")}</Th>
                </Tr>
              </THead>
              <TBody>
                {endpoints.map((endpoint) => {
                  const allEvents = eventTypesFor(endpoint.scope);
                  const isAll = allEvents.every((type) => endpoint.subscribedEvents.includes(type));
                  const rate = successRate(endpoint.last24h.attempts, endpoint.last24h.successes);
                  return (
                    <Tr key={endpoint.endpointId} data-testid={`endpoint-${endpoint.endpointId}`}>
                      <Td className="max-w-72">
                        <Link href={endpointHref(endpoint)} className="font-medium break-all">
                          {endpoint.url}
                        </Link>
                        {endpoint.description ? (
                          <p className="mt-0.5 text-xs break-words text-muted">{endpoint.description}</p>
                        ) : null}
                      </Td>
                      <Td>
                        <Badge tone={endpoint.scope === "developer" ? "info" : "neutral"}>
                          {t(`webhooks.scope.${endpoint.scope}`)}
                        </Badge>
                      </Td>
                      <Td className="text-xs">
                        {isAll ? (
                          t("webhooks.allEvents", { count: allEvents.length })
                        ) : (
                          <ul>
                            {endpoint.subscribedEvents.map((type) => (
                              <li key={type} className="font-mono whitespace-nowrap">
                                {type}
                              </li>
                            ))}
                          </ul>
                        )}
                      </Td>
                      <Td>
                        <Badge tone={statusTone(endpoint.enabled ? "enabled" : "paused")}>
                          {t(endpoint.enabled ? "webhooks.state.enabled" : "webhooks.state.paused")}
                        </Badge>
                      </Td>
                      <Td className="whitespace-nowrap">
                        {endpoint.lastDeliveryStatus ? (
                          <>
                            <Badge tone={statusTone(endpoint.lastDeliveryStatus)}>
                              {t(`webhooks.last.${endpoint.lastDeliveryStatus}`)}
                            </Badge>
                            <p className="mt-0.5 text-xs text-muted">
                              <time dateTime={endpoint.lastDeliveryAt ?? undefined}>
                                {formatUtc(endpoint.lastDeliveryAt)}
                              </time>
                            </p>
                          </>
                        ) : (
                          <span className="text-muted">{t("webhooks.last.none")}</span>
                        )}
                      </Td>
                      <Td className={endpoint.consecutiveFailures > 0 ? "font-semibold text-danger" : ""}>
                        {endpoint.consecutiveFailures}
                      </Td>
                      <Td>
                        <SuccessBar
                          attempts={endpoint.last24h.attempts}
                          successes={endpoint.last24h.successes}
                          label={t("webhooks.rate.value", {
                            rate: rate ?? 0,
                            attempts: endpoint.last24h.attempts,
                          })}
                          emptyLabel={t("webhooks.rate.none")}
                        />
                      </Td>
                    </Tr>
                  );
                })}
              </TBody>
            </Table>
          </TableContainer>
          <p className="mt-3 text-sm text-muted">{t("webhooks.limitNote", { count: endpoints.length })}</p>
        </>
      )}
      <ListenSessions initial={listenSessions} />
    </Shell>
  );
}
