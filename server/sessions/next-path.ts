/** Where a sign-in lands when no (acceptable) `next` was given. */
export const DEFAULT_AFTER_SIGN_IN = "/dashboard";

/**
 * The `next` parameter of /signin, accepted only as a path on this site (no open redirect): it must start with
 * one `/`, hold no backslash or control character, and resolve to the same origin. Sign-in and sign-out pages
 * themselves are refused (no loops). Anything else: null.
 */
export function safeNextPath(value: string | null | undefined): string | null {
  const path = sameSitePath(value);
  if (path === null || /^\/(signin|signout)(\/|$|\?|#)/.test(path)) return null;
  return path;
}

/** A path on this site (one leading `/`, no backslash or control character, same origin), or null. */
export function sameSitePath(value: string | null | undefined): string | null {
  if (!value || value.length > 2000) return null;
  if (!value.startsWith("/") || value.startsWith("//")) return null;
  // Control characters and backslashes: browsers read "/\evil.example" as "//evil.example".
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return null;
  const base = "http://same.invalid";
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return null;
  }
  if (url.origin !== base) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}
