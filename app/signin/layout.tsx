import type { ReactNode } from "react";
import { LanguageSwitcher, ThemeToggle } from "@/app/_components/preferences";
import { getT } from "@/app/_i18n/server";

/** The sign-in steps: a bar with the name, language and theme, and one centred card. */
export default async function SignInLayout({ children }: { children: ReactNode }) {
  const t = await getT();
  return (
    <div className="flex min-h-dvh flex-col bg-bg">
      <header className="border-b border-border bg-surface">
        <div className="mx-auto flex h-14 max-w-5xl items-center gap-2 px-3 sm:px-4">
          <span className="text-lg font-semibold tracking-tight text-fg">{t("app.name")}</span>
          <div className="ml-auto flex items-center gap-1">
            <LanguageSwitcher />
            <ThemeToggle />
          </div>
        </div>
      </header>
      <main className="flex flex-1 items-start justify-center px-4 py-10 sm:py-16">
        <div className="w-full max-w-md">{children}</div>
      </main>
    </div>
  );
}
