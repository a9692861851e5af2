import type { Metadata } from "next";
import Link from "next/link";
import type { PlainMessageKey } from "@/app/_i18n/catalogue";
import { getT } from "@/app/_i18n/server";
import { DocsShell, GUIDE_LINKS } from "./_components/docs-shell";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("docs.title") };
}

const REFERENCES: Array<{ href: string; title: PlainMessageKey; info: PlainMessageKey }> = [
  { href: "/docs/api", title: "docs.nav.api", info: "docs.info.api" },
  { href: "/docs/events", title: "docs.nav.events", info: "docs.info.events" },
  { href: "/docs/errors", title: "docs.nav.errors", info: "docs.info.errors" },
];

const CARD = "block rounded-lg border border-border bg-surface p-4 no-underline hover:border-primary";

/** /docs: where a partner starts (docs/ui.md, "Developer documentation"). */
export default async function DocsHome() {
  const t = await getT();
  return (
    <DocsShell current="/docs">
      <h1 className="text-2xl font-semibold tracking-tight">{t("docs.title")}</h1>
      <p className="mt-2 max-w-prose text-muted">{t("docs.description")}</p>

      <h2 className="mt-8 text-lg font-semibold">{t("docs.nav.reference")}</h2>
      <ul className="mt-3 grid gap-3 sm:grid-cols-3">
        {REFERENCES.map((ref) => (
          <li key={ref.href}>
            <Link href={ref.href} className={`${CARD} h-full`}>
              <span className="font-medium text-primary">{t(ref.title)}</span>
              <span className="mt-1 block text-sm text-muted">{t(ref.info)}</span>
            </Link>
          </li>
        ))}
      </ul>

      <h2 className="mt-8 text-lg font-semibold">{t("docs.nav.guides")}</h2>
      <ul className="mt-3 grid gap-3 sm:grid-cols-2">
        {GUIDE_LINKS.map((guide) => (
          <li key={guide.href}>
            <Link href={guide.href} className={`${CARD} h-full`}>
              <span className="font-medium text-primary">{t(guide.key)}</span>
              <span className="mt-1 block text-sm text-muted">{t(guide.info)}</span>
            </Link>
          </li>
        ))}
      </ul>

      <h2 className="mt-8 text-lg font-semibold">{t("docs.machineReadable")}</h2>
      <ul className="mt-3 list-disc space-y-1 pl-6 text-sm">
        <li>
          <a href="/v1/openapi.json">
            <code>GET /v1/openapi.json</code>
          </a>{" "}
          — {t("docs.openapiLink")}
        </li>
        <li>
          <a href="/v1/event_types">
            <code>GET /v1/event_types</code>
          </a>{" "}
          — {t("docs.eventTypesLink")}
        </li>
      </ul>
    </DocsShell>
  );
}
