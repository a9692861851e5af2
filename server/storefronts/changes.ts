import type { ServiceContext } from "@/server/context";
import { log } from "@/server/lib/log";

/**
 * "What the public page of this storefront shows has changed" (docs/ui.md, "Public storefront", caching): a tiny
 * in-process publisher. Services call `storefrontChangedAfterCommit` for every change the page shows (storefront
 * update, publish, unpublish, delete and settings; product create, update, delete and batch; stock taken or put
 * back by orders; a product image fetched). The page side subscribes and expires its cached pages. Services
 * know nothing of Next: they only announce.
 *
 * Other processes and hosts hear of each change through PostgreSQL (server/storefronts/change-relay.ts).
 *
 * The listeners live on `globalThis`, so every bundle of the app that loads this module (Next builds route
 * handlers and pages into separate chunks) shares one list per process.
 */
export type StorefrontChange = {
  storefrontId: string;
  /** The storefront's slug after the change when the service knows it (a page cached under it goes too). */
  slug?: string | null;
};

/**
 * "Any storefront may have changed": announced when this process may have missed changes made elsewhere (its
 * LISTEN session was lost, server/storefronts/change-relay.ts); the page side then expires every public page.
 */
export const EVERY_STOREFRONT = "every-storefront";

/** `local`: made by this process (the relay sends it to the others); `remote`: heard from another process. */
export type ChangeOrigin = "local" | "remote";

type Listener = (change: StorefrontChange | typeof EVERY_STOREFRONT, origin: ChangeOrigin) => void;

const LISTENERS = Symbol.for("marea.storefrontChangeListeners");

function listeners(): Set<Listener> {
  const holder = globalThis as { [LISTENERS]?: Set<Listener> };
  holder[LISTENERS] ??= new Set<Listener>();
  return holder[LISTENERS];
}

/** Subscribes to changes; returns the unsubscribe function. */
export function onStorefrontChanged(listener: Listener): () => void {
  listeners().add(listener);
  return () => listeners().delete(listener);
}

/** Tells every listener, synchronously; a failing listener is logged and the others still run. */
export function notifyStorefrontChanged(
  change: StorefrontChange | typeof EVERY_STOREFRONT,
  origin: ChangeOrigin = "local",
): void {
  for (const listener of listeners()) {
    try {
      listener(change, origin);
    } catch (error) {
      log("warn", "storefront change listener failed", {
        storefrontId: change === EVERY_STOREFRONT ? change : change.storefrontId,
        error,
      });
    }
  }
}

/** Announces the change once the caller's work has committed (a rolled-back change announces nothing). */
export function storefrontChangedAfterCommit(ctx: ServiceContext, change: StorefrontChange): void {
  ctx.afterCommit(() => notifyStorefrontChanged(change));
}
