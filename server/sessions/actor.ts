import type { Actor } from "@/server/context";
import type { Db } from "@/server/db/client";
import { sessionActorOf } from "@/server/gate/actors";
import { readCookie, SESSION_COOKIE } from "@/server/kit/cookies";
import type { SignedInAccountDto } from "./schema";
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
  return session ? actorOfSignedInSession(session) : null;
}

/**
 * The Actor of a session already read with its account (`resolveSignedInSession`; the dashboard's sign-in gate,
 * `requireSignedInAccount`), without another read.
 */
export function actorOfSignedInSession(session: { sessionId: string; account: SignedInAccountDto }): Actor {
  const { account } = session;
  return sessionActorOf(
    { ...account, accountId: account.id, holdsDeveloperKeys: account.hasDeveloperKeys },
    session.sessionId,
  );
}
