import { type Actor, createServiceContext } from "@/server/context";
import { type Db, dbReady } from "@/server/db/client";
import { isAppError } from "@/server/errors";
import { isSameOrigin } from "@/server/gate/origin";
import { LANGUAGE_COOKIE, readCookie, SESSION_COOKIE } from "@/server/kit/cookies";
import { chosenLanguage } from "@/server/kit/language";
import { newId } from "@/server/lib/ids";
import { countSessionRequest } from "@/server/limits/service";
import { actorFromSessionToken } from "@/server/sessions/actor";
import type { TrpcContext } from "./init";

/**
 * The context of one call: the session cookie's actor (null when signed out; the procedure refuses), the
 * interface language (the `marea_lang` cookie, then Accept-Language, as the pages pick it) and the Origin check.
 */
export async function createTrpcContext(input: {
  sessionToken: string | null | undefined;
  languageCookie?: string | null;
  acceptLanguage?: string | null;
  sameOrigin: boolean;
}): Promise<TrpcContext> {
  const db = await dbReady();
  const actor = await actorFromSessionToken(db, input.sessionToken, new Date());
  return trpcContextFor({ ...input, db, actor });
}

/** The context for an actor the caller already resolved (a dashboard page, after its sign-in gate). */
export function trpcContextFor(input: {
  db: Db;
  actor: Actor | null;
  languageCookie?: string | null;
  acceptLanguage?: string | null;
  sameOrigin: boolean;
}): TrpcContext {
  const language = chosenLanguage(input.languageCookie, input.acceptLanguage);
  return {
    service: createServiceContext({ db: input.db, actor: input.actor, requestId: newId("req"), language }),
    sameOrigin: input.sameOrigin,
  };
}

/**
 * The context of a call over HTTP (`/api/trpc`). The request counts once against the account's session limit
 * (docs/security.md, "Limits"); over it, every call of the request is refused with 429 `session_rate_limited`.
 * Server components' in-process calls are page renders and do not count.
 */
export async function createTrpcContextFromRequest(request: Request): Promise<TrpcContext> {
  const context = await createTrpcContext({
    sessionToken: readCookie(request, SESSION_COOKIE),
    languageCookie: readCookie(request, LANGUAGE_COOKIE),
    acceptLanguage: request.headers.get("accept-language"),
    sameOrigin: isSameOrigin(request),
  });
  const { actor, db, now } = context.service;
  if (!actor) return context;
  try {
    await countSessionRequest(db, actor.accountId, now());
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { ...context, refusal: error };
  }
  return context;
}
