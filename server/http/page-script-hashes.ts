import { createHash } from "node:crypto";

/**
 * The hashes of a cached page's inline scripts, for its Content-Security-Policy (docs/security.md, "Headers"). The
 * public storefront pages are rendered once and served from Next's page cache many times, so a per-request nonce
 * cannot be in their HTML. Instead, when a page enters Next's cache (or is first read from a build's prerendered
 * files), the SHA-256 of each of its inline scripts is taken once and kept with the page, in the private response
 * header below; the production start turns it into the policy and drops the header (./security-headers.ts). A view
 * of a cached page costs no hashing.
 *
 * How: the production start wraps the `get` and `set` of Next's page cache (`wrapPageCache`). Not a documented API
 * (a configured `cacheHandler` would be, but Next imports it again on every request, which under the production
 * start's TypeScript loader cost about a tenth of a cached view): the test "a cached public storefront page gets
 * the hashes of its own inline scripts" (server/http/edge.test.ts) fails if a Next upgrade moves it.
 */

/** The private response header that carries a cached page's hashes to ./security-headers.ts (never sent). */
export const SCRIPT_HASHES_HEADER = "x-marea-script-hashes";

const SCRIPT_TAG = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;
const JAVASCRIPT_TYPES = new Set(["", "text/javascript", "application/javascript", "module"]);

/**
 * The CSP hash source of every inline script in `html` that a browser would run: no `src`, a JavaScript type
 * (JSON-LD and other data blocks are never run, so never checked). In order, without repeats.
 */
export function inlineScriptHashes(html: string): string[] {
  const sources = new Set<string>();
  for (const match of html.matchAll(SCRIPT_TAG)) {
    const attributes = match[1] ?? "";
    if (/\ssrc\s*=/i.test(attributes)) continue;
    const type = attributes.match(/\stype\s*=\s*["']?([^"'\s>]*)/i)?.[1]?.toLowerCase() ?? "";
    if (!JAVASCRIPT_TYPES.has(type)) continue;
    sources.add(
      `'sha256-${createHash("sha256")
        .update(match[2] ?? "", "utf8")
        .digest("base64")}'`,
    );
  }
  return [...sources];
}

type CachedValue = { kind?: string; html?: unknown; headers?: Record<string, unknown> } | null | undefined;

/** Adds the hashes to a page entry once (the entry object is the one the memory cache keeps). */
export function withScriptHashes(value: CachedValue): void {
  if (value?.kind !== "APP_PAGE" || typeof value.html !== "string") return;
  value.headers ??= {};
  if (value.headers[SCRIPT_HASHES_HEADER] !== undefined) return;
  value.headers[SCRIPT_HASHES_HEADER] = inlineScriptHashes(value.html).join(" ");
}

type CacheMethod = (this: unknown, ...args: unknown[]) => Promise<unknown>;
type CachePrototype = { get: CacheMethod; set: CacheMethod; [WRAPPED]?: true };

const WRAPPED = Symbol.for("marea.pageScriptHashes");

/**
 * Wraps the `get` and `set` of the page cache behind Next's incremental cache (`globalThis.__incrementalCache`, which
 * Next sets on every page request; app/s/_lib/page-cache.ts uses it too), once per class: each of Next's compiled
 * runtimes carries its own copy. The production start calls it before every request it hands to Next, so the page
 * cache is wrapped from the second page request of the process on; the first page a process renders is answered
 * with a nonce policy, which its HTML carries (Next renders with the request's nonce).
 */
export function wrapPageCache(incrementalCache: unknown): void {
  const handler = (incrementalCache as { cacheHandler?: unknown } | null | undefined)?.cacheHandler;
  if (typeof handler !== "object" || handler === null) return;
  const prototype = Object.getPrototypeOf(handler) as Partial<CachePrototype> | null;
  if (!prototype || prototype[WRAPPED]) return;
  if (typeof prototype.get !== "function" || typeof prototype.set !== "function") return;
  const cache = prototype as CachePrototype;
  const { get, set } = cache;
  cache.get = async function (this: unknown, ...args: unknown[]) {
    const entry = (await get.apply(this, args)) as { value?: CachedValue } | null | undefined;
    withScriptHashes(entry?.value);
    return entry;
  };
  cache.set = async function (this: unknown, ...args: unknown[]) {
    withScriptHashes(args[1] as CachedValue);
    return set.apply(this, args);
  };
  cache[WRAPPED] = true;
}
