import { cache } from "react";
import { createServiceContext } from "@/server/context";
import { dbReady } from "@/server/db/client";
import { isAppError } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import { SlugInput } from "@/server/storefronts/schema";
import { getPublishedStorefrontBySlug, type PublishedStorefront } from "@/server/storefronts/service";
import { slugTag, storefrontTag, subscribeToStorefrontChanges, tagThisPage } from "./page-cache";

subscribeToStorefrontChanges();

/**
 * The published storefront behind a public page, or null (unknown, unpublished, hidden or deleted: the page
 * answers 404). One service call, shared by the page and its metadata within a render; the page gets the
 * storefront's tags so a change expires it (page-cache.ts).
 */
export const loadPublishedStorefront = cache(async (slug: string): Promise<PublishedStorefront | null> => {
  if (!SlugInput.unwrap().safeParse(slug).success) return null;
  await tagThisPage([slugTag(slug)]);
  const ctx = createServiceContext({ db: await dbReady(), requestId: newId("req") });
  try {
    const published = await getPublishedStorefrontBySlug(ctx, { slug });
    await tagThisPage([storefrontTag(published.storefront.id)]);
    return published;
  } catch (error) {
    if (isAppError(error) && error.code === "storefront_not_found") return null;
    throw error;
  }
});
