import { env } from "@/server/env";

/**
 * Every cookie the web face sets, in one place.
 *
 * SESSION_COOKIE names the session cookie in code. On https its name on the wire carries the `__Host-` prefix
 * (`sessionCookieName()`), so the browser keeps it only as set by this very host, Secure, for the whole path: a
 * sibling subdomain cannot plant or shadow it (docs/security.md, "Sessions"). `readCookie` and `serializeCookie`
 * apply the prefix; code that reads cookies through Next's `cookies()` asks `sessionCookieName()`. On http
 * (localhost) the prefix is not allowed, and the name stays `marea_session`.
 */
export const SESSION_COOKIE = "marea_session";
/** The sign-in in progress: the address being proven, where to go after, and a bootstrap-choice token. */
export const SIGN_IN_COOKIE = "marea_signin";
/** Interface language chosen with the language switcher: `es`, `en` or `pt`. */
export const LANGUAGE_COOKIE = "marea_lang";
/** Colour theme: `light`, `dark` or `system`. */
export const THEME_COOKIE = "marea_theme";

/** Secure cookies whenever the app is served over https (APP_URL). */
export function isHttpsApp(): boolean {
  return env().APP_URL.startsWith("https:");
}

/** The session cookie's name on the wire: `__Host-marea_session` on https, `marea_session` on http. */
export function sessionCookieName(): string {
  return isHttpsApp() ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE;
}

function wireName(name: string): string {
  return name === SESSION_COOKIE ? sessionCookieName() : name;
}

type CookieOptions = { maxAgeSeconds: number; path?: string; httpOnly?: boolean };

export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [
    `${wireName(name)}=${encodeURIComponent(value)}`,
    `Path=${options.path ?? "/"}`,
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
    "SameSite=Lax",
  ];
  if (options.httpOnly !== false) parts.push("HttpOnly");
  if (isHttpsApp()) parts.push("Secure");
  return parts.join("; ");
}

/** The value of one cookie from a request's Cookie header. */
export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  const wire = wireName(name);
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== wire) continue;
    try {
      return decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return null;
    }
  }
  return null;
}
