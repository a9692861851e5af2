import { clsx } from "clsx";
import Link from "next/link";
import type { ReactNode } from "react";
import { LanguageSwitcher, ThemeToggle } from "@/app/_components/preferences";
import { ChevronDownIcon } from "@/app/_components/ui/icons";
import type { PlainMessageKey, Translate } from "@/app/_i18n/catalogue";
import { getT } from "@/app/_i18n/server";
import type { Heading } from "../_lib/markdown";

type NavLink = { href: string; key: PlainMessageKey };

const REFERENCE: NavLink[] = [
  { href: "/docs/api", key: "docs.nav.api" },
  { href: "/docs/events", key: "docs.nav.events" },
  { href: "/docs/errors", key: "docs.nav.errors" },
];

export const GUIDE_LINKS: Array<NavLink & { info: PlainMessageKey }> = [
  { href: "/docs/api/guide", key: "docs.guide.api", info: "docs.guideInfo.api" },
  { href: "/docs/webhooks", key: "docs.guide.webhooks", info: "docs.guideInfo.webhooks" },
  { href: "/docs/graphql", key: "docs.guide.graphql", info: "docs.guideInfo.graphql" },
  { href: "/docs/mcp", key: "docs.guide.mcp", info: "docs.guideInfo.mcp" },
  { href: "/docs/operations", key: "docs.guide.operations", info: "docs.guideInfo.operations" },
];

function NavList({ t, current }: { t: Translate; current: string }) {
  const item = (link: NavLink) => (
    <li key={link.href}>
      <Link
        href={link.href}
        aria-current={link.href === current ? "page" : undefined}
        className={clsx(
          "block rounded-md px-3 py-1.5 text-sm no-underline",
          link.href === current
            ? "bg-primary-soft font-medium text-fg shadow-[inset_3px_0_0_var(--primary)] hover:text-fg"
            : "text-fg hover:bg-surface-muted hover:text-fg",
        )}
      >
        {t(link.key)}
      </Link>
    </li>
  );
  const group = "mt-5 mb-1 px-3 text-xs font-semibold tracking-wide text-muted uppercase";
  return (
    <>
      <ul>{item({ href: "/docs", key: "docs.nav.overview" })}</ul>
      <p className={group}>{t("docs.nav.reference")}</p>
      <ul>{REFERENCE.map(item)}</ul>
      <p className={group}>{t("docs.nav.guides")}</p>
      <ul>{GUIDE_LINKS.map(item)}</ul>
    </>
  );
}

/** "On this page": the h2 (and h3) of a long page. */
function Toc({ headings }: { headings: Heading[] }) {
  return (
    <ul className="space-y-1 text-sm">
      {headings.map((h) => (
        <li key={h.id} className={h.depth === 3 ? "pl-3" : undefined}>
          <a href={`#${h.id}`} className="text-muted no-underline hover:text-fg hover:underline">
            {h.text}
          </a>
        </li>
      ))}
    </ul>
  );
}

/**
 * The frame of every /docs page (docs/ui.md, "Developer documentation"): skip link, a header with language and
 * theme (plain forms, no JavaScript needed), the documentation navigation (a sidebar from 1024 px, a disclosure
 * below), an optional "On this page" list, and <main>. Each page passes its own path as `current`.
 */
export async function DocsShell({
  current,
  headings,
  children,
}: {
  current: string;
  headings?: Heading[];
  children: ReactNode;
}) {
  const t = await getT();
  const toc = headings && headings.length > 2 ? headings : null;
  return (
    <div className="min-h-dvh bg-bg">
      <a
        href="#main"
        className="sr-only z-50 rounded-md bg-surface px-4 py-2 font-medium text-fg shadow focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
      >
        {t("common.skipToContent")}
      </a>
      <header className="sticky top-0 z-30 border-b border-border bg-surface">
        <div className="mx-auto flex h-14 max-w-7xl items-center gap-2 px-3 sm:px-4">
          <Link href="/" className="text-lg font-semibold tracking-tight text-fg no-underline hover:text-fg">
            {t("app.name")}
          </Link>
          <span aria-hidden="true" className="hidden text-muted sm:inline">
            /
          </span>
          <Link
            href="/docs"
            className="hidden truncate text-sm font-medium text-fg no-underline hover:text-fg sm:inline"
          >
            {t("docs.nav.label")}
          </Link>
          <div className="ml-auto flex items-center gap-1">
            <LanguageSwitcher />
            <ThemeToggle />
          </div>
        </div>
      </header>
      <div className="mx-auto max-w-7xl lg:flex">
        <nav
          aria-label={t("docs.nav.label")}
          className="hidden min-h-[calc(100dvh-3.5rem)] w-60 shrink-0 border-r border-border px-2 py-6 lg:block"
        >
          <div className="sticky top-20">
            <NavList t={t} current={current} />
          </div>
        </nav>
        <div className="min-w-0 flex-1">
          <details className="group border-b border-border bg-surface px-3 lg:hidden" data-testid="docs-menu">
            <summary className="flex h-11 cursor-pointer list-none items-center justify-between gap-2 text-sm font-medium text-fg [&::-webkit-details-marker]:hidden">
              {t("docs.nav.menu")}
              <ChevronDownIcon className="text-muted transition-transform group-open:rotate-180" />
            </summary>
            <nav aria-label={t("docs.nav.menu")} className="pb-3">
              <NavList t={t} current={current} />
            </nav>
          </details>
          <div className="xl:flex">
            <main
              id="main"
              tabIndex={-1}
              className="min-w-0 flex-1 px-4 py-6 focus:outline-none sm:px-6 lg:px-10"
            >
              {toc ? (
                <details className="mb-6 rounded-lg border border-border bg-surface px-4 xl:hidden">
                  <summary className="cursor-pointer py-2.5 text-sm font-medium text-fg">
                    {t("docs.onThisPage")}
                  </summary>
                  <nav aria-label={t("docs.onThisPage")} className="pb-3">
                    <Toc headings={toc} />
                  </nav>
                </details>
              ) : null}
              <div className="mx-auto max-w-3xl">{children}</div>
            </main>
            {toc ? (
              <nav aria-label={t("docs.onThisPage")} className="hidden w-64 shrink-0 py-6 pr-4 xl:block">
                <div className="sticky top-20 max-h-[calc(100dvh-6rem)] overflow-y-auto">
                  <p className="mb-2 text-xs font-semibold tracking-wide text-muted uppercase">
                    {t("docs.onThisPage")}
                  </p>
                  <Toc headings={toc} />
                </div>
              </nav>
            ) : null}
          </div>
        </div>
      </div>
    </div>
  );
}
