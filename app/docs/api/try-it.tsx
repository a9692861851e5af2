"use client";

import { type FormEvent, useId, useState, useSyncExternalStore } from "react";
import { Button } from "@/app/_components/ui/button";
import { Field } from "@/app/_components/ui/field";
import { Input, Textarea } from "@/app/_components/ui/input";
import { useT } from "@/app/_i18n/client";

// The key the reader pasted, shared by every "Try it" form of the page. Memory only: never written to storage,
// gone on reload, and sent only to this server (same origin).
let pastedKey = "";
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function usePastedKey(): string {
  return useSyncExternalStore(
    subscribe,
    () => pastedKey,
    () => "",
  );
}

/** The page's one API key field for "Try it". */
export function ApiKeyField() {
  const t = useT();
  const key = usePastedKey();
  return (
    <Field id="docs-api-key" label={t("docs.api.keyLabel")} hint={t("docs.api.keyHint")}>
      <Input
        type="password"
        autoComplete="off"
        spellCheck={false}
        placeholder="mk_dev_… / mk_user_…"
        value={key}
        onChange={(event) => {
          pastedKey = event.target.value.trim();
          for (const listener of listeners) listener();
        }}
      />
    </Field>
  );
}

export type TryItParameter = { name: string; in: "path" | "query"; required: boolean };

type Answer = { status: number; requestId: string | null; body: string } | { error: string };

/**
 * Sends one operation to this server with the pasted key and shows the answer: status, request id and the body,
 * pretty-printed. Path and query parameters are fields; the body is the JSON the reader edits.
 */
export function TryIt({
  method,
  path,
  parameters,
  body,
  needsKey,
}: {
  method: string;
  path: string;
  parameters: TryItParameter[];
  body: string | null;
  needsKey: boolean;
}) {
  const t = useT();
  const id = useId();
  const key = usePastedKey();
  const [values, setValues] = useState<Record<string, string>>({});
  const [json, setJson] = useState(body ?? "");
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Answer | null>(null);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (needsKey && !key) {
      setAnswer({ error: t("docs.api.noKeyYet") });
      return;
    }
    let url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ""));
    const query = new URLSearchParams();
    for (const p of parameters)
      if (p.in === "query" && values[p.name]) query.set(p.name, values[p.name] ?? "");
    if ([...query].length > 0) url += `?${query}`;
    const headers: Record<string, string> = {};
    if (needsKey) headers.authorization = `Bearer ${key}`;
    if (body !== null) headers["content-type"] = "application/json";
    setBusy(true);
    try {
      const res = await fetch(url, {
        method,
        headers,
        body: body !== null ? json : undefined,
        cache: "no-store",
      });
      const text = await res.text();
      let shown = text;
      try {
        shown = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        // not JSON: shown as received
      }
      setAnswer({ status: res.status, requestId: res.headers.get("x-request-id"), body: shown });
    } catch (error) {
      setAnswer({
        error: t("docs.api.networkError", {
          message: error instanceof Error ? error.message : String(error),
        }),
      });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={send} className="mt-3 space-y-3" data-testid="try-it-form">
      {parameters.map((p) => (
        <Field
          key={p.name}
          id={`${id}-${p.name}`}
          label={
            <>
              <code>{p.name}</code>{" "}
              <span className="font-normal text-muted">({t("docs.api.in", { location: p.in })})</span>
            </>
          }
          optionalLabel={p.required ? undefined : t("common.optional")}
        >
          <Input
            value={values[p.name] ?? ""}
            required={p.required}
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => setValues((v) => ({ ...v, [p.name]: event.target.value }))}
          />
        </Field>
      ))}
      {body !== null ? (
        <Field id={`${id}-body`} label={t("docs.api.bodyLabel")}>
          <Textarea
            value={json}
            rows={Math.min(14, Math.max(4, json.split("\n").length + 1))}
            spellCheck={false}
            className="font-mono text-sm"
            onChange={(event) => setJson(event.target.value)}
          />
        </Field>
      ) : null}
      <Button type="submit" size="sm" loading={busy}>
        {busy ? t("docs.api.sending") : `${t("docs.api.send")}: ${method}`}
      </Button>
      <div aria-live="polite">
        {answer ? (
          "error" in answer ? (
            <p className="text-sm font-medium text-danger">{answer.error}</p>
          ) : (
            <div className="space-y-2">
              <p className="text-sm">
                <span className="font-medium">{t("docs.api.response")}:</span>{" "}
                {t("docs.api.responseStatus", { status: answer.status })}
                {answer.requestId ? <span className="text-muted"> · {answer.requestId}</span> : null}
              </p>
              {answer.body ? (
                // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
                <pre className="doc-scroll max-h-96" tabIndex={0} data-testid="try-it-response">
                  <code>{answer.body}</code>
                </pre>
              ) : null}
            </div>
          )
        ) : null}
      </div>
    </form>
  );
}
