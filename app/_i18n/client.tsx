"use client";

import { createContext, type ReactNode, useContext, useMemo } from "react";
import { createTranslator, type Language, type Messages, type Translate } from "./catalogue";

type I18nValue = { language: Language; t: Translate };

const I18nContext = createContext<I18nValue | null>(null);

/**
 * Gives client components the request's language and its messages (the root layout passes only the one
 * catalogue in use, so the other two never reach the browser).
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
