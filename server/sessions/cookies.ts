import { z } from "zod";
import {
  type LANGUAGE_COOKIE,
  SESSION_COOKIE,
  SIGN_IN_COOKIE,
  serializeCookie,
  type THEME_COOKIE,
} from "@/server/kit/cookies";
import type { NewSession } from "./schema";

// The cookies this feature sets: the session, the sign-in in progress, the preferences. Their names, and how every
// cookie is read and written, are in server/kit/cookies.ts.
const SIGN_IN_COOKIE_PATH = "/signin";
const SIGN_IN_COOKIE_MAX_AGE_S = 30 * 60;
const PREFERENCE_MAX_AGE_S = 365 * 86_400;

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
