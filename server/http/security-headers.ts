import { randomBytes } from "node:crypto";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { OWN_INLINE_SCRIPT_SOURCES } from "./inline-scripts";
import { SCRIPT_HASHES_HEADER } from "./page-script-hashes";

/**
 * The browser security headers of every answer of the production start (docs/security.md, "Headers"). Set here,
 * in server/host/main.ts, rather than in `proxy.ts` (a proxy that matches a route costs about a third of its
 * throughput) or next.config.ts (evaluated at build time, so it cannot follow APP_URL).
 *
 * - Every answer: `X-Content-Type-Options: nosniff`, `Referrer-Policy: strict-origin-when-cross-origin` (a page
 *   may set a stricter one: the order status page sends `no-referrer`), `X-Frame-Options: DENY`, and
 *   `Strict-Transport-Security` when APP_URL is https. Nothing is meant to be embedded in a frame today.
 * - JSON and other non-HTML answers: `Content-Security-Policy: frame-ancestors 'none'`.
 * - HTML pages: a full policy. Dynamic pages get a fresh nonce per request, which Next puts on every script it
 *   writes (it reads the nonce from the request's own `Content-Security-Policy` header, set here) with
 *   `'strict-dynamic'`; pages served from Next's cache cannot carry a per-request nonce, so they get the SHA-256 of
 *   each of their inline scripts, taken once when the page was cached (server/http/page-script-hashes.ts). The
 *   app's own inline scripts are allowed by hash everywhere (server/http/inline-scripts.ts).
 */

export type SecurityHeaderConfig = {
  /** APP_URL is https: HSTS, `upgrade-insecure-requests`, and no plain-http images. */
  isHttps: boolean;
};

/** The headers every answer carries, set before the handler runs (a handler's own value wins). */
export function baseSecurityHeaders(config: SecurityHeaderConfig): Map<string, string> {
  const headers = new Map([
    ["x-content-type-options", "nosniff"],
    ["referrer-policy", "strict-origin-when-cross-origin"],
    ["x-frame-options", "DENY"],
  ]);
  // A year, this host only: subdomains may be other people's services.
  if (config.isHttps) headers.set("strict-transport-security", "max-age=31536000");
  return headers;
}

/** The policy of an answer that is not a page: it may never be framed. */
export const NON_PAGE_POLICY = "frame-ancestors 'none'";

type ScriptPolicy = { nonce: string } | { hashes: string };

/**
 * The policy of an HTML page. `formAction: false` leaves form targets open: the OAuth consent form answers with
 * a redirect to the client's own redirect URI (any https URL, a loopback port or an app's scheme), and browsers
 * apply `form-action` to that redirect too.
 */
export function pagePolicy(config: SecurityHeaderConfig, scripts: ScriptPolicy, formAction = true): string {
  const own = OWN_INLINE_SCRIPT_SOURCES.join(" ");
  const scriptSrc =
    "nonce" in scripts
      ? `script-src 'self' 'nonce-${scripts.nonce}' 'strict-dynamic' ${own}`
      : `script-src 'self' ${scripts.hashes ? `${scripts.hashes} ` : ""}${own}`;
  return [
    "default-src 'self'",
    scriptSrc,
    // Inline style attributes (the storefront's theme colours, Radix's positioning): styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    // Merchants' logos and product images are any http(s) URL (https only when the app is).
    `img-src 'self' data: blob: https:${config.isHttps ? "" : " http:"}`,
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    ...(formAction ? ["form-action 'self'"] : []),
    "frame-ancestors 'none'",
    ...(config.isHttps ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

/** Sets the headers every answer carries; for a direct handler (not a page), its policy too. */
export function secureDirectAnswer(res: ServerResponse, base: Map<string, string>): void {
  res.setHeaders(base);
  res.setHeader("content-security-policy", NON_PAGE_POLICY);
}

/**
 * The policies of cached pages, by their hashes: the same few pages are served over and over, so each policy is
 * built once. Bounded: past 1,000 distinct pages it starts over.
 */
const cachedPagePolicies = new Map<string, string>();

function cachedPagePolicy(config: SecurityHeaderConfig, hashes: string, formAction: boolean): string {
  const key = `${formAction ? "f" : "-"}${hashes}`;
  let policy = cachedPagePolicies.get(key);
  if (policy === undefined) {
    if (cachedPagePolicies.size >= 1000) cachedPagePolicies.clear();
    policy = pagePolicy(config, { hashes }, formAction);
    cachedPagePolicies.set(key, policy);
  }
  return policy;
}

function contentTypeOf(res: ServerResponse, args: unknown[]): string {
  const fromArgs = args.find((a): a is OutgoingHttpHeaders => typeof a === "object" && a !== null);
  const value = fromArgs?.["content-type"] ?? res.getHeader("content-type");
  return String(Array.isArray(value) ? value[0] : (value ?? ""));
}

// Nonces come from a pool of random bytes refilled 4 KiB at a time: one call into the random source per 256
// requests instead of one per request (it showed in profiles of the cached public page). Each nonce is 16 bytes
// no other nonce shares.
let noncePool = Buffer.alloc(0);
let noncePoolOffset = 0;

function freshNonce(): string {
  if (noncePoolOffset + 16 > noncePool.length) {
    noncePool = randomBytes(4096);
    noncePoolOffset = 0;
  }
  const nonce = noncePool.toString("base64", noncePoolOffset, noncePoolOffset + 16);
  noncePoolOffset += 16;
  return nonce;
}

/**
 * For a request Next answers: the base headers now; a nonce in the request's CSP header for Next to put on its
 * scripts (any copy a client sent is replaced); and, when the answer's head goes out, the page policy (nonce or,
 * for a cached page, its scripts' hashes) on HTML, or the non-page policy on anything else. A policy Next already
 * set (next.config.ts headers) stays: browsers enforce every policy sent.
 */
export function secureNextAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  base: Map<string, string>,
  config: SecurityHeaderConfig,
): void {
  res.setHeaders(base);
  const nonce = freshNonce();
  // Next reads the nonce from this header first (a report-only copy only when it is absent).
  req.headers["content-security-policy"] = `script-src 'nonce-${nonce}'`;
  const formAction = !(req.url ?? "").startsWith("/dashboard/oauth/consent");
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    const stored = this.getHeader(SCRIPT_HASHES_HEADER);
    if (stored !== undefined) this.removeHeader(SCRIPT_HASHES_HEADER);
    const hashes = Array.isArray(stored)
      ? stored.join(" ")
      : stored === undefined
        ? undefined
        : String(stored);
    const policy = !contentTypeOf(this, args).startsWith("text/html")
      ? NON_PAGE_POLICY
      : hashes !== undefined
        ? cachedPagePolicy(config, hashes, formAction)
        : pagePolicy(config, { nonce }, formAction);
    const existing = this.getHeader("content-security-policy");
    this.setHeader(
      "content-security-policy",
      existing === undefined
        ? policy
        : [...(Array.isArray(existing) ? existing : [String(existing)]), policy],
    );
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as typeof res.writeHead;
}
