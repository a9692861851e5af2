import type { ReactNode } from "react";
import { LanguageSwitcher, ThemeToggle } from "@/app/_components/preferences";
import { getT } from "@/app/_i18n/server";

/** A page with one centred card and a bar with the name, language and theme (as the sign-in steps). */
export async function FocusedPage({ children }: { children: ReactNode }) {
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
        <div className="w-full max-w-lg">{children}</div>
      </main>
    </div>
  );
}
