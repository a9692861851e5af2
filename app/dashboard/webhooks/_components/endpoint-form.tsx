"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useState } from "react";
import { Button, buttonClasses } from "@/app/_components/ui/button";
import { Checkbox } from "@/app/_components/ui/checkbox";
import { CodeBlock } from "@/app/_components/ui/code-block";
import { Field } from "@/app/_components/ui/field";
import { Input } from "@/app/_components/ui/input";
import { Label } from "@/app/_components/ui/label";
import { Notice } from "@/app/_components/ui/notice";
import { useT } from "@/app/_i18n/client";
import { catalogueError, useTRPC } from "@/app/_trpc/client";
import type { ErrorObject } from "@/server/errors";
import {
  type EndpointScope,
  EVENT_TYPES,
  type EventType,
  ORDER_EVENT_TYPES,
  type WebhookEndpointDto,
  type WebhookEndpointWithSecretDto,
} from "@/server/webhooks/schema";
import { endpointHref } from "./format";

function eventsOf(scope: EndpointScope): readonly EventType[] {
  return scope === "merchant" ? ORDER_EVENT_TYPES : EVENT_TYPES;
}

/**
 * Which field a catalogue error belongs to: the URL rules and the 16-endpoint limit show on the URL field (the
 * limit has no `param` of its own), the event list on the events, anything else above the form.
 */
function fieldOf(error: ErrorObject): "url" | "description" | "events" | null {
  if (error.code === "webhook_endpoint_limit_reached") return "url";
  const param = error.param ?? "";
  if (param.endsWith("url")) return "url";
  if (param.endsWith("description")) return "description";
  if (param.includes("subscribedEvents")) return "events";
  return null;
}

/**
 * Create (no `endpoint`) or edit an endpoint: URL, description, events; the scope is chosen at creation only and
 * only by accounts that hold developer keys. After a create the signing secret is shown this once, with a copy
 * button (docs/ui.md, "Webhooks").
 */
export function EndpointForm({
  endpoint,
  initialScope = "merchant",
  canChooseScope = false,
  onSaved,
}: {
  endpoint?: WebhookEndpointDto;
  initialScope?: EndpointScope;
  canChooseScope?: boolean;
  onSaved?: (endpoint: WebhookEndpointDto) => void;
}) {
  const t = useT();
  const trpc = useTRPC();
  const [scope, setScope] = useState<EndpointScope>(endpoint?.scope ?? initialScope);
  const [url, setUrl] = useState(endpoint?.url ?? "");
  const [description, setDescription] = useState(endpoint?.description ?? "");
  const [events, setEvents] = useState<EventType[]>(endpoint?.subscribedEvents ?? [...eventsOf(scope)]);
  const [error, setError] = useState<ErrorObject | null>(null);
  const [created, setCreated] = useState<WebhookEndpointWithSecretDto | null>(null);
  const create = useMutation(trpc.webhooks.createEndpoint.mutationOptions());
  const update = useMutation(trpc.webhooks.updateEndpoint.mutationOptions());
  const isBusy = create.isPending || update.isPending;

  if (created) {
    return (
      <div className="space-y-4" data-testid="endpoint-created">
        <Notice tone="success" role="status">
          <p className="font-semibold">{t("webhooks.created.title")}</p>
          <p>{t("webhooks.created.body")}</p>
        </Notice>
        <CodeBlock
          value={created.signingSecret}
          label={t("webhooks.secret.label")}
          copyLabel={t("webhooks.secret.copy")}
        />
        <Link href={endpointHref(created)} className={buttonClasses("primary")}>
          {t("webhooks.created.open")}
        </Link>
      </div>
    );
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      if (endpoint) {
        const saved = await update.mutateAsync({
          scope: endpoint.scope,
          endpointId: endpoint.endpointId,
          patch: { url, description, subscribedEvents: events },
        });
        onSaved?.(saved);
      } else {
        setCreated(
          await create.mutateAsync({ scope, endpoint: { url, description, subscribedEvents: events } }),
        );
      }
    } catch (failure) {
      setError(
        catalogueError(failure) ?? ({ code: "internal_error", message: String(failure) } as ErrorObject),
      );
    }
  };

  const field = error ? fieldOf(error) : null;
  const chooseScope = (next: EndpointScope) => {
    setScope(next);
    setEvents([...eventsOf(next)]);
  };
  return (
    <form onSubmit={submit} className="max-w-xl space-y-5" noValidate>
      {error && field === null ? (
        <Notice tone="danger" role="alert">
          {error.message}
        </Notice>
      ) : null}
      {canChooseScope && !endpoint ? (
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium text-fg">{t("webhooks.form.scope")}</legend>
          {(["merchant", "developer"] as const).map((option) => (
            <div key={option} className="flex items-start gap-2">
              <input
                type="radio"
                id={`scope-${option}`}
                name="scope"
                value={option}
                checked={scope === option}
                onChange={() => chooseScope(option)}
                className="mt-1 size-4 accent-(--primary)"
              />
              <Label htmlFor={`scope-${option}`} className="font-normal">
                <span className="font-medium">{t(`webhooks.scope.${option}`)}</span>
                <span className="block text-sm text-muted">{t(`webhooks.scope.${option}Hint`)}</span>
              </Label>
            </div>
          ))}
        </fieldset>
      ) : null}
      <Field
        id="endpoint-url"
        label={t("webhooks.form.url")}
        hint={t("webhooks.form.urlHint")}
        error={field === "url" ? error?.message : undefined}
      >
        <Input
          type="url"
          inputMode="url"
          autoComplete="off"
          required
          value={url}
          placeholder="https://example.com/webhooks/marea"
          onChange={(e) => setUrl(e.target.value)}
        />
      </Field>
      <Field
        id="endpoint-description"
        label={t("webhooks.form.description")}
        optionalLabel={t("common.optional")}
        error={field === "description" ? error?.message : undefined}
      >
        <Input value={description} maxLength={500} onChange={(e) => setDescription(e.target.value)} />
      </Field>
      <fieldset
        className="space-y-2"
        aria-describedby={field === "events" ? "endpoint-events-error" : "endpoint-events-hint"}
      >
        <legend className="text-sm font-medium text-fg">{t("webhooks.form.events")}</legend>
        <p id="endpoint-events-hint" className="text-sm text-muted">
          {t("webhooks.form.eventsHint")}
        </p>
        {eventsOf(scope).map((type) => (
          <div key={type} className="flex items-center gap-2">
            <Checkbox
              id={`event-${type}`}
              checked={events.includes(type)}
              onCheckedChange={(checked) =>
                setEvents((current) =>
                  checked === true ? [...current, type] : current.filter((e) => e !== type),
                )
              }
            />
            <Label htmlFor={`event-${type}`} className="font-mono font-normal">
              {type}
            </Label>
          </div>
        ))}
        {field === "events" ? (
          <p id="endpoint-events-error" className="text-sm font-medium text-danger">
            {error?.message}
          </p>
        ) : null}
      </fieldset>
      <Button type="submit" loading={isBusy}>
        {endpoint ? t("webhooks.form.save") : t("webhooks.form.create")}
      </Button>
    </form>
  );
}
