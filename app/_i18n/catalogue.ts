import { acceptedLanguage } from "@/server/errors";
import { en } from "./messages/en";
import { es } from "./messages/es";
import { pt } from "./messages/pt";

/**
 * The interface text catalogue: `messages/en.ts` is the source of truth; `es.ts` and `pt.ts` are typed
 * `Messages`, so a missing or extra key is a type error. Deliberately not next-intl: it pulls @swc/core and
 * @parcel/watcher, and the interface needs only lookup and `{name}` interpolation.
 * API error texts are NOT here: they come from the one error catalogue in server/errors.ts.
 */
export const LANGUAGES = ["es", "en", "pt"] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = "en";

export type MessageKey = keyof typeof en;
export type Messages = Record<MessageKey, string>;

/** The `{name}` placeholders of a message, from the English text, so `t` checks the variables it is given. */
type Placeholders<S extends string> = S extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

export type MessageVars<K extends MessageKey> = [Placeholders<(typeof en)[K]>] extends [never]
  ? []
  : [vars: Record<Placeholders<(typeof en)[K]>, string | number>];

/** Keys whose message has no placeholder: safe to pass around as data (`{ key: "nav.overview" }`). */
export type PlainMessageKey = { [K in MessageKey]: MessageVars<K> extends [] ? K : never }[MessageKey];

export type Translate = <K extends MessageKey>(key: K, ...vars: MessageVars<K>) => string;

export const CATALOGUES: Record<Language, Messages> = { en, es, pt };

export function isLanguage(value: unknown): value is Language {
  return typeof value === "string" && (LANGUAGES as readonly string[]).includes(value);
}

/** `{name}` replaced by `vars.name`; an unknown placeholder stays as written (visible, never silently empty). */
export function interpolate(text: string, vars?: Record<string, string | number>): string {
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(vars, name) ? String(vars[name]) : whole,
  );
}

export function createTranslator(messages: Messages): Translate {
  return (key, ...vars) => interpolate(messages[key] ?? en[key], vars[0] as Record<string, string | number>);
}

export function translator(language: Language): Translate {
  return createTranslator(CATALOGUES[language]);
}

/**
 * Picks es, en or pt from an Accept-Language header (q-values honoured), or null when none of them is asked
 * for: the service's one ranking (`acceptedLanguage`, server/errors.ts), for the pages.
 */
export function languageFromAcceptLanguage(header: string | null | undefined): Language | null {
  return acceptedLanguage(header);
}

/**
 * The interface language, in this order: the `marea_lang` cookie (an explicit choice), the signed-in account's
 * language, Accept-Language (es, en or pt), then English.
 */
export function resolveLanguage(input: {
  cookie?: string | null;
  accountLanguage?: string | null;
  acceptLanguage?: string | null;
}): Language {
  if (isLanguage(input.cookie)) return input.cookie;
  if (isLanguage(input.accountLanguage)) return input.accountLanguage;
  return languageFromAcceptLanguage(input.acceptLanguage) ?? DEFAULT_LANGUAGE;
}
