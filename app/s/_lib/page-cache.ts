import { unstable_cache } from "next/cache";
import { log } from "@/server/lib/log";
import { EVERY_STOREFRONT, onStorefrontChanged, type StorefrontChange } from "@/server/storefronts/changes";

/**
 * The public pages' cache (docs/ui.md, "Public storefront", caching). Each page of a storefront (store, product,
 * checkout) is rendered once and kept in Next's cache, tagged with the storefront's id and with the slug it was
 * asked under; services announce every change the page shows after their commit
 * (server/storefronts/changes.ts), and this module expires the tags of that storefront, so the next view
 * renders afresh.
 *
 * Why not `revalidateTag` from next/cache: in Next 16.4 it only RECORDS the tag in the current request's work
 * store (`pendingRevalidatedTags`), which Next applies when the route handler or server action that called it
 * finishes. Called outside any request (the background worker, a job, an image fetched after the response) it
 * throws "Invariant: static generation store missing"; called from a task that runs after the request's
 * revalidations were applied, it is silently lost. `updateTag` works in server actions only. So the tags are
 * expired through the process's incremental cache directly, which is the call Next itself makes for them at the
 * end of a request (`incrementalCache.revalidateTag(tags, durations)`; `expire: 0` = now): it works from any
 * context and takes effect at once, before the changing request has even answered. The browser test "after a
 * product PATCH the next page view shows the change" (e2e/storefront.spec.ts) guards this against Next upgrades.
 *
 * The cache is per process. On PostgreSQL every process hears the changes the others make, on this host or
 * another (server/storefronts/change-relay.ts, NOTIFY/LISTEN), and expires its pages the same way; a process that
 * may have missed some (its LISTEN session was lost) expires every public page (`ALL_PAGES_TAG`).
 * docs/operations.md, "Public storefront cache".
 */
export const PAGE_REVALIDATE_SECONDS = 60;

export function storefrontTag(storefrontId: string): string {
  return `storefront:${storefrontId}`;
}

export function slugTag(slug: string): string {
  return `storefront-slug:${slug}`;
}

/** Carried by every public page: expiring it expires them all. */
export const ALL_PAGES_TAG = "storefront-pages";

type IncrementalCache = { revalidateTag: (tags: string[], durations?: { expire?: number }) => Promise<void> };

function incrementalCache(): IncrementalCache | null {
  const cache = (globalThis as { __incrementalCache?: Partial<IncrementalCache> }).__incrementalCache;
  return typeof cache?.revalidateTag === "function" ? (cache as IncrementalCache) : null;
}

/** Expires the cached pages carrying any of `tags` in this process (a miss on their next view). */
export function expireTags(tags: string[]): void {
  // No cache yet: this process has served no page, so it holds none to expire.
  const cache = incrementalCache();
  if (!cache) return;
  cache.revalidateTag(tags, { expire: 0 }).catch((error: unknown) => {
    log("warn", "public page cache: expiring tags failed", { tags, error });
  });
}

function tagsOf(change: StorefrontChange): string[] {
  return change.slug
    ? [storefrontTag(change.storefrontId), slugTag(change.slug)]
    : [storefrontTag(change.storefrontId)];
}

/**
 * A page whose render read the storefront just before a change committed, and is written to the cache just
 * after the change expired its tags, would be kept as fresh: Next stamps a page with the time it is written, not
 * the time its data was read. So each change expires the tags again a little later, which catches such renders
 * (they take milliseconds; these allow for a busy process).
 */
const LATE_EXPIRY_MS = [1000, 5000];

const SUBSCRIBED = Symbol.for("marea.publicPageCacheSubscribed");

/**
 * Subscribes this process to storefront changes, once (every page module calls it on load; a process that has
 * loaded none has cached none).
 */
export function subscribeToStorefrontChanges(): void {
  const holder = globalThis as { [SUBSCRIBED]?: boolean };
  if (holder[SUBSCRIBED]) return;
  holder[SUBSCRIBED] = true;
  onStorefrontChanged((change) => {
    const tags = change === EVERY_STOREFRONT ? [ALL_PAGES_TAG] : tagsOf(change);
    expireTags(tags);
    for (const delay of LATE_EXPIRY_MS) setTimeout(() => expireTags(tags), delay).unref?.();
  });
}

/**
 * Puts tags on the page being rendered: a cached call that does nothing but carry them (Next adds the tags of
 * every `unstable_cache` call during a render to the page's cache entry).
 */
export async function tagThisPage(tags: string[]): Promise<void> {
  await unstable_cache(async () => true, ["marea-page-tags", ...tags], {
    tags: [...tags, ALL_PAGES_TAG],
    revalidate: PAGE_REVALIDATE_SECONDS,
  })();
}
