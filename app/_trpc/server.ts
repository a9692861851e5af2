import { cookies, headers } from "next/headers";
import { cache } from "react";
import { LANGUAGE_COOKIE, SESSION_COOKIE } from "@/server/sessions/cookies";
import { createTrpcContext } from "@/server/trpc/context";
import { createCaller } from "@/server/trpc/router";

/**
 * The tRPC caller for server components (docs/ui.md, "tRPC"): the same procedures the browser calls, with the
 * request's session, without HTTP. One per request. Reads only: a server component never mutates, so the caller
 * is built as cross-origin and every mutation through it is refused.
 */
export const getServerCaller = cache(async () => {
  const [cookieStore, headerList] = await Promise.all([cookies(), headers()]);
  const context = await createTrpcContext({
    sessionToken: cookieStore.get(SESSION_COOKIE)?.value,
    languageCookie: cookieStore.get(LANGUAGE_COOKIE)?.value,
    acceptLanguage: headerList.get("accept-language"),
    sameOrigin: false,
  });
  return createCaller(context);
});
