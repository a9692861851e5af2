import { cookies, headers } from "next/headers";
import { cache } from "react";
import { requireSignedInAccount } from "@/app/dashboard/_lib/session";
import { dbReady } from "@/server/db/client";
import { LANGUAGE_COOKIE } from "@/server/kit/cookies";
import { actorOfSignedInSession } from "@/server/sessions/actor";
import { trpcContextFor } from "@/server/trpc/context";
import { createCaller } from "@/server/wiring/trpc";

/**
 * The tRPC caller for dashboard server components (docs/ui.md, "tRPC"): the same procedures the browser calls,
 * with the request's session, without HTTP. One per request, over the account the dashboard's sign-in gate
 * already read (no second session lookup). Reads only: a server component never mutates, so the caller is built
 * as cross-origin and every mutation through it is refused.
 */
export const getServerCaller = cache(async () => {
  const [session, cookieStore, headerList, db] = await Promise.all([
    requireSignedInAccount(),
    cookies(),
    headers(),
    dbReady(),
  ]);
  return createCaller(
    trpcContextFor({
      db,
      actor: actorOfSignedInSession(session),
      languageCookie: cookieStore.get(LANGUAGE_COOKIE)?.value ?? session.account.language,
      acceptLanguage: headerList.get("accept-language"),
      sameOrigin: false,
    }),
  );
});
