import type { Metadata } from "next";
import type { ReactNode } from "react";
import { getTheme } from "@/app/_components/preferences";
import { Toaster } from "@/app/_components/ui/toast";
import { BundledI18nProvider } from "@/app/_i18n/client";
import { getLanguage, getT } from "@/app/_i18n/server";
import "./globals.css";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getT();
  return {
    title: { default: t("app.name"), template: `%s · ${t("app.name")}` },
    description: t("app.description"),
  };
}

/**
 * Every page: <html lang> from the interface language, and the theme class from the `marea_theme` cookie, both
 * decided on the server so the first paint is right (no flash of the wrong theme or language).
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  const [language, theme] = await Promise.all([getLanguage(), getTheme()]);
  return (
    <html lang={language} className={theme === "system" ? undefined : theme}>
      <body className="antialiased">
        <BundledI18nProvider language={language}>
          <Toaster>{children}</Toaster>
        </BundledI18nProvider>
      </body>
    </html>
  );
}
