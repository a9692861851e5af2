import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/server/db/client";
import { fetchImageGuarded, type ImageFetcher } from "@/server/files/fetch";
import { ensureVariants, fileIdOfUrl, findFile, storeFetchedImage, variantUrl } from "@/server/files/service";
import { log } from "@/server/lib/log";
import { notifyStorefrontChanged } from "@/server/storefronts/changes";
import { products } from "./tables";

export type { FetchedImage, ImageFetcher } from "@/server/files/fetch";
export { fetchImageGuarded };

export type ImageOutcome = "thumbnail" | "failed" | "skipped";

/**
 * The file that shows a product's `imageUrl`, with its WebP variants made: an uploaded file's own URL is that
 * file; any other URL is fetched once under the guard and stored as a file of the product's account.
 */
async function imageFileFor(
  db: Db,
  input: { accountId: string; imageUrl: string; now: Date },
  fetchImage: ImageFetcher,
): Promise<{ fileId: string; smallest: number }> {
  const ownId = fileIdOfUrl(input.imageUrl);
  let file = ownId ? await findFile(db, ownId) : null;
  if (!file) {
    const fetched = await fetchImage(input.imageUrl);
    if (!fetched) throw new Error("the image could not be fetched");
    file = await storeFetchedImage(db, {
      accountId: input.accountId,
      bytes: fetched.bytes,
      contentType: fetched.contentType,
      sourceUrl: input.imageUrl,
      now: input.now,
    });
  }
  const variants = await ensureVariants(db, file.id);
  const smallest = variants[0];
  if (!smallest) throw new Error("the image could not be resized");
  return { fileId: file.id, smallest: smallest.width };
}

/**
 * The background job of one product (docs/api.md, "Images"): the image behind `imageUrl` (an uploaded file, or
 * fetched once under the SSRF guard) is resized into WebP variants; then `imageProcessingPending` clears and
 * `thumbnailUrl`, unless the client set its own, becomes the smallest variant's URL. A failure (not fetched, not an
 * image, too big, not resizable) clears the flag, keeps the URL as it is and logs why. The update only applies
 * while the row still holds the URL that was processed, so a newer `imageUrl` is not overwritten.
 */
export async function processProductImage(
  db: Db,
  productId: string,
  fetchImage: ImageFetcher = fetchImageGuarded,
  now: Date = new Date(),
): Promise<ImageOutcome> {
  const [row] = await db
    .select({
      imageUrl: products.imageUrl,
      pending: products.imageProcessingPending,
      accountId: products.accountId,
    })
    .from(products)
    .where(eq(products.id, productId))
    .limit(1);
  if (!row?.pending) return "skipped";
  const imageUrl = row.imageUrl;
  let image: { fileId: string; smallest: number } | null = null;
  if (imageUrl) {
    try {
      image = await imageFileFor(db, { accountId: row.accountId, imageUrl, now }, fetchImage);
    } catch (error) {
      log("info", "product image not processed", {
        productId,
        url: imageUrl,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  const isClientThumbnail = sql`(${products.thumbnailUrl} is not null and not ${products.isThumbnailGenerated})`;
  const updated = await db
    .update(products)
    .set(
      image
        ? {
            imageProcessingPending: false,
            imageFileId: image.fileId,
            thumbnailUrl: sql`case when ${isClientThumbnail} then ${products.thumbnailUrl} else ${variantUrl(image.fileId, image.smallest)} end`,
            isThumbnailGenerated: sql`not ${isClientThumbnail}`,
          }
        : { imageProcessingPending: false, imageFileId: null },
    )
    .where(
      and(
        eq(products.id, productId),
        eq(products.imageProcessingPending, true),
        imageUrl === null ? sql`${products.imageUrl} is null` : eq(products.imageUrl, imageUrl),
      ),
    )
    .returning({ id: products.id, storefrontId: products.storefrontId });
  const [changed] = updated;
  if (!changed) return "skipped";
  // The public page shows the thumbnail (docs/ui.md, "Public storefront"): this runs after its own commit.
  notifyStorefrontChanged({ storefrontId: changed.storefrontId });
  return image ? "thumbnail" : "failed";
}

/** Images fetched at the same time by one call (a batch of 100 products must not open 100 sockets at once). */
const IMAGE_CONCURRENCY = 4;

/** Processes several products, a few at a time (called after the commit that created or changed them). */
export async function processProductImages(
  db: Db,
  productIds: string[],
  fetchImage: ImageFetcher = fetchImageGuarded,
): Promise<Record<ImageOutcome, number>> {
  const counts: Record<ImageOutcome, number> = { thumbnail: 0, failed: 0, skipped: 0 };
  let next = 0;
  const worker = async () => {
    while (next < productIds.length) {
      const id = productIds[next++] as string;
      counts[await processProductImage(db, id, fetchImage)]++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(IMAGE_CONCURRENCY, productIds.length) }, worker));
  return counts;
}

/**
 * Sweep for a scheduled job: products still pending (the process that created them stopped before its
 * after-commit task ran). Suggested job name `process-product-images`.
 */
export async function processPendingProductImages(
  db: Db,
  options: { limit?: number; fetchImage?: ImageFetcher } = {},
): Promise<Record<ImageOutcome, number>> {
  const rows = await db
    .select({ id: products.id })
    .from(products)
    .where(eq(products.imageProcessingPending, true))
    .limit(options.limit ?? 100);
  return processProductImages(
    db,
    rows.map((row) => row.id),
    options.fetchImage,
  );
}
