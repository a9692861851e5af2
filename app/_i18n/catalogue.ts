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

/**
 * Messages that depend on a count are written in two forms, `{key}.one` and `{key}.other` (the CLDR plural
 * categories es, en and pt write); this is the base key of each such pair.
 */
export type PluralKey = {
  [K in MessageKey]: K extends `${infer Base}.one`
    ? `${Base}.other` extends MessageKey
      ? Base
      : never
    : never;
}[MessageKey];

/**
 * The form of `count` in `language`, by CLDR's rules (`Intl.PluralRules`): en and es `one` for 1, pt for 0 and 1
 * (Brazilian usage); everything else, CLDR's `many` of es and pt millions included, is `other`.
 */
export function pluralForm(language: Language, count: number): "one" | "other" {
  return new Intl.PluralRules(language).select(count) === "one" ? "one" : "other";
}

/** `t` for a counted message: the `.one` or `.other` form of `key` for `vars.count`, interpolated. */
export function plural<B extends PluralKey>(
  t: Translate,
  language: Language,
  key: B,
  vars: Record<Placeholders<(typeof en)[`${B}.other` & MessageKey]>, string | number> & { count: number },
): string {
  const translate = t as (key: MessageKey, vars: Record<string, string | number>) => string;
  return translate(`${key}.${pluralForm(language, vars.count)}` as MessageKey, vars);
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
