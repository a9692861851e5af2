"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/app/_components/ui/button";
import { Field } from "@/app/_components/ui/field";
import { Input } from "@/app/_components/ui/input";
import { plural } from "@/app/_i18n/catalogue";
import { useLanguage, useT } from "@/app/_i18n/client";
import { catalogueError, useTRPC } from "@/app/_trpc/client";
import type { EndpointScope } from "@/server/webhooks/schema";
import { ActionPanel, type ActionResult } from "./action-panel";
import { fromDateTimeLocal } from "./format";

/**
 * Recover (dashboard only): send again every delivery of this endpoint that failed for good since a chosen time
 * (docs/webhooks.md, "Delivery log and test fires"). `defaultSince` comes from the server's render (a day back), so
 * the server's and the browser's first render agree.
 */
export function Recover({
  scope,
  endpointId,
  defaultSince,
}: {
  scope: EndpointScope;
  endpointId: string;
  defaultSince: string;
}) {
  const t = useT();
  const language = useLanguage();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [since, setSince] = useState(defaultSince);
  const [result, setResult] = useState<ActionResult | null>(null);
  const [fieldError, setFieldError] = useState<string | null>(null);
  const recover = useMutation(trpc.webhooks.recoverDeliveries.mutationOptions());
  const submit = async () => {
    setResult(null);
    setFieldError(null);
    try {
      const { recovered } = await recover.mutateAsync({
        scope,
        endpointId,
        since: fromDateTimeLocal(since) ?? since,
      });
      setResult({
        tone: "success",
        text: plural(t, language, "webhooks.recover.done", { count: recovered }),
      });
      await queryClient.invalidateQueries(trpc.webhooks.pathFilter());
    } catch (failure) {
      const error = catalogueError(failure);
      if (error?.param === "since") setFieldError(error.message);
      else setResult({ tone: "danger", text: error?.message ?? String(failure) });
    }
  };
  return (
    <ActionPanel
      id="recover"
      title={t("webhooks.recover.title")}
      description={t("webhooks.recover.description")}
      result={result}
    >
      <Field id="recover-since" label={t("webhooks.recover.since")} error={fieldError ?? undefined}>
        <Input
          type="datetime-local"
          value={since}
          onChange={(e) => setSince(e.target.value)}
          className="w-60"
        />
      </Field>
      <Button variant="secondary" onClick={submit} loading={recover.isPending}>
        {t("webhooks.recover.submit")}
      </Button>
    </ActionPanel>
  );
}
