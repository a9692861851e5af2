import type { CSSProperties, ReactNode } from "react";
import type { Language } from "@/app/_i18n/catalogue";
import { I18nProvider } from "@/app/_i18n/client";
import { storefrontLangScript } from "@/server/http/inline-scripts";
import type { StorefrontDto } from "@/server/storefronts/schema";
import { type PageMessages, storefrontMessages } from "../_lib/messages";
import { fontStack, storefrontPalette } from "../_lib/palette";
import { Announcer } from "./announcer";

/**
 * Every public page of a storefront inside the merchant's look (docs/ui.md, "Public storefront"): its colours as
 * our tokens (contrast kept, app/s/_lib/palette.ts), its font when the device has it, the storefront's language
 * for text, `lang` and the client components' messages. The root layout's <html lang> follows the visitor (it
 * cannot see the storefront), so the frame carries `lang` and a one-line script sets it on <html> too.
 */
export function StorefrontFrame({
  storefront,
  page,
  children,
}: {
  storefront: Pick<StorefrontDto, "language" | "branding">;
  /** Which client messages the page needs (app/s/_lib/messages.ts). */
  page: PageMessages;
  children: ReactNode;
}) {
  const language = storefront.language as Language;
  const palette = storefrontPalette(storefront.branding?.theme ?? null);
  const font = fontStack(storefront.branding?.font);
  const style = {
    ...palette,
    colorScheme: palette["color-scheme"],
    ...(font ? { fontFamily: font } : {}),
  } as CSSProperties;
  return (
    <div lang={language} style={style} className="min-h-dvh bg-bg text-fg">
      <script
        // biome-ignore lint/security/noDangerouslySetInnerHtml: a constant statement; the language is one of es/en/pt. The CSP allows it by hash (server/http/inline-scripts.ts).
        dangerouslySetInnerHTML={{ __html: storefrontLangScript(language) }}
      />
      <I18nProvider language={language} messages={storefrontMessages(language, page)}>
        {children}
        <Announcer />
      </I18nProvider>
    </div>
  );
}
