import { createHash } from "node:crypto";

/**
 * The inline scripts the app writes itself, kept here so the Content-Security-Policy can allow each by its hash
 * (docs/security.md, "Headers"). Next's own inline scripts are allowed by a per-request nonce on dynamic pages
 * and by their hashes on cached ones.
 */

/**
 * The storefront frame's one statement that sets `<html lang>` to the storefront's language (the root layout
 * follows the visitor's). `language` is one of es, en, pt, so there are three such scripts.
 */
export function storefrontLangScript(language: "es" | "en" | "pt"): string {
  return `document.documentElement.lang=${JSON.stringify(language)}`;
}

/** A CSP hash source for a script's exact text. */
export function scriptHashSource(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/** Hash sources of every inline script the app writes, whatever the page. */
export const OWN_INLINE_SCRIPT_SOURCES: readonly string[] = (["es", "en", "pt"] as const).map((language) =>
  scriptHashSource(storefrontLangScript(language)),
);
