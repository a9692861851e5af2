"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmDialog } from "@/app/_components/ui/alert-dialog";
import { Badge, statusTone } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import { CodeBlock } from "@/app/_components/ui/code-block";
import { Notice } from "@/app/_components/ui/notice";
import { useT } from "@/app/_i18n/client";
import { catalogueError, useTRPC } from "@/app/_trpc/client";
import type { WebhookEndpointDto } from "@/server/webhooks/schema";
import { EndpointForm } from "./endpoint-form";
import { formatUtc } from "./format";

/**
 * The endpoint's own facts and actions: edit (URL, description, events), pause/resume, rotate the secret (the new
 * one shown once) and delete, both behind a confirmation (docs/ui.md, "Webhooks").
 */
export function EndpointActions({ initial }: { initial: WebhookEndpointDto }) {
  const t = useT();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const ref = { scope: initial.scope, endpointId: initial.endpointId };
  const endpoint =
    useQuery(trpc.webhooks.getEndpoint.queryOptions(ref, { initialData: initial })).data ?? initial;
  const [isEditing, setIsEditing] = useState(false);
  const [secret, setSecret] = useState<{ value: string; version: number } | null>(null);
  const [notice, setNotice] = useState<{ tone: "success" | "danger"; text: string } | null>(null);
  const update = useMutation(trpc.webhooks.updateEndpoint.mutationOptions());
  const rotate = useMutation(trpc.webhooks.rotateSecret.mutationOptions());
  const remove = useMutation(trpc.webhooks.deleteEndpoint.mutationOptions());

  const refresh = (saved: WebhookEndpointDto) => {
    queryClient.setQueryData(trpc.webhooks.getEndpoint.queryKey(ref), saved);
    void queryClient.invalidateQueries(trpc.webhooks.pathFilter());
  };
  const run = async (work: () => Promise<void>) => {
    setNotice(null);
    try {
      await work();
    } catch (failure) {
      setNotice({ tone: "danger", text: catalogueError(failure)?.message ?? String(failure) });
    }
  };

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={endpoint.scope === "developer" ? "info" : "neutral"}>
          {t(`webhooks.scope.${endpoint.scope}`)}
        </Badge>
        <Badge tone={statusTone(endpoint.enabled ? "enabled" : "paused")} data-testid="endpoint-state">
          {t(endpoint.enabled ? "webhooks.state.enabled" : "webhooks.state.paused")}
        </Badge>
      </div>
      <div className="flex flex-wrap gap-2">
        <Button
          variant="secondary"
          size="sm"
          aria-expanded={isEditing}
          onClick={() => setIsEditing(!isEditing)}
        >
          {isEditing ? t("webhooks.endpoint.cancelEdit") : t("webhooks.endpoint.edit")}
        </Button>
        <Button
          variant="secondary"
          size="sm"
          loading={update.isPending}
          onClick={() =>
            run(async () =>
              refresh(await update.mutateAsync({ ...ref, patch: { enabled: !endpoint.enabled } })),
            )
          }
        >
          {endpoint.enabled ? t("webhooks.endpoint.pause") : t("webhooks.endpoint.resume")}
        </Button>
        <ConfirmDialog
          trigger={
            <Button variant="secondary" size="sm" loading={rotate.isPending}>
              {t("webhooks.endpoint.rotate")}
            </Button>
          }
          title={t("webhooks.endpoint.rotateTitle")}
          description={t("webhooks.endpoint.rotateBody")}
          cancelLabel={t("common.cancel")}
          actionLabel={t("webhooks.endpoint.rotate")}
          onAction={() =>
            run(async () => {
              const rotated = await rotate.mutateAsync(ref);
              setSecret({ value: rotated.signingSecret, version: rotated.signingSecretVersion });
              const { signingSecret: _secret, ...withoutSecret } = rotated;
              refresh(withoutSecret);
            })
          }
        />
        <ConfirmDialog
          trigger={
            <Button variant="danger" size="sm" loading={remove.isPending}>
              {t("webhooks.endpoint.delete")}
            </Button>
          }
          title={t("webhooks.endpoint.deleteTitle")}
          description={t("webhooks.endpoint.deleteBody")}
          cancelLabel={t("common.cancel")}
          actionLabel={t("webhooks.endpoint.delete")}
          onAction={() =>
            run(async () => {
              await remove.mutateAsync(ref);
              router.push("/dashboard/webhooks");
              router.refresh();
            })
          }
        />
      </div>
      {notice ? (
        <Notice tone={notice.tone} role={notice.tone === "danger" ? "alert" : "status"}>
          {notice.text}
        </Notice>
      ) : null}
      {secret ? (
        <div className="space-y-2" data-testid="rotated-secret">
          <Notice tone="success" role="status">
            {t("webhooks.endpoint.rotated", { version: secret.version })}
          </Notice>
          <CodeBlock
            value={secret.value}
            label={t("webhooks.secret.label")}
            copyLabel={t("webhooks.secret.copy")}
          />
        </div>
      ) : null}
      {!endpoint.enabled ? <Notice tone="info">{t("webhooks.endpoint.paused")}</Notice> : null}
      {isEditing ? (
        <EndpointForm
          endpoint={endpoint}
          onSaved={(saved) => {
            refresh(saved);
            setIsEditing(false);
            setNotice({ tone: "success", text: t("webhooks.endpoint.saved") });
          }}
        />
      ) : null}
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-muted">{t("webhooks.endpoint.id")}</dt>
        <dd className="font-mono break-all">{endpoint.endpointId}</dd>
        <dt className="text-muted">{t("webhooks.col.events")}</dt>
        <dd className="font-mono break-words">{endpoint.subscribedEvents.join(", ")}</dd>
        <dt className="text-muted">{t("webhooks.endpoint.secretVersion")}</dt>
        <dd data-testid="secret-version">{endpoint.signingSecretVersion}</dd>
        <dt className="text-muted">{t("webhooks.col.failures")}</dt>
        <dd>{endpoint.consecutiveFailures}</dd>
        <dt className="text-muted">{t("webhooks.endpoint.created")}</dt>
        <dd>
          <time dateTime={endpoint.createdAt}>{formatUtc(endpoint.createdAt)}</time>
        </dd>
      </dl>
    </div>
  );
}
