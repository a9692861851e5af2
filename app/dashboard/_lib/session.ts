import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { hasAcceptedCurrentTerms } from "@/server/accounts/terms";
import { dbReady } from "@/server/db/client";
import { SESSION_COOKIE } from "@/server/sessions/cookies";
import { safeNextPath } from "@/server/sessions/next-path";
import type { SignedInAccountDto } from "@/server/sessions/schema";
import { getSignedInAccount, resolveSession } from "@/server/sessions/service";

/** The header proxy.ts sets to the requested path, so a redirect to /signin can bring the person back. */
export const PATHNAME_HEADER = "x-marea-pathname";

/**
 * The signed-in account of this request, or a redirect: to /signin (no or dead session), or to the terms step
 * (current terms not accepted). Cached per request, so the layout and the page share one lookup. The lead
 * replaces the account read with the tRPC caller once sessions become Actors.
 */
export const requireSignedInAccount = cache(
  async (): Promise<{ sessionId: string; account: SignedInAccountDto }> => {
    const [cookieStore, headerList] = await Promise.all([cookies(), headers()]);
    const here = safeNextPath(headerList.get(PATHNAME_HEADER)) ?? "/dashboard";
    const db = await dbReady();
    const session = await resolveSession(db, cookieStore.get(SESSION_COOKIE)?.value, new Date());
    const account = session ? await getSignedInAccount(db, session.accountId) : null;
    if (!session || !account) redirect(`/signin?${new URLSearchParams({ next: here })}`);
    if (!hasAcceptedCurrentTerms(account.tosAcceptedVersion))
      redirect(`/signin/terms?${new URLSearchParams({ next: here })}`);
    return { sessionId: session.sessionId, account };
  },
);
