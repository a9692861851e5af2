"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/app/_components/ui/button";
import { Label } from "@/app/_components/ui/label";
import { useT } from "@/app/_i18n/client";
import { catalogueError, useTRPC } from "@/app/_trpc/client";
import { type EndpointScope, EVENT_TYPES, type EventType, ORDER_EVENT_TYPES } from "@/server/webhooks/schema";
import { ActionPanel, type ActionResult } from "./action-panel";

/**
 * Send test event: pick a type, see the sample payload, send. The log refetches at once and keeps refreshing while
 * the new delivery is pending, so its result arrives without a reload (docs/ui.md, "Webhooks").
 */
export function TestEvent({ scope, endpointId }: { scope: EndpointScope; endpointId: string }) {
  const t = useT();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const types = scope === "merchant" ? ORDER_EVENT_TYPES : EVENT_TYPES;
  const [type, setType] = useState<EventType>(types[0]);
  const preview = useQuery(
    trpc.webhooks.previewTestEvent.queryOptions({ scope, type }, { staleTime: Infinity }),
  );
  const send = useMutation(trpc.webhooks.sendTestEvent.mutationOptions());
  const [result, setResult] = useState<ActionResult | null>(null);
  const submit = async () => {
    setResult(null);
    try {
      const { eventId } = await send.mutateAsync({ scope, endpointId, type });
      setResult({ tone: "success", text: t("webhooks.test.sent", { eventId }) });
      await queryClient.invalidateQueries(trpc.webhooks.listDeliveries.pathFilter());
    } catch (failure) {
      setResult({ tone: "danger", text: catalogueError(failure)?.message ?? String(failure) });
    }
  };
  return (
    <ActionPanel
      id="test"
      title={t("webhooks.test.title")}
      description={t("webhooks.test.description")}
      result={result}
      after={
        <details>
          <summary className="cursor-pointer text-sm text-primary">{t("webhooks.test.preview")}</summary>
          <pre
            className="mt-2 max-h-72 overflow-auto rounded-md border border-border bg-surface-muted p-3 font-mono text-xs whitespace-pre-wrap break-all"
            data-testid="test-preview"
          >
            {preview.data?.envelope ?? t("common.loading")}
          </pre>
        </details>
      }
    >
      <div className="flex flex-col gap-1">
        <Label htmlFor="test-type">{t("webhooks.test.type")}</Label>
        <select
          id="test-type"
          className="h-10 rounded-md border border-border-strong bg-surface px-2 text-sm text-fg"
          value={type}
          onChange={(e) => setType(e.target.value as EventType)}
        >
          {types.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      </div>
      <Button onClick={submit} loading={send.isPending}>
        {t("webhooks.test.send")}
      </Button>
    </ActionPanel>
  );
}
