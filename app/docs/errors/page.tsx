import type { Metadata } from "next";
import { Badge } from "@/app/_components/ui/badge";
import { getLanguage, getT } from "@/app/_i18n/server";
import { ERROR_REFERENCE } from "@/server/error-reference";
import { ERROR_CATALOGUE, type ErrorCode } from "@/server/errors";
import { DocsShell } from "../_components/docs-shell";
import { InlineText } from "../_components/inline";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("docs.errors.title") };
}

/** The catalogue's codes grouped by HTTP status, statuses ascending, codes in catalogue order. */
function codesByStatus(): Array<[number, ErrorCode[]]> {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(ERROR_CATALOGUE) as ErrorCode[]) {
    const status = ERROR_CATALOGUE[code].status;
    groups.set(status, [...(groups.get(status) ?? []), code]);
  }
  return [...groups].sort(([a], [b]) => a - b);
}

const ENVELOPE_EXAMPLE = `{
  "error": {
    "type": "not_found",
    "code": "storefront_not_found",
    "message": "No storefront was found with that id.",
    "doc": "https://…/docs/errors#storefront_not_found",
    "param": "storefrontId",
    "requestId": "req_01jv…",
    "recoverable": false,
    "retryAfterMs": null,
    "nextActions": [],
    "upgrade": null
  }
}`;

/**
 * /docs/errors: every code of the one catalogue (server/errors.ts) with its type, status and message, and when it
 * happens and what to do (server/error-reference.ts), each at `#<code>`: where every error's `doc` link points
 * (docs/api.md, "Errors"). Generated from the catalogue, so it cannot drift from what the doors answer.
 */
export default async function ErrorReferencePage() {
  const [t, language] = await Promise.all([getT(), getLanguage()]);
  const groups = codesByStatus();
  const count = Object.keys(ERROR_CATALOGUE).length;
  return (
    <DocsShell current="/docs/errors">
      <div className="doc-prose">
        <h1>{t("docs.errors.title")}</h1>
        <p className="text-muted">{t("docs.errors.description")}</p>
        <p>
          <InlineText text={t("docs.errors.envelope")} />
        </p>
        <figure>
          <figcaption className="sr-only">{t("docs.errors.envelopeLabel")}</figcaption>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
          <pre className="doc-scroll" tabIndex={0}>
            <code>{ENVELOPE_EXAMPLE}</code>
          </pre>
        </figure>

        <nav aria-labelledby="by-status">
          <h2 id="by-status">{t("docs.errors.byStatus")}</h2>
          <p className="text-sm text-muted">{t("docs.errors.count", { count })}</p>
          <dl className="mt-3 space-y-2">
            {groups.map(([status, codes]) => (
              <div key={status} className="flex flex-col gap-1 sm:flex-row sm:gap-4">
                <dt className="w-20 shrink-0 font-medium">
                  <a href={`#status-${status}`}>HTTP {status}</a>
                </dt>
                <dd className="flex flex-wrap gap-x-3 gap-y-1">
                  {codes.map((code) => (
                    <a key={code} href={`#${code}`} className="font-mono text-sm">
                      {code}
                    </a>
                  ))}
                </dd>
              </div>
            ))}
          </dl>
        </nav>

        {groups.map(([status, codes]) => (
          <section key={status} aria-labelledby={`status-${status}`}>
            <h2 id={`status-${status}`}>{t("docs.errors.statusGroup", { status })}</h2>
            <div className="mt-4 space-y-4">
              {codes.map((code) => {
                const entry = ERROR_CATALOGUE[code];
                const reference = ERROR_REFERENCE[code];
                return (
                  <article key={code} className="ref-card doc-target" data-testid={`error-${code}`}>
                    <h3 id={code} className="ref-h">
                      {code}
                    </h3>
                    <dl className="err-meta">
                      <div>
                        <dt>{t("docs.errors.status")}</dt>
                        <dd>{entry.status}</dd>
                      </div>
                      <div>
                        <dt>{t("docs.errors.type")}</dt>
                        <dd>
                          <code>{entry.type}</code>
                        </dd>
                      </div>
                      <div>
                        <dt>{t("docs.errors.recoverable")}</dt>
                        <dd>
                          <Badge tone={entry.recoverable ? "success" : "neutral"}>
                            {entry.recoverable ? t("docs.errors.yes") : t("docs.errors.no")}
                          </Badge>
                        </dd>
                      </div>
                    </dl>
                    <p className="err-message">
                      <span className="sr-only">{t("docs.errors.message")}: </span>
                      {entry.messages[language]}
                    </p>
                    <h4 className="ref-sub">{t("docs.errors.when")}</h4>
                    <p className="ref-small">
                      <InlineText text={reference.when[language]} />
                    </p>
                    <h4 className="ref-sub">{t("docs.errors.fix")}</h4>
                    <p className="ref-small">
                      <InlineText text={reference.fix[language]} />
                    </p>
                  </article>
                );
              })}
            </div>
          </section>
        ))}
      </div>
    </DocsShell>
  );
}
