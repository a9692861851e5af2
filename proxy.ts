import { type NextRequest, NextResponse } from "next/server";
import { SESSION_COOKIE, serializeCookie, sessionCookieName } from "@/server/kit/cookies";
import { SESSION_TTL_MS } from "@/server/sessions/constants";

/**
 * Runs for /dashboard pages only, never /v1: a proxy that matches a route costs its throughput (docs/ui.md).
 * - No session cookie at all: straight to /signin?next=<this page>, without touching the database.
 * - Otherwise the page renders (the layout checks the session in the database), told its own path through
 *   `x-marea-pathname`, and the cookie's Max-Age is renewed to 30 days: the server-side expiry slides with
 *   use (server/sessions/service.ts), so the browser's copy must not run out first.
 */
export function proxy(request: NextRequest) {
  const token = request.cookies.get(sessionCookieName())?.value;
  const here = `${request.nextUrl.pathname}${request.nextUrl.search}`;
  if (!token) {
    const signIn = new URL("/signin", request.url);
    signIn.searchParams.set("next", here);
    return NextResponse.redirect(signIn, 303);
  }
  const headers = new Headers(request.headers);
  headers.set("x-marea-pathname", here);
  const response = NextResponse.next({ request: { headers } });
  response.headers.append(
    "set-cookie",
    serializeCookie(SESSION_COOKIE, token, { maxAgeSeconds: SESSION_TTL_MS / 1000 }),
  );
  return response;
}

export const config = { matcher: ["/dashboard", "/dashboard/:path*"] };
