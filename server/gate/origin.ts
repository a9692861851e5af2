import { env } from "@/server/env";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * CSRF defence for every state-changing request made with the session cookie (SameSite=Lax already keeps the
 * cookie off cross-site POSTs in current browsers; this is the second lock, and the one that also covers
 * same-site subdomains).
 *
 * - An `Origin` header must equal APP_URL's origin or the request's own origin (`null` and anything else:
 *   refused).
 * - No `Origin`: `Sec-Fetch-Site: same-origin` passes; any other `Sec-Fetch-Site` is refused.
 * - Neither header (an old browser or a non-browser client): only GET, HEAD and OPTIONS pass.
 */
export function isSameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin !== null) return isAppOrigin(origin, request);
  const fetchSite = request.headers.get("sec-fetch-site");
  if (fetchSite !== null) return fetchSite === "same-origin";
  return SAFE_METHODS.has(request.method.toUpperCase());
}

/** True when `origin` is APP_URL's origin or the request's own origin (`null` never is). */
export function isAppOrigin(origin: string, request: Request): boolean {
  if (origin === "null") return false;
  return origin === originOf(env().APP_URL) || origin === originOf(request.url);
}
