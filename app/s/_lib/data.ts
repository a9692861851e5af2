import { cache } from "react";
import { createServiceContext } from "@/server/context";
import { dbReady } from "@/server/db/client";
import { isAppError } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import {
  getPublishedProduct,
  getPublishedStorefrontBySlug,
  type PublishedProduct,
  type PublishedStorefront,
} from "@/server/storefronts/publish";
import { SlugInput } from "@/server/storefronts/schema";
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

/**
 * One product of a published storefront, or null (unknown or hidden product, or a storefront that is not public):
 * one row, never the whole catalogue, so a made-up product path answers 404 cheaply (docs/ui.md, "Public
 * storefront"). Tagged like the store page, so a change of the storefront or its products expires it.
 */
export const loadPublishedProduct = cache(
  async (slug: string, productId: string): Promise<PublishedProduct | null> => {
    if (!SlugInput.unwrap().safeParse(slug).success || !PRODUCT_ID.test(productId)) return null;
    await tagThisPage([slugTag(slug)]);
    const ctx = createServiceContext({ db: await dbReady(), requestId: newId("req") });
    try {
      const published = await getPublishedProduct(ctx, { slug, productId });
      await tagThisPage([storefrontTag(published.storefront.id)]);
      return published;
    } catch (error) {
      if (isAppError(error) && error.code === "product_not_found") return null;
      throw error;
    }
  },
);

/** A product id (`prd_` and a lowercase ULID): anything else names no product and is not looked up. */
const PRODUCT_ID = /^prd_[0-9a-z]{26}$/;
