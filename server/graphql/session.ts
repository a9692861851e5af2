import type { Actor } from "@/server/context";
import type { Db } from "@/server/db/client";
import { env } from "@/server/env";
import { AppError } from "@/server/errors";

/**
 * The dashboard session's door into GraphQL (docs/graphql.md, "Authentication").
 *
 * NOT WIRED YET: the sign-in/session layer (server/sessions/) is being built on another branch. At merge this
 * function reads the `marea_session` cookie, resolves it with `resolveSession(db, value, now)` from
 * server/sessions/service.ts and answers `sessionActor(db, session.accountId, session.sessionId)` from
 * server/accounts/actors.ts (null when there is no cookie or it resolves to nothing). Until then no request
 * carries a session; tests inject a resolver through `createGraphQLYoga({ resolveSession })`.
 */
export async function actorFromSessionCookie(_request: Request, _db: Db, _now: Date): Promise<Actor | null> {
  return null;
}

export type SessionResolver = (request: Request, db: Db, now: Date) => Promise<Actor | null>;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * CSRF: a mutation made with the session cookie must come from the dashboard's own origin: an `Origin` equal to
 * APP_URL's or the request's own; without `Origin`, `Sec-Fetch-Site: same-origin`; with neither, only safe
 * methods (and GraphQL never mutates over GET). At merge, use server/sessions/origin.ts `isSameOrigin` (the same
 * rule) and its catalogue code `cross_site_request` instead of `missing_authorization` below.
 */
export function isSameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin !== null) {
    return origin !== "null" && (origin === originOf(env().APP_URL) || origin === originOf(request.url));
  }
  const fetchSite = request.headers.get("sec-fetch-site");
  if (fetchSite !== null) return fetchSite === "same-origin";
  return SAFE_METHODS.has(request.method.toUpperCase());
}

/** Refuses a cross-site mutation made with the session cookie: the cookie is no credential for it. */
export function assertSessionMutationAllowed(request: Request, actor: Actor): void {
  if (actor.via.type !== "session" || isSameOrigin(request)) return;
  throw new AppError("missing_authorization", {
    detail:
      "A dashboard session authorizes mutations only from the dashboard's own origin (the Origin header).",
  });
}
