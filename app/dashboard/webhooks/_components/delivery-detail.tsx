"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge, statusTone } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import { CopyButton } from "@/app/_components/ui/copy-button";
import { Dialog, DialogContent, DialogDescription, DialogTitle } from "@/app/_components/ui/dialog";
import { Notice } from "@/app/_components/ui/notice";
import { Skeleton } from "@/app/_components/ui/skeleton";
import { useT } from "@/app/_i18n/client";
import { catalogueError, useTRPC } from "@/app/_trpc/client";
import type { DeliveryDetailDto, EndpointScope } from "@/server/webhooks/schema";
import { formatUtc, prettyJson } from "./format";

export function isInProgress(delivery: { status: string; nextAttemptAt: string | null }): boolean {
  return delivery.status === "pending" || (delivery.status === "failed" && delivery.nextAttemptAt !== null);
}

/**
 * One delivery in a dialog: the exact request (method, URL, every header of each attempt, the body formatted with
 * its raw bytes one click away) and each attempt (time, HTTP status, duration, error, the first 2 KiB of the
 * answer), refreshed while an attempt is still to come; Resend when nothing is (docs/ui.md, "Webhooks").
 */
export function DeliveryDetailDialog({
  scope,
  endpointId,
  deliveryId,
  onClose,
  onResent,
}: {
  scope: EndpointScope;
  endpointId: string;
  deliveryId: string | null;
  onClose: () => void;
  onResent: (id: string) => void;
}) {
  const t = useT();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const input = { scope, endpointId, deliveryId: deliveryId ?? "" };
  const detail = useQuery({
    ...trpc.webhooks.getDelivery.queryOptions(input, {
      enabled: deliveryId !== null,
      refetchInterval: (query) => (query.state.data && isInProgress(query.state.data) ? 1000 : false),
    }),
  });
  const resend = useMutation(trpc.webhooks.resendDelivery.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  const doResend = async () => {
    setError(null);
    try {
      const created = await resend.mutateAsync(input);
      await queryClient.invalidateQueries(trpc.webhooks.pathFilter());
      onResent(created.id);
    } catch (failure) {
      setError(catalogueError(failure)?.message ?? String(failure));
    }
  };
  const data = detail.data;
  return (
    <Dialog open={deliveryId !== null} onOpenChange={(open) => (open ? null : onClose())}>
      <DialogContent className="max-h-[calc(100dvh-2rem)] max-w-3xl!" data-testid="delivery-detail">
        <DialogTitle className="break-all">
          {t("webhooks.delivery.title", { id: deliveryId ?? "" })}
        </DialogTitle>
        <DialogDescription className="mt-1 text-sm break-all text-muted">
          {data
            ? t("webhooks.delivery.summary", { type: data.type, eventId: data.eventId })
            : t("common.loading")}
        </DialogDescription>
        {data ? (
          <DeliveryDetailBody data={data} error={error} isResending={resend.isPending} onResend={doResend} />
        ) : detail.error ? (
          <Notice tone="danger" role="alert" className="mt-4">
            {catalogueError(detail.error)?.message ?? String(detail.error)}
          </Notice>
        ) : (
          <div className="mt-4 space-y-2">
            <Skeleton className="h-6 w-1/2" />
            <Skeleton className="h-32 w-full" />
          </div>
        )}
      </DialogContent>
    </Dialog>
  );
}

function DeliveryDetailBody({
  data,
  error,
  isResending,
  onResend,
}: {
  data: DeliveryDetailDto;
  error: string | null;
  isResending: boolean;
  onResend: () => void;
}) {
  const t = useT();
  const [showRaw, setShowRaw] = useState(false);
  const last = data.attempts.at(-1);
  const headers = last?.headers ?? [];
  return (
    <div className="mt-4 space-y-6 text-sm">
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={statusTone(data.status)}>{t(`webhooks.status.${data.status}`)}</Badge>
        {data.test ? <Badge tone="info">{t("webhooks.log.test")}</Badge> : null}
        {data.resendOf ? (
          <span className="text-muted">{t("webhooks.delivery.resendOf", { id: data.resendOf })}</span>
        ) : null}
      </div>
      {!isInProgress(data) ? (
        <div className="flex flex-wrap items-center gap-3">
          <Button variant="secondary" size="sm" loading={isResending} onClick={onResend}>
            {t("webhooks.delivery.resend")}
          </Button>
          <span className="text-muted">{t("webhooks.delivery.resendHint")}</span>
        </div>
      ) : null}
      {error ? (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      ) : null}

      <section aria-labelledby="delivery-request" className="space-y-3">
        <h3 id="delivery-request" className="text-base font-semibold">
          {t("webhooks.delivery.request")}
        </h3>
        <p className="font-mono break-all">POST {last?.url ?? ""}</p>
        {headers.length > 0 ? (
          <table className="w-full text-left text-xs" data-testid="request-headers">
            <caption className="sr-only">{t("webhooks.delivery.requestOf", { n: last?.n ?? 0 })}</caption>
            <thead>
              <tr>
                <th scope="col" className="pr-3 pb-1">
                  {t("webhooks.delivery.header")}
                </th>
                <th scope="col" className="pb-1">
                  {t("webhooks.delivery.value")}
                </th>
              </tr>
            </thead>
            <tbody className="font-mono">
              {headers.map((header) => (
                <tr key={header.name}>
                  <th scope="row" className="pr-3 align-top font-normal whitespace-nowrap">
                    {header.name}
                  </th>
                  <td className="break-all">
                    {header.value ?? <span className="text-muted">{t("webhooks.delivery.notRecorded")}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <div className="space-y-2">
          <div className="flex flex-wrap items-center gap-2">
            <h4 className="font-medium">{t("webhooks.delivery.body")}</h4>
            <Button variant="ghost" size="sm" aria-pressed={!showRaw} onClick={() => setShowRaw(false)}>
              {t("webhooks.delivery.pretty")}
            </Button>
            <Button variant="ghost" size="sm" aria-pressed={showRaw} onClick={() => setShowRaw(true)}>
              {t("webhooks.delivery.raw")}
            </Button>
            <CopyButton value={data.body} label={t("webhooks.delivery.copyBody")} />
          </div>
          <pre
            className="max-h-80 overflow-auto rounded-md border border-border bg-surface-muted p-3 font-mono text-xs whitespace-pre-wrap break-all"
            data-testid={showRaw ? "body-raw" : "body-pretty"}
          >
            {showRaw ? data.body : prettyJson(data.body)}
          </pre>
        </div>
      </section>

      <section aria-labelledby="delivery-attempts" className="space-y-3">
        <h3 id="delivery-attempts" className="text-base font-semibold">
          {t("webhooks.delivery.attempts")}
        </h3>
        {data.attempts.length === 0 ? (
          <p className="text-muted">{t("webhooks.delivery.noAttempts")}</p>
        ) : null}
        <ol className="space-y-3" data-testid="attempts">
          {data.attempts.map((attempt) => (
            <li key={attempt.n} className="rounded-md border border-border p-3">
              <h4 className="font-medium">{t("webhooks.delivery.attempt", { n: attempt.n })}</h4>
              <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
                <dt className="text-muted">{t("webhooks.delivery.at")}</dt>
                <dd>
                  <time dateTime={attempt.at}>{formatUtc(attempt.at)}</time>
                </dd>
                <dt className="text-muted">{t("webhooks.delivery.httpStatus")}</dt>
                <dd data-testid="attempt-status">{attempt.httpStatus ?? t("webhooks.delivery.none")}</dd>
                <dt className="text-muted">{t("webhooks.delivery.duration")}</dt>
                <dd>{t("webhooks.ms", { ms: attempt.durationMs })}</dd>
                <dt className="text-muted">{t("webhooks.delivery.error")}</dt>
                <dd className="break-all">{attempt.error ?? t("webhooks.delivery.none")}</dd>
                <dt className="text-muted">X-Service-Signature</dt>
                <dd className="font-mono text-xs break-all">
                  {attempt.headers.find((h) => h.name === "X-Service-Signature")?.value ??
                    t("webhooks.delivery.notRecorded")}
                </dd>
              </dl>
              <p className="mt-2 text-muted">{t("webhooks.delivery.response")}</p>
              {attempt.responseBody ? (
                <pre className="mt-1 max-h-40 overflow-auto rounded border border-border bg-surface-muted p-2 font-mono text-xs whitespace-pre-wrap break-all">
                  {attempt.responseBody}
                </pre>
              ) : (
                <p className="mt-1 text-muted">{t("webhooks.delivery.noResponse")}</p>
              )}
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}
