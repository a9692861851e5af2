import type { Actor } from "@/server/context";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { isSameOrigin } from "@/server/gate/origin";
import { actorFromSessionCookie as sessionCookieActor } from "@/server/sessions/actor";

/** The dashboard session's door into GraphQL (docs/graphql.md, "Authentication"): the `marea_session` cookie. */
export async function actorFromSessionCookie(request: Request, db: Db, now: Date): Promise<Actor | null> {
  return sessionCookieActor(db, request, now);
}

export type SessionResolver = (request: Request, db: Db, now: Date) => Promise<Actor | null>;

/**
 * CSRF: a mutation made with the session cookie must come from the dashboard's own origin
 * (server/gate/origin.ts); otherwise 403 `cross_site_request`, and nothing runs.
 */
export function assertSessionMutationAllowed(request: Request, actor: Actor): void {
  if (actor.via.type !== "session" || isSameOrigin(request)) return;
  throw new AppError("cross_site_request", {
    detail:
      "A dashboard session authorizes mutations only from the dashboard's own origin (the Origin header).",
  });
}
