"use client";

// Every page loads this module: it is where the browser-wide settings go.
import "@/app/_components/zod-jitless";
import { createContext, type ReactNode, useContext, useMemo } from "react";
import { CATALOGUES, createTranslator, type Language, type Messages, type Translate } from "./catalogue";

type I18nValue = { language: Language; t: Translate };

const I18nContext = createContext<I18nValue | null>(null);

/**
 * Gives client components the request's language and its messages. The public storefront's pages pass only the
 * keys their client components use (app/s/_lib/messages.ts); the root layout uses BundledI18nProvider.
 */
export function I18nProvider({
  language,
  messages,
  children,
}: {
  language: Language;
  messages: Messages;
  children: ReactNode;
}) {
  const value = useMemo(() => ({ language, t: createTranslator(messages) }), [language, messages]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

/**
 * The whole catalogue of `language`, taken from the client bundle instead of a prop (docs/ui.md, "Interface
 * text"): the root layout uses it, so no page carries the catalogue (about 50 KB) in its flight data. The text
 * reaches the browser once, in a cached script, not on every page view.
 */
export function BundledI18nProvider({ language, children }: { language: Language; children: ReactNode }) {
  return (
    <I18nProvider language={language} messages={CATALOGUES[language]}>
      {children}
    </I18nProvider>
  );
}

function useI18n(): I18nValue {
  const value = useContext(I18nContext);
  if (!value) throw new Error("useT() needs <I18nProvider> (the root layout provides it)");
  return value;
}

/** `t(key, vars)` for client components. */
export function useT(): Translate {
  return useI18n().t;
}

export function useLanguage(): Language {
  return useI18n().language;
}
