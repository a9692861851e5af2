import Link from "next/link";
import type { ReactNode } from "react";
import { LanguageSwitcher, ThemeToggle } from "@/app/_components/preferences";
import { Badge, statusTone } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import type { PlainMessageKey } from "@/app/_i18n/catalogue";
import { getT } from "@/app/_i18n/server";
import { MobileNav } from "./mobile-nav";
import { type NavItem, NavLinks } from "./nav-links";

export type ShellAccount = {
  email: string;
  status: "unverified" | "verified" | "cancelled";
  plan: string;
};

const NAV: { href: string; key: PlainMessageKey; developersOnly?: boolean }[] = [
  { href: "/dashboard", key: "nav.overview" },
  { href: "/dashboard/storefronts", key: "nav.storefronts" },
  { href: "/dashboard/orders", key: "nav.orders" },
  { href: "/dashboard/webhooks", key: "nav.webhooks" },
  { href: "/dashboard/keys", key: "nav.keys" },
  { href: "/dashboard/account", key: "nav.account" },
  { href: "/dashboard/developers", key: "nav.developers", developersOnly: true },
];

function isCurrent(href: string, current: string): boolean {
  const path = current.split(/[?#]/)[0] ?? current;
  if (href === "/dashboard") return path === "/dashboard" || path === "/dashboard/";
  return path === href || path.startsWith(`${href}/`);
}

function planKey(plan: string): PlainMessageKey | null {
  if (plan === "FREE_NEW" || plan === "FREE_OLD" || plan === "PRO") return `plan.${plan}`;
  return null;
}

function SignOutButton({ label, fullWidth }: { label: string; fullWidth?: boolean }) {
  return (
    <form method="post" action="/signout">
      <Button
        type="submit"
        variant={fullWidth ? "secondary" : "ghost"}
        size="sm"
        className={fullWidth ? "w-full" : ""}
      >
        {label}
      </Button>
    </form>
  );
}

/**
 * The dashboard frame every dashboard page renders around its content: skip link, header (account email,
 * status, language, theme, sign out), the navigation (a sheet behind a menu button below 768 px) with
 * aria-current on `current`, and the <main> landmark. Developers appears only for accounts with developer keys.
 *
 * ```tsx
 * <Shell account={{ email, status, plan }} hasDeveloperKeys={...} current="/dashboard/storefronts">…</Shell>
 * ```
 */
export async function Shell({
  account,
  hasDeveloperKeys,
  current,
  children,
}: {
  account: ShellAccount;
  hasDeveloperKeys: boolean;
  current: string;
  children: ReactNode;
}) {
  const t = await getT();
  const items: NavItem[] = NAV.filter((item) => !item.developersOnly || hasDeveloperKeys).map((item) => ({
    href: item.href,
    label: t(item.key),
    isCurrent: isCurrent(item.href, current),
  }));
  const plan = planKey(account.plan);
  const badges = (
    <>
      {account.status !== "verified" ? (
        <Badge tone={statusTone(account.status)}>{t(`status.${account.status}`)}</Badge>
      ) : null}
      {plan ? <Badge tone={account.plan === "PRO" ? "info" : "neutral"}>{t(plan)}</Badge> : null}
    </>
  );
  return (
    <div className="min-h-dvh bg-bg">
      <a
        href="#main"
        className="sr-only z-50 rounded-md bg-surface px-4 py-2 font-medium text-fg shadow focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
      >
        {t("common.skipToContent")}
      </a>
      <header className="sticky top-0 z-30 border-b border-border bg-surface">
        <div className="flex h-14 items-center gap-2 px-3 sm:px-4">
          <MobileNav
            items={items}
            email={account.email}
            navLabel={t("nav.label")}
            footer={
              <>
                <div className="flex flex-wrap gap-2">{badges}</div>
                <LanguageSwitcher layout="inline" />
                <ThemeToggle layout="inline" />
                <SignOutButton label={t("shell.signOut")} fullWidth />
              </>
            }
          />
          <Link
            href="/dashboard"
            className="text-lg font-semibold tracking-tight text-fg no-underline hover:text-fg"
          >
            {t("app.name")}
          </Link>
          <div className="ml-auto hidden min-w-0 items-center gap-2 md:flex">
            <span
              className="max-w-64 truncate text-sm text-muted lg:max-w-80"
              title={account.email}
              data-testid="shell-email"
            >
              <span className="sr-only">{t("shell.signedInAs")} </span>
              {account.email}
            </span>
            {badges}
            <LanguageSwitcher />
            <ThemeToggle />
            <SignOutButton label={t("shell.signOut")} />
          </div>
        </div>
      </header>
      <div className="md:flex">
        <nav
          aria-label={t("nav.label")}
          className="hidden w-60 shrink-0 border-r border-border bg-surface p-3 md:block md:min-h-[calc(100dvh-3.5rem)]"
        >
          <NavLinks items={items} />
        </nav>
        <main id="main" tabIndex={-1} className="min-w-0 flex-1 px-4 py-6 focus:outline-none sm:px-6 md:px-8">
          <div className="mx-auto max-w-5xl">{children}</div>
        </main>
      </div>
    </div>
  );
}
