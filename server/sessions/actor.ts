import { sessionActorOf } from "@/server/accounts/actors";
import type { Actor } from "@/server/context";
import type { Db } from "@/server/db/client";
import { readCookie, SESSION_COOKIE } from "./cookies";
import { resolveSignedInSession } from "./service";

/**
 * The dashboard session of a request as the service layer's Actor (docs/architecture.md, "Actors"), or null when
 * the request carries no live session. Every cookie-authenticated door (tRPC, GraphQL, the consent page) uses
 * it; writes must also pass `isSameOrigin` (./origin.ts).
 */
export async function actorFromSessionCookie(db: Db, request: Request, now: Date): Promise<Actor | null> {
  return actorFromSessionToken(db, readCookie(request, SESSION_COOKIE), now);
}

/** The same from the cookie's value (server components read it with next/headers). */
export async function actorFromSessionToken(
  db: Db,
  token: string | null | undefined,
  now: Date,
): Promise<Actor | null> {
  const session = await resolveSignedInSession(db, token, now);
  if (!session) return null;
  const { account } = session;
  return sessionActorOf(
    { ...account, accountId: account.id, holdsDeveloperKeys: account.hasDeveloperKeys },
    session.sessionId,
  );
}
