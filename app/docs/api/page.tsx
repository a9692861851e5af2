import type { Metadata } from "next";
import Link from "next/link";
import { Badge, type BadgeTone } from "@/app/_components/ui/badge";
import type { PlainMessageKey, Translate } from "@/app/_i18n/catalogue";
import { getT } from "@/app/_i18n/server";
import { env } from "@/server/env";
import { DocsShell } from "../_components/docs-shell";
import { InlineText } from "../_components/inline";
import { SchemaView, TypeLabel } from "../_components/schema-view";
import type { Heading } from "../_lib/markdown";
import {
  type ApiDocument,
  apiDocument,
  exampleFor,
  type Operation,
  operationAnchor,
  operationsByTag,
  schemaAnchor,
} from "../_lib/openapi";
import { ApiKeyField, TryIt, type TryItParameter } from "./try-it";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("docs.api.title") };
}

const METHOD_TONES: Record<string, BadgeTone> = {
  GET: "info",
  POST: "success",
  PATCH: "warning",
  PUT: "warning",
  DELETE: "danger",
};

const TAG_KEYS: Record<string, PlainMessageKey> = {
  accounts: "docs.api.tag.accounts",
  storefronts: "docs.api.tag.storefronts",
  products: "docs.api.tag.products",
  webhooks: "docs.api.tag.webhooks",
  orders: "docs.api.tag.orders",
  meta: "docs.api.tag.meta",
};

function tagLabel(t: Translate, tag: string): string {
  const key = TAG_KEYS[tag];
  return key ? t(key) : tag;
}

function MethodBadge({ method }: { method: string }) {
  return (
    <Badge tone={METHOD_TONES[method] ?? "neutral"} className="font-mono">
      {method}
    </Badge>
  );
}

function OperationSection({ operation, doc, t }: { operation: Operation; doc: ApiDocument; t: Translate }) {
  const needsKey = operation.security.length > 0;
  const scopes = operation.security[0] ? (Object.values(operation.security[0])[0] ?? []) : [];
  const parameters = operation.parameters;
  const bodySchema = operation.requestBody?.content["application/json"]?.schema;
  // A body that is not JSON (an upload) is named by its media types.
  const bodyMediaTypes = bodySchema ? [] : Object.keys(operation.requestBody?.content ?? {});
  const success = Object.entries(operation.responses).filter(([status]) => Number(status) < 400);
  const errors = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400);
  const tryParameters: TryItParameter[] = parameters
    .filter((p): p is typeof p & { in: "path" | "query" } => p.in === "path" || p.in === "query")
    .map((p) => ({ name: p.name, in: p.in, required: p.required === true }));
  const example = bodySchema ? JSON.stringify(exampleFor(bodySchema, doc), null, 2) : null;
  const anchor = operationAnchor(operation.operationId);
  return (
    <section
      aria-labelledby={anchor}
      className="ref-card doc-target"
      data-testid={`operation-${operation.operationId}`}
    >
      <h3 id={anchor} className="op-h">
        <MethodBadge method={operation.method} />
        <code>{operation.path}</code>
      </h3>
      {operation.summary ? (
        <p className="ref-small">
          <InlineText text={operation.summary} />
        </p>
      ) : null}
      <p className="ref-small muted">
        <code>{operation.operationId}</code> ·{" "}
        {!needsKey ? (
          t("docs.api.noKey")
        ) : scopes.length === 0 ? (
          t("docs.api.anyKey")
        ) : (
          <>
            {t("docs.api.scopes")} <code>{scopes.join(", ")}</code>
          </>
        )}
      </p>

      {parameters.length > 0 ? (
        <>
          <h4 className="ref-sub">{t("docs.api.parameters")}</h4>
          <ul className="fields">
            {parameters.map((p) => (
              <li key={`${p.in}-${p.name}`}>
                <div className="fh">
                  <code className="fn">{p.name}</code>
                  <span className="ft">
                    {t("docs.api.in", { location: p.in })} · <TypeLabel schema={p.schema} t={t} />
                  </span>
                  {p.required ? <span className="fr">{t("docs.api.required")}</span> : null}
                </div>
                {p.description ? (
                  <p className="fd">
                    <InlineText text={p.description} />
                  </p>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}

      {bodyMediaTypes.length > 0 ? (
        <>
          <h4 className="ref-sub">{t("docs.api.requestBody")}</h4>
          <p className="ref-small">
            {bodyMediaTypes.map((type, i) => (
              <span key={type}>
                {i > 0 ? ", " : null}
                <code>{type}</code>
              </span>
            ))}
          </p>
        </>
      ) : null}

      {bodySchema ? (
        <>
          <h4 className="ref-sub">{t("docs.api.requestBody")}</h4>
          {bodySchema.$ref ? (
            <p className="ref-small">
              <TypeLabel schema={bodySchema} t={t} />
            </p>
          ) : (
            <SchemaView schema={bodySchema} t={t} />
          )}
        </>
      ) : null}

      <h4 className="ref-sub">{t("docs.api.responses")}</h4>
      <ul className="ref-list">
        {success.map(([status, response]) => {
          const schema = response.content?.["application/json"]?.schema;
          return (
            <li key={status}>
              <b>{status}</b> {response.description}
              {schema ? (
                <>
                  {" · "}
                  <TypeLabel schema={schema} t={t} />
                </>
              ) : null}
            </li>
          );
        })}
      </ul>
      {errors.length > 0 ? (
        <>
          <h4 className="ref-sub">{t("docs.api.errorCodes")}</h4>
          <ul className="ref-list">
            {errors.map(([status, response]) => (
              <li key={status}>
                <b>{status}</b>{" "}
                {(response["x-error-codes"] ?? []).map((code, i) => (
                  <span key={code}>
                    {i > 0 ? ", " : null}
                    <a href={`/docs/errors#${code}`}>{code}</a>
                  </span>
                ))}
              </li>
            ))}
          </ul>
        </>
      ) : null}

      <details className="try">
        <summary>{t("docs.api.tryIt")}</summary>
        <TryIt
          method={operation.method}
          path={operation.path}
          parameters={tryParameters}
          body={example}
          needsKey={needsKey}
        />
      </details>
    </section>
  );
}

/**
 * /docs/api: the API reference, rendered on the server from the document /v1/openapi.json serves (our own
 * compact renderer: no outside request, no inline script; docs/ui.md, "Developer documentation"). Operations by
 * tag with their scopes, parameters, bodies, responses and error codes (linked to /docs/errors), the schemas, and
 * a "Try it" form per operation that calls this server with a key the reader pastes.
 */
export default async function ApiReferencePage() {
  const t = await getT();
  const doc = apiDocument();
  const groups = operationsByTag(doc);
  const schemaNames = Object.keys(doc.components.schemas);
  const headings: Heading[] = [
    { id: "authentication", text: t("docs.api.auth"), depth: 2 },
    ...groups.flatMap(({ tag }) => [{ id: `tag-${tag}`, text: tagLabel(t, tag), depth: 2 }]),
    { id: "schemas", text: t("docs.api.schemas"), depth: 2 },
  ];
  const baseUrl = new URL("/v1", env().APP_URL).toString();
  return (
    <DocsShell current="/docs/api" headings={headings}>
      <div className="doc-prose">
        <h1>{t("docs.api.title")}</h1>
        <p className="text-muted">{t("docs.api.description")}</p>
        <p className="text-sm">
          {doc.info.title} {doc.info.version} · <a href="/v1/openapi.json">/v1/openapi.json</a> ·{" "}
          <Link href="/docs/api/guide">{t("docs.guide.api")}</Link>
        </p>
        <dl className="text-sm">
          <dt className="font-medium">{t("docs.api.baseUrl")}</dt>
          <dd>
            <code>{baseUrl}</code>
          </dd>
        </dl>

        <h2 id="authentication">{t("docs.api.auth")}</h2>
        <ul>
          <li>
            <InlineText text={t("docs.api.authBearer")} />
          </li>
          <li>
            <InlineText text={t("docs.api.authHeader")} />
          </li>
        </ul>
        <p>
          <InlineText text={t("docs.api.authKeys")} />
        </p>
        <p>
          <Link href="/docs/errors">{t("docs.api.errorsAt")}</Link>{" "}
          <Link href="/docs/events">{t("docs.api.eventsAt")}</Link>
        </p>
        <div className="rounded-lg border border-border bg-surface p-4">
          <ApiKeyField />
        </div>

        {groups.map(({ tag, operations }) => (
          <section key={tag} aria-labelledby={`tag-${tag}`}>
            <h2 id={`tag-${tag}`}>{tagLabel(t, tag)}</h2>
            <ul className="mt-3 space-y-1 text-sm">
              {operations.map((operation) => (
                <li key={operation.operationId} className="flex flex-wrap items-center gap-2">
                  <MethodBadge method={operation.method} />
                  <a href={`#${operationAnchor(operation.operationId)}`} className="font-mono break-all">
                    {operation.path}
                  </a>
                </li>
              ))}
            </ul>
            <div className="mt-4 space-y-5">
              {operations.map((operation) => (
                <OperationSection key={operation.operationId} operation={operation} doc={doc} t={t} />
              ))}
            </div>
          </section>
        ))}

        <h2 id="schemas">{t("docs.api.schemas")}</h2>
        <div className="mt-4 space-y-5">
          {schemaNames.map((name) => {
            const schema = doc.components.schemas[name] ?? {};
            return (
              <section key={name} aria-labelledby={schemaAnchor(name)} className="ref-card doc-target">
                <h3 id={schemaAnchor(name)} className="ref-h">
                  {name}
                </h3>
                {schema.description ? (
                  <p className="ref-small muted">
                    <InlineText text={schema.description} />
                  </p>
                ) : null}
                <SchemaView schema={schema} t={t} />
              </section>
            );
          })}
        </div>
      </div>
    </DocsShell>
  );
}
