import { and, eq, inArray, isNull, lt, or } from "drizzle-orm";
import type { ServiceContext } from "@/server/context";
import { type Db, getDb } from "@/server/db/client";
import { fetchImageGuarded, type ImageFetcher } from "@/server/files/fetch";
import {
  ensureVariants,
  fileIdOfUrl,
  findFetchedFile,
  findFile,
  type ResponsiveImage,
  responsiveImageOf,
  storeFetchedImage,
} from "@/server/files/service";
import { files } from "@/server/files/tables";
import { log } from "@/server/lib/log";
import { notifyStorefrontChanged } from "./changes";
import { storefronts } from "./tables";

/**
 * Logos and backgrounds resized like product images (docs/api.md, "Branding images"). A branding image is one of
 * three references: `{fileId}` of an upload, an uploaded file's `url`, or an external http(s) URL. The first two
 * are the file; an external URL is fetched ONCE under the SSRF guard and stored as a file of the account that
 * remembers where it came from (`files.source_url`), so the storefront keeps the URL exactly as sent. Each file
 * gets the WebP variants of every image; the public page serves them with `srcset`.
 *
 * The write that sends a logo or background marks the storefront pending (`branding_images_pending_since`, its
 * new `updatedAt`) in the same statement; its after-commit job clears that mark when it ends. A mark still set
 * after `PENDING_GRACE_MS` (the process stopped between the commit and the job) is processed by the sweep
 * `process-branding-images`, as products left pending are by `process-product-images`.
 */

export const BRANDING_IMAGES = ["logoUrl", "backgroundUrl"] as const;
export type BrandingImageField = (typeof BRANDING_IMAGES)[number];

/** The variants of the logo and the background, when they exist (else the page shows the URL as it is). */
export type BrandingImages = { logo: ResponsiveImage | null; background: ResponsiveImage | null };

type Reference = { fileId: string } | { url: string } | null;

/** What a stored `logoUrl` / `backgroundUrl` names: a file of this service, an external URL, or nothing. */
function referenceOf(value: unknown): Reference {
  if (value && typeof value === "object" && typeof (value as { fileId?: unknown }).fileId === "string")
    return { fileId: (value as { fileId: string }).fileId };
  if (typeof value !== "string" || value === "auto" || !/^https?:\/\//i.test(value)) return null;
  const fileId = fileIdOfUrl(value);
  return fileId ? { fileId } : { url: value };
}

/** The branding images a write sends (`sent`: the create's or the PATCH's `branding`): the ones it processes. */
export function brandingImagesSent(sent: Record<string, unknown> | null | undefined): BrandingImageField[] {
  return BRANDING_IMAGES.filter((field) => referenceOf(sent?.[field]) !== null);
}

export type BrandingImageOutcome = "resized" | "failed" | "none";

/**
 * The background job of one storefront's branding (docs/api.md, "Branding images"), run after a write that sent
 * `branding`: the logo and the background are each made into WebP variants, an external URL fetched once under
 * the SSRF guard first (a URL this account already fetched is not fetched again). A failure (refused by the guard,
 * not an answer, not an image, too big, over the storage quota, not resizable) leaves the URL as it is, changes
 * nothing and logs why (`branding image not processed`). When something new was made the public page is expired.
 */
export async function processBrandingImages(
  db: Db,
  storefrontId: string,
  fetchImage: ImageFetcher = fetchImageGuarded,
  options: {
    now?: Date;
    fields?: readonly BrandingImageField[];
    /** The pending mark the write that scheduled this job set (default: the row's); cleared at the end. */
    pendingSince?: Date | null;
  } = {},
): Promise<Record<BrandingImageField, BrandingImageOutcome>> {
  const now = options.now ?? new Date();
  const outcome: Record<BrandingImageField, BrandingImageOutcome> = {
    logoUrl: "none",
    backgroundUrl: "none",
  };
  const [row] = await db
    .select({
      accountId: storefronts.accountId,
      branding: storefronts.branding,
      slug: storefronts.slug,
      pendingSince: storefronts.brandingImagesPendingSince,
    })
    .from(storefronts)
    .where(and(eq(storefronts.id, storefrontId), isNull(storefronts.deletedAt)))
    .limit(1);
  if (!row) return outcome;
  const branding = (row.branding ?? {}) as Record<string, unknown>;
  let isChanged = false;
  for (const field of options.fields ?? BRANDING_IMAGES) {
    const reference = referenceOf(branding[field]);
    if (!reference) continue;
    try {
      let file = "fileId" in reference ? await findFile(db, reference.fileId) : null;
      if ("url" in reference) {
        file = await findFetchedFile(db, row.accountId, reference.url);
        if (!file) {
          const fetched = await fetchImage(reference.url);
          if (!fetched) throw new Error("the image could not be fetched");
          file = await storeFetchedImage(db, {
            accountId: row.accountId,
            bytes: fetched.bytes,
            contentType: fetched.contentType,
            sourceUrl: reference.url,
            now,
          });
          isChanged = true;
        }
      }
      if (!file) throw new Error("the file does not exist");
      const hadVariants = file.variants !== null;
      const variants = await ensureVariants(db, file.id);
      if (variants.length === 0) throw new Error("the image could not be resized");
      if (!hadVariants) isChanged = true;
      outcome[field] = "resized";
    } catch (error) {
      outcome[field] = "failed";
      log("info", "branding image not processed", {
        storefrontId,
        field,
        url: "url" in reference ? reference.url : reference.fileId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  // Done (resized or failed): the mark goes, unless a newer write set its own (its job clears that one).
  const pendingSince = options.pendingSince === undefined ? row.pendingSince : options.pendingSince;
  if (pendingSince)
    await db
      .update(storefronts)
      .set({ brandingImagesPendingSince: null })
      .where(and(eq(storefronts.id, storefrontId), eq(storefronts.brandingImagesPendingSince, pendingSince)));
  // The public page shows the variants (docs/ui.md, "Public storefront"): this runs after its own commit.
  if (isChanged) notifyStorefrontChanged({ storefrontId, slug: row.slug });
  return outcome;
}

/**
 * After a write committed, resize the logo and background it SENT (`sent`: the create's or the PATCH's `branding`),
 * fetching external URLs. A PATCH of the font alone fetches nothing, so a URL that failed is not fetched again on
 * every branding change. `pendingSince` is the mark the write set (`brandingImagesSent` not empty), cleared at the
 * end.
 */
export function scheduleBrandingImages(
  ctx: ServiceContext,
  storefrontId: string,
  sent: Record<string, unknown> | null | undefined,
  pendingSince: Date | null = null,
): void {
  const fields = brandingImagesSent(sent);
  if (fields.length === 0) return;
  ctx.afterCommit(() =>
    processBrandingImages(getDb(), storefrontId, fetchImageGuarded, { fields, pendingSince }),
  );
}

/** How long a pending mark is left to its write's own job before the sweep takes it over. */
export const PENDING_GRACE_MS = 10 * 60_000;

/**
 * The sweep of the scheduled job `process-branding-images`: storefronts still marked pending `PENDING_GRACE_MS`
 * after their write (the process stopped before its after-commit job ran or ended) get their logo and background
 * processed, one storefront at a time, and the mark cleared, whatever the outcome.
 */
export async function processPendingBrandingImages(
  db: Db,
  now: Date,
  options: { limit?: number; fetchImage?: ImageFetcher } = {},
): Promise<{ storefronts: number; resized: number; failed: number }> {
  const rows = await db
    .select({ id: storefronts.id })
    .from(storefronts)
    .where(
      and(
        lt(storefronts.brandingImagesPendingSince, new Date(now.getTime() - PENDING_GRACE_MS)),
        isNull(storefronts.deletedAt),
      ),
    )
    .limit(options.limit ?? 100);
  const counts = { storefronts: rows.length, resized: 0, failed: 0 };
  for (const row of rows) {
    const outcome = await processBrandingImages(db, row.id, options.fetchImage ?? fetchImageGuarded, { now });
    for (const field of BRANDING_IMAGES) {
      if (outcome[field] === "resized") counts.resized++;
      if (outcome[field] === "failed") counts.failed++;
    }
  }
  return counts;
}

/**
 * The variants of a storefront's logo and background for the public page (docs/ui.md, "Public storefront"): one
 * query for both. A reference not resized (pending, failed, or an external URL not fetched yet) is null, and the
 * page shows the URL as it is.
 */
export async function brandingImagesOf(
  db: Db,
  storefront: { accountId: string; branding: unknown },
): Promise<BrandingImages> {
  const branding = (storefront.branding ?? {}) as Record<string, unknown>;
  const logo = referenceOf(branding.logoUrl);
  const background = referenceOf(branding.backgroundUrl);
  const ids = [logo, background].flatMap((ref) => (ref && "fileId" in ref ? [ref.fileId] : []));
  const urls = [logo, background].flatMap((ref) => (ref && "url" in ref ? [ref.url] : []));
  if (ids.length === 0 && urls.length === 0) return { logo: null, background: null };
  const found = await db
    .select({
      id: files.id,
      variants: files.variants,
      sourceUrl: files.sourceUrl,
      createdAt: files.createdAt,
    })
    .from(files)
    .where(
      and(
        eq(files.accountId, storefront.accountId),
        or(
          ...(ids.length > 0 ? [inArray(files.id, ids)] : []),
          ...(urls.length > 0 ? [inArray(files.sourceUrl, urls)] : []),
        ),
      ),
    );
  const imageOf = (ref: Reference): ResponsiveImage | null => {
    if (!ref) return null;
    const matches = found
      .filter((file) => ("fileId" in ref ? file.id === ref.fileId : file.sourceUrl === ref.url))
      .filter((file) => (file.variants?.length ?? 0) > 0)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const file = matches[0];
    return file ? responsiveImageOf(file.id, file.variants) : null;
  };
  return { logo: imageOf(logo), background: imageOf(background) };
}
