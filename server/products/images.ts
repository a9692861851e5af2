import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/server/db/client";
import { log } from "@/server/lib/log";
import { notifyStorefrontChanged } from "@/server/storefronts/changes";
import { safeFetch } from "@/server/webhooks/url-guard";
import { products } from "./tables";

/** How long one image may take to answer (the webhook timeout's default). */
const IMAGE_FETCH_TIMEOUT_MS = 5000;

/** Answers true when the image URL answered 2xx. One function, so the transport can change in one place. */
export type ImageFetcher = (url: string) => Promise<boolean>;

/**
 * Fetches an image under the same SSRF guard as webhook deliveries (`safeFetch`: https only, every resolved
 * address public, the connection pinned to the checked address, no redirects; `UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS=1`
 * also admits http:// loopback for local development). Anything refused or failing is `false`.
 */
export async function fetchImageGuarded(
  url: string,
  options: { allowLocal?: boolean } = {},
): Promise<boolean> {
  try {
    const response = await safeFetch(url, {
      method: "GET",
      timeoutMs: IMAGE_FETCH_TIMEOUT_MS,
      maxBodyBytes: 1024,
      allowLocal: options.allowLocal,
      headers: { accept: "image/*", "user-agent": "service-image-fetcher/1.0" },
    });
    return response.status >= 200 && response.status < 300;
  } catch (error) {
    log("info", "product image not fetched", {
      url,
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
}

export type ImageOutcome = "thumbnail" | "failed" | "skipped";

/**
 * The background job of one product (docs/api.md, "Images"): fetch `imageUrl`; on success record the
 * thumbnail URL (the verified image URL itself, unless the client set `thumbnailUrl`: this service resizes
 * nothing yet) and clear `imageProcessingPending`; on failure clear the flag and keep the URL. The update only
 * applies while the row still holds the URL that was fetched, so a newer `imageUrl` is not overwritten.
 */
export async function processProductImage(
  db: Db,
  productId: string,
  fetchImage: ImageFetcher = fetchImageGuarded,
): Promise<ImageOutcome> {
  const [row] = await db
    .select({ imageUrl: products.imageUrl, pending: products.imageProcessingPending })
    .from(products)
    .where(eq(products.id, productId))
    .limit(1);
  if (!row?.pending) return "skipped";
  const imageUrl = row.imageUrl;
  const isFetched = imageUrl ? await fetchImage(imageUrl) : false;
  const updated = await db
    .update(products)
    .set({
      imageProcessingPending: false,
      thumbnailUrl: isFetched
        ? sql`coalesce(${products.thumbnailUrl}, ${products.imageUrl})`
        : products.thumbnailUrl,
    })
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
  return isFetched ? "thumbnail" : "failed";
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
