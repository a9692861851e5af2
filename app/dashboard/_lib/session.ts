import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { dbReady } from "@/server/db/client";
import { hasAcceptedCurrentTerms } from "@/server/gate/terms";
import { sessionCookieName } from "@/server/kit/cookies";
import { safeNextPath } from "@/server/sessions/next-path";
import type { SignedInAccountDto } from "@/server/sessions/schema";
import { resolveSignedInSession } from "@/server/sessions/service";

/** The header proxy.ts sets to the requested path, so a redirect to /signin can bring the person back. */
export const PATHNAME_HEADER = "x-marea-pathname";

/**
 * The signed-in account of this request, or a redirect: to /signin (no or dead session), or to the terms step
 * (current terms not accepted). One statement reads the session and its account; cached per request, so the layout,
 * the page and its tRPC server caller (app/_trpc/server.ts) share it.
 */
export const requireSignedInAccount = cache(
  async (): Promise<{ sessionId: string; account: SignedInAccountDto }> => {
    const [cookieStore, headerList] = await Promise.all([cookies(), headers()]);
    const here = safeNextPath(headerList.get(PATHNAME_HEADER)) ?? "/dashboard";
    const db = await dbReady();
    const session = await resolveSignedInSession(db, cookieStore.get(sessionCookieName())?.value, new Date());
    if (!session) redirect(`/signin?${new URLSearchParams({ next: here })}`);
    const { account } = session;
    if (!hasAcceptedCurrentTerms(account.tosAcceptedVersion))
      redirect(`/signin/terms?${new URLSearchParams({ next: here })}`);
    return { sessionId: session.sessionId, account };
  },
);
