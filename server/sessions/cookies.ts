import { z } from "zod";
import { env } from "@/server/env";
import type { NewSession } from "./schema";

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

const SIGN_IN_COOKIE_PATH = "/signin";
const SIGN_IN_COOKIE_MAX_AGE_S = 30 * 60;
const PREFERENCE_MAX_AGE_S = 365 * 86_400;

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

/** `marea_session`: httpOnly, SameSite=Lax, Path=/, Secure on https, lives as long as the session. */
export function sessionCookie(session: NewSession, now: Date): string {
  return serializeCookie(SESSION_COOKIE, session.token, {
    maxAgeSeconds: (session.expiresAt.getTime() - now.getTime()) / 1000,
  });
}

export function clearSessionCookie(): string {
  return serializeCookie(SESSION_COOKIE, "", { maxAgeSeconds: 0 });
}

export function preferenceCookie(name: typeof LANGUAGE_COOKIE | typeof THEME_COOKIE, value: string): string {
  return serializeCookie(name, value, { maxAgeSeconds: PREFERENCE_MAX_AGE_S });
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

const PendingSignIn = z.object({
  email: z.string().max(1000),
  next: z.string().max(2000).nullable(),
  challenge: z.string().max(200).optional(),
});
export type PendingSignIn = z.infer<typeof PendingSignIn>;

/**
 * The sign-in in progress, kept in an httpOnly cookie scoped to /signin so the address never sits in a URL.
 * Not secret and not trusted: the address is what the person typed, `next` is checked again where it is used,
 * and the challenge token only works for whoever proved the code.
 */
export function pendingSignInCookie(pending: PendingSignIn): string {
  const value = Buffer.from(JSON.stringify(pending), "utf8").toString("base64url");
  return serializeCookie(SIGN_IN_COOKIE, value, {
    maxAgeSeconds: SIGN_IN_COOKIE_MAX_AGE_S,
    path: SIGN_IN_COOKIE_PATH,
  });
}

export function clearPendingSignInCookie(): string {
  return serializeCookie(SIGN_IN_COOKIE, "", { maxAgeSeconds: 0, path: SIGN_IN_COOKIE_PATH });
}

export function decodePendingSignIn(value: string | null | undefined): PendingSignIn | null {
  if (!value) return null;
  try {
    const parsed = PendingSignIn.safeParse(JSON.parse(Buffer.from(value, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
