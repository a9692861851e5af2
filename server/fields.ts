import { z } from "zod";
import { isCleanText, localizedError, text } from "@/server/validation";

/**
 * Field validators shared by storefront and product inputs (docs/api.md, "Storefronts": text fields refuse
 * markup; ordinary text with `<` or `=` is accepted).
 *
 * What counts as markup, and why:
 * - a tag: `<` directly followed by a letter (or `/`, `!`, `?`) that ends in `>` (`<b>`, `</p>`,
 *   `<svg/onload=...>`), or an unclosed tag that already carries an attribute (`<img src=x onerror=...`).
 *   `2 < 3`, `a<b` and `x => y` are text: a browser never reads them as tags.
 * - an inline handler: a DOM event attribute name followed by `=` (`onerror=`, `onclick =`). A list, not
 *   `on\w+=`, so words such as `only=` or `ongoing=` stay ordinary text.
 * - a script URL: `javascript:`, `vbscript:` or `data:text/html`, also with spaces or control characters
 *   spliced in (`java\tscript:`).
 * - NUL characters (PostgreSQL text cannot hold them; they are never ordinary text).
 */
const TAG =
  /<[a-z][a-z0-9-]*(?:[\s/][^<>]*)?>|<\/[a-z][a-z0-9-]*\s*>|<[a-z][a-z0-9-]*[\s/][^<>]*=|<!--|<!\[cdata\[|<!doctype|<\?/i;
const HANDLER =
  /\bon(?:abort|animation[a-z]*|auxclick|before[a-z]+|begin|blur|cancel|canplay[a-z]*|change|click|close|contextmenu|copy|cut|dblclick|drag[a-z]*|drop|durationchange|emptied|end|ended|error|focus[a-z]*|formdata|hashchange|input|invalid|key[a-z]+|load[a-z]*|message[a-z]*|mouse[a-z]+|offline|online|page[a-z]+|paste|pause|play[a-z]*|pointer[a-z]+|popstate|progress|ratechange|repeat|reset|resize|scroll[a-z]*|search|seek[a-z]+|select[a-z]*|show|stalled|storage|submit|suspend|timeupdate|toggle|touch[a-z]+|transition[a-z]+|unload|volumechange|waiting|wheel)\s*=/i;
const SCRIPT_URL = /(?:javascript|vbscript|livescript):|data:text\/html/;

/** True when `value` reads as ordinary text (see the rules above). Exported for unit tests. */
export function isSafeText(value: string): boolean {
  if (value.includes("\u0000")) return false;
  if (TAG.test(value) || HANDLER.test(value)) return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters spliced into a scheme are the attack.
  const squeezed = value.replace(/[\s\u0000-\u001f]+/g, "").toLowerCase();
  return !SCRIPT_URL.test(squeezed);
}

const UNSAFE_TEXT = localizedError({
  en: "must not contain HTML tags, inline event handlers or script URLs",
  es: "no debe contener etiquetas HTML, manejadores de eventos en línea ni URLs de script",
  pt: "não deve conter tags HTML, manipuladores de eventos embutidos nem URLs de script",
});

/** A free-text string that refuses markup (docs/api.md, "Storefronts"). */
export function safeText(options: { min?: number; max?: number } = {}) {
  return text(options).refine(isSafeText, { error: UNSAFE_TEXT });
}

/** The longest URL any input keeps (image URLs), as for webhook URLs (docs/api.md, "Maxima"). */
export const MAX_URL_LENGTH = 2048;

/**
 * An absolute http(s) URL (docs/api.md, "Storefronts"); raw spaces, quotes and angle brackets are refused; at most
 * 2048 characters.
 */
export function httpUrl() {
  return z
    .url({
      protocol: /^https?$/,
      error: localizedError({
        en: "must be an absolute http:// or https:// URL",
        es: "debe ser una URL absoluta http:// o https://",
        pt: "deve ser uma URL absoluta http:// ou https://",
      }),
    })
    .max(MAX_URL_LENGTH)
    .refine((value) => !/[\s<>"'`]/.test(value) && isCleanText(value), {
      error: localizedError({
        en: "must be a valid URI (encode spaces, quotes and angle brackets)",
        es: "debe ser un URI válido (codifica espacios, comillas y corchetes angulares)",
        pt: "deve ser um URI válido (codifique espaços, aspas e sinais de menor e maior)",
      }),
    });
}

/** The largest amount the database's numeric(14, 4) columns hold; larger prices are a 400, not a 500. */
export const MAX_AMOUNT = 9_999_999_999.9999;

/** A non-negative amount of money (prices, delivery fees). */
export function amount() {
  return z.number().min(0).max(MAX_AMOUNT);
}
