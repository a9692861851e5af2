"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Badge, statusTone } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { Label } from "@/app/_components/ui/label";
import { Table, TableContainer, TBody, Td, THead, Th, Tr } from "@/app/_components/ui/table";
import { useT } from "@/app/_i18n/client";
import { useTRPC } from "@/app/_trpc/client";
import {
  type DeliveryLog as DeliveryLogData,
  type DeliveryStatus,
  type EndpointHealthDto,
  type EndpointScope,
  EVENT_TYPES,
  type EventType,
  ORDER_EVENT_TYPES,
} from "@/server/webhooks/schema";
import { DeliveryDetailDialog, isInProgress } from "./delivery-detail";
import { formatUtc } from "./format";
import { HealthChart } from "./health-chart";

const STATUSES: DeliveryStatus[] = ["pending", "delivered", "failed", "max_attempts_reached"];
/** While any delivery on the page still has an attempt to come, the page asks again every second. */
const LIVE_INTERVAL_MS = 1000;

const SELECT =
  "h-9 rounded-md border border-border-strong bg-surface px-2 text-sm text-fg aria-invalid:border-danger";

/**
 * The delivery log with its filters, and the endpoint's health above it: both start from the server's render
 * and refresh themselves while any delivery shown is pending or has a retry scheduled (docs/ui.md, "Webhooks").
 */
export function DeliveryLog({
  scope,
  endpointId,
  initialLog,
  initialHealth,
}: {
  scope: EndpointScope;
  endpointId: string;
  initialLog: DeliveryLogData;
  initialHealth: EndpointHealthDto;
}) {
  const t = useT();
  const trpc = useTRPC();
  const [status, setStatus] = useState<DeliveryStatus | "">("");
  const [type, setType] = useState<EventType | "">("");
  const [selected, setSelected] = useState<string | null>(null);
  const isFiltered = status !== "" || type !== "";
  const log = useQuery(
    trpc.webhooks.listDeliveries.queryOptions(
      { scope, endpointId, ...(status ? { status } : {}), ...(type ? { type } : {}) },
      {
        initialData: isFiltered ? undefined : initialLog,
        refetchInterval: (query) => (query.state.data?.data.some(isInProgress) ? LIVE_INTERVAL_MS : false),
      },
    ),
  );
  const isLive = log.data?.data.some(isInProgress) ?? false;
  const initialUpdatedAt = useRef(log.dataUpdatedAt);
  const health = useQuery(
    trpc.webhooks.health.queryOptions({ scope, endpointId }, { initialData: initialHealth }),
  );
  // The health follows the log: each time the log refreshed (a new delivery, an attempt recorded), so does it.
  const { refetch: refetchHealth } = health;
  useEffect(() => {
    if (log.dataUpdatedAt > 0 && log.dataUpdatedAt !== initialUpdatedAt.current) void refetchHealth();
  }, [log.dataUpdatedAt, refetchHealth]);
  const types = scope === "merchant" ? ORDER_EVENT_TYPES : EVENT_TYPES;
  const deliveries = log.data?.data ?? [];
  return (
    <>
      <section aria-labelledby="health-title" className="rounded-lg border border-border bg-surface p-5">
        <h2 id="health-title" className="mb-2 text-lg font-semibold">
          {t("webhooks.health.title")}
        </h2>
        <HealthChart health={health.data ?? initialHealth} />
      </section>

      <section aria-labelledby="log-title" className="space-y-3">
        <div>
          <h2 id="log-title" className="text-lg font-semibold">
            {t("webhooks.log.title")}
          </h2>
          <p className="text-sm text-muted">{t("webhooks.log.description")}</p>
          <p className="text-sm text-muted" aria-live="polite" data-testid="log-live">
            {isLive ? t("webhooks.log.live") : ""}
          </p>
        </div>
        <div className="flex flex-wrap gap-4">
          <div className="flex flex-col gap-1">
            <Label htmlFor="filter-status">{t("webhooks.log.filterStatus")}</Label>
            <select
              id="filter-status"
              className={SELECT}
              value={status}
              onChange={(e) => setStatus(e.target.value as DeliveryStatus | "")}
            >
              <option value="">{t("webhooks.log.any")}</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {t(`webhooks.status.${s}`)}
                </option>
              ))}
            </select>
          </div>
          <div className="flex flex-col gap-1">
            <Label htmlFor="filter-type">{t("webhooks.log.filterType")}</Label>
            <select
              id="filter-type"
              className={SELECT}
              value={type}
              onChange={(e) => setType(e.target.value as EventType | "")}
            >
              <option value="">{t("webhooks.log.any")}</option>
              {types.map((eventType) => (
                <option key={eventType} value={eventType}>
                  {eventType}
                </option>
              ))}
            </select>
          </div>
        </div>
        {deliveries.length === 0 ? (
          <EmptyState
            headingLevel="h3"
            title={t("webhooks.log.empty")}
            description={t("webhooks.log.emptyBody")}
          />
        ) : (
          <TableContainer label={t("webhooks.log.caption")}>
            <Table data-testid="delivery-log">
              <THead>
                <Tr>
                  <Th>{t("webhooks.log.col.event")}</Th>
                  <Th>{t("webhooks.log.col.status")}</Th>
                  <Th>{t("webhooks.log.col.attempts")}</Th>
                  <Th>{t("webhooks.log.col.http")}</Th>
                  <Th>{t("webhooks.log.col.latency")}</Th>
                  <Th>{t("webhooks.log.col.next")}</Th>
                  <Th>{t("webhooks.log.col.created")}</Th>
                  <Th>
                    <span className="sr-only">{t("webhooks.log.view")}</span>
                  </Th>
                </Tr>
              </THead>
              <TBody>
                {deliveries.map((delivery) => {
                  const last = delivery.attempts.at(-1);
                  return (
                    <Tr key={delivery.id} data-testid="delivery-row" data-status={delivery.status}>
                      <Td>
                        <span className="font-mono text-xs">{delivery.type}</span>
                        {delivery.test ? (
                          <Badge tone="info" className="ml-1">
                            {t("webhooks.log.test")}
                          </Badge>
                        ) : null}
                        {delivery.resendOf ? (
                          <Badge tone="neutral" className="ml-1">
                            {t("webhooks.log.resent")}
                          </Badge>
                        ) : null}
                        <p className="mt-0.5 font-mono text-xs break-all text-muted">{delivery.eventId}</p>
                      </Td>
                      <Td>
                        <Badge tone={statusTone(delivery.status)}>
                          {t(`webhooks.status.${delivery.status}`)}
                        </Badge>
                      </Td>
                      <Td data-testid="delivery-attempts">{delivery.attempts.length}</Td>
                      <Td data-testid="delivery-http">{last?.httpStatus ?? "—"}</Td>
                      <Td className="whitespace-nowrap">
                        {last ? t("webhooks.ms", { ms: last.durationMs }) : "—"}
                      </Td>
                      <Td className="whitespace-nowrap">
                        {delivery.nextAttemptAt ? (
                          <time dateTime={delivery.nextAttemptAt}>{formatUtc(delivery.nextAttemptAt)}</time>
                        ) : (
                          "—"
                        )}
                      </Td>
                      <Td className="whitespace-nowrap">
                        <time dateTime={delivery.createdAt}>{formatUtc(delivery.createdAt)}</time>
                      </Td>
                      <Td>
                        <Button
                          variant="secondary"
                          size="sm"
                          onClick={() => setSelected(delivery.id)}
                          aria-label={t("webhooks.log.viewLabel", { id: delivery.id })}
                        >
                          {t("webhooks.log.view")}
                        </Button>
                      </Td>
                    </Tr>
                  );
                })}
              </TBody>
            </Table>
          </TableContainer>
        )}
      </section>
      <DeliveryDetailDialog
        scope={scope}
        endpointId={endpointId}
        deliveryId={selected}
        onClose={() => setSelected(null)}
        onResent={(id) => setSelected(id)}
      />
    </>
  );
}
