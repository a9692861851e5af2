// @ts-check
import { createHash } from "node:crypto";
import fileSystemCache from "next/dist/server/lib/incremental-cache/file-system-cache.js";

/**
 * Next's cache of rendered pages (the public storefront pages; docs/operations.md, "Public storefront cache"),
 * with one addition: every page kept in it carries the SHA-256 of each of its inline scripts, in the private
 * response header below, so the production start can send a hash-based Content-Security-Policy with a page that
 * was rendered once and is served many times (a per-request nonce cannot be in cached HTML; docs/security.md,
 * "Headers"). The hashes are taken once per render (or once per process for a page prerendered at build) and kept
 * with the page; the production start turns them into the policy and drops the private header
 * (server/http/security-headers.ts). Everything else is Next's own file-system cache, kept in memory only
 * (`experimental.isrFlushToDisk: false`).
 *
 * Plain JavaScript: Next loads a cache handler with Node at run time, without compiling it.
 */

/** Must equal SCRIPT_HASHES_HEADER in server/http/security-headers.ts. */
export const SCRIPT_HASHES_HEADER = "x-marea-script-hashes";

// Node hands this CommonJS module's exports over as the default import; a bundle (the proxy's) hands its default.
const FileSystemCache = typeof fileSystemCache === "function" ? fileSystemCache : fileSystemCache.default;

const SCRIPT_TAG = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;
const JAVASCRIPT_TYPES = new Set(["", "text/javascript", "application/javascript", "module"]);

/**
 * The CSP hash source of every inline script in `html` that a browser would run: no `src`, a JavaScript type
 * (JSON-LD and other data blocks are never run, so never checked). In order, without repeats.
 * @param {string} html
 * @returns {string[]}
 */
export function inlineScriptHashes(html) {
  const sources = new Set();
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

/**
 * Adds the hashes to a page entry once (the entry object is the one the memory cache keeps).
 * @param {unknown} value
 */
function withScriptHashes(value) {
  const page = /** @type {{ kind?: string; html?: unknown; headers?: Record<string, unknown> } | null} */ (
    value
  );
  if (page?.kind !== "APP_PAGE" || typeof page.html !== "string") return;
  page.headers ??= {};
  if (page.headers[SCRIPT_HASHES_HEADER] !== undefined) return;
  page.headers[SCRIPT_HASHES_HEADER] = inlineScriptHashes(page.html).join(" ");
}

export default class PageCacheHandler extends FileSystemCache {
  /** @param {Parameters<InstanceType<typeof FileSystemCache>["get"]>} args */
  async get(...args) {
    const entry = await super.get(...args);
    withScriptHashes(entry?.value);
    return entry;
  }

  /** @param {Parameters<InstanceType<typeof FileSystemCache>["set"]>} args */
  async set(...args) {
    withScriptHashes(args[1]);
    return super.set(...args);
  }
}
