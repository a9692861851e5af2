import { readFileSync } from "node:fs";
import path from "node:path";
import type { Metadata } from "next";
import { Badge } from "@/app/_components/ui/badge";
import { CopyButton } from "@/app/_components/ui/copy-button";
import { TableContainer } from "@/app/_components/ui/table";
import type { Translate } from "@/app/_i18n/catalogue";
import { getLanguage, getT } from "@/app/_i18n/server";
import { EVENT_CATALOG, envelopeSchemaId } from "@/server/webhooks/event-schemas";
import { exampleEnvelope } from "@/server/webhooks/events";
import { EVENT_TYPES, type EventType } from "@/server/webhooks/schema";
import { DocsShell } from "../_components/docs-shell";
import { InlineText } from "../_components/inline";
import { SchemaView } from "../_components/schema-view";
import { apiDocument, type JsonSchema } from "../_lib/openapi";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("docs.events.title") };
}

/** The copy-paste verification code (docs/recipes/, run by server/webhooks/recipes.test.ts). */
const RECIPES = [
  { id: "verify-node", language: "Node.js", file: "verify-webhook.mjs" },
  { id: "verify-python", language: "Python", file: "verify_webhook.py" },
  { id: "verify-php", language: "PHP", file: "verify_webhook.php" },
  { id: "verify-go", language: "Go", file: "verify_webhook.go" },
] as const;

let recipes: Map<string, string> | undefined;

function recipeSource(file: string): string {
  recipes ??= new Map(
    RECIPES.map((r) => [
      r.file,
      readFileSync(path.join(process.cwd(), "docs/recipes", r.file), "utf8").trim(),
    ]),
  );
  return recipes.get(file) ?? "";
}

let examples: Map<EventType, string> | undefined;

/** One example envelope per type, made by the same code as test fires and checked by its schema; once per process. */
function exampleOf(type: EventType): string {
  examples ??= new Map(
    EVENT_TYPES.map((t) => [
      t,
      JSON.stringify(exampleEnvelope(t, new Date("2026-05-12T10:00:00.000Z")), null, 2),
    ]),
  );
  return examples.get(type) ?? "";
}

function Code({ value, label, copyLabel }: { value: string; label: string; copyLabel: string }) {
  return (
    <figure className="relative">
      <figcaption className="sr-only">{label}</figcaption>
      <div className="absolute top-2 right-2">
        <CopyButton value={value} label={copyLabel} />
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <pre className="doc-scroll pt-12" tabIndex={0}>
        <code>{value}</code>
      </pre>
    </figure>
  );
}

function SourceBadge({ type }: { type: EventType }) {
  const source = EVENT_CATALOG[type].source;
  return <Badge tone={source === "merchant" ? "info" : "neutral"}>{source}</Badge>;
}

function EventSection({
  type,
  t,
  language,
}: {
  type: EventType;
  t: Translate;
  language: "es" | "en" | "pt";
}) {
  const doc = apiDocument();
  const envelope = doc.components.schemas[envelopeSchemaId(type)] as JsonSchema;
  const data = envelope.properties?.data as JsonSchema;
  const example = exampleOf(type);
  const schema = JSON.stringify(envelope, null, 2);
  return (
    <section aria-labelledby={type} className="ref-card doc-target">
      <h3 id={type} className="ref-h">
        {type}
      </h3>
      <p className="mt-2">
        <InlineText text={EVENT_CATALOG[type].description[language]} />
      </p>
      <p className="mt-2 flex items-center gap-2 text-sm">
        <span className="text-muted">{t("docs.events.source")}</span> <SourceBadge type={type} />
      </p>
      <h4 className="ref-sub">{t("docs.events.data")}</h4>
      <SchemaView schema={data} t={t} />
      <h4 className="ref-sub">{t("docs.events.example")}</h4>
      <div className="mt-2">
        <Code
          value={example}
          label={`${type}: ${t("docs.events.example")}`}
          copyLabel={t("docs.events.copyExample")}
        />
      </div>
      <details className="mt-4">
        <summary className="cursor-pointer text-sm font-medium">{t("docs.events.schema")}</summary>
        <div className="mt-2">
          <Code
            value={schema}
            label={`${type}: ${t("docs.events.schema")}`}
            copyLabel={t("docs.events.copySchema")}
          />
        </div>
      </details>
    </section>
  );
}

/**
 * /docs/events: the event catalog (docs/webhooks.md, "Events"). Everything comes from the one contract the service
 * enforces: the envelope schemas of /v1/openapi.json (server/webhooks/event-schemas.ts), examples made by the code
 * that makes test fires, the delivery headers of the `webhooks` section, and recipes that a test runs.
 */
export default async function EventCatalogPage() {
  const [t, language] = await Promise.all([getT(), getLanguage()]);
  const doc = apiDocument();
  const envelope = doc.components.schemas[envelopeSchemaId("order.created")] as JsonSchema;
  const headers = doc.webhooks["order.created"]?.post.parameters ?? [];
  const envelopeFields = Object.entries(envelope.properties ?? {}).filter(([name]) => name !== "data");
  return (
    <DocsShell current="/docs/events">
      <div className="doc-prose">
        <h1>{t("docs.events.title")}</h1>
        <p className="text-muted">{t("docs.events.description")}</p>
        <p className="text-sm">
          {t("docs.machineReadable")}: <a href="/v1/event_types">GET /v1/event_types</a> ·{" "}
          <a href="/v1/openapi.json">/v1/openapi.json</a> (<code>webhooks</code>)
        </p>

        <ul>
          {EVENT_TYPES.map((type) => (
            <li key={type}>
              <a href={`#${type}`}>
                <code>{type}</code>
              </a>{" "}
              — <InlineText text={EVENT_CATALOG[type].description[language]} /> <SourceBadge type={type} />
            </li>
          ))}
        </ul>

        <h2 id="envelope">{t("docs.events.envelope")}</h2>
        <p>
          <InlineText text={t("docs.events.envelopeIntro")} />
        </p>
        <TableContainer label={t("docs.events.envelope")} className="border-0">
          <table>
            <thead>
              <tr>
                <th scope="col">{t("docs.events.field")}</th>
                <th scope="col">{t("docs.events.meaning")}</th>
              </tr>
            </thead>
            <tbody>
              {[...envelopeFields, ["data", { description: "" } as JsonSchema] as const].map(
                ([name, property]) => (
                  <tr key={name}>
                    <td>
                      <code>{name}</code>
                    </td>
                    <td lang="en">
                      {name === "data" ? (
                        <a href="#catalog">{t("docs.events.types")}</a>
                      ) : (
                        <InlineText text={property.description ?? ""} />
                      )}
                    </td>
                  </tr>
                ),
              )}
            </tbody>
          </table>
        </TableContainer>
        <p className="text-sm">
          <InlineText text={t("docs.events.testFires")} />
        </p>

        <h2 id="headers">{t("docs.events.headers")}</h2>
        <p>{t("docs.events.headersIntro")}</p>
        <TableContainer label={t("docs.events.headers")} className="border-0">
          <table>
            <thead>
              <tr>
                <th scope="col">{t("docs.events.header")}</th>
                <th scope="col">{t("docs.events.value")}</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>
                  <code>Content-Type</code>
                </td>
                <td>
                  <code>application/json</code>
                </td>
              </tr>
              {headers.map((header) => (
                <tr key={header.name}>
                  <td>
                    <code>{header.name}</code>
                  </td>
                  <td lang="en">
                    {header.description ? (
                      <InlineText text={header.description} />
                    ) : (
                      <code>{String(header.schema.const ?? "")}</code>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableContainer>

        <h2 id="verifying">{t("docs.events.signature")}</h2>
        <ol>
          <li>
            <InlineText text={t("docs.events.step1")} />
          </li>
          <li>
            <InlineText text={t("docs.events.step2")} />
          </li>
          <li>
            <InlineText text={t("docs.events.step3")} />
          </li>
          <li>
            <InlineText text={t("docs.events.step4")} />
          </li>
        </ol>
        {RECIPES.map((recipe) => (
          <div key={recipe.id}>
            <h3 id={recipe.id}>{t("docs.events.codeIn", { language: recipe.language })}</h3>
            <Code
              value={recipeSource(recipe.file)}
              label={t("docs.events.codeIn", { language: recipe.language })}
              copyLabel={t("docs.events.copyCode")}
            />
          </div>
        ))}

        <h2 id="catalog">{t("docs.events.types")}</h2>
        <div className="mt-4 space-y-5">
          {EVENT_TYPES.map((type) => (
            <EventSection key={type} type={type} t={t} language={language} />
          ))}
        </div>
      </div>
    </DocsShell>
  );
}
