import { and, asc, eq, inArray, isNull, ne, or, sql } from "drizzle-orm";
import { PLAN_LIMITS, upgradeFor } from "@/server/accounts/plans";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { inSavepoint } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { type ResponsiveImage, responsiveImageOf } from "@/server/files/service";
import { files } from "@/server/files/tables";
import { accounts } from "@/server/gate/tables";
import { toProductDto } from "@/server/products/dto";
import type { ProductDto } from "@/server/products/schema";
import { products } from "@/server/products/tables";
import { type BrandingImages, brandingImagesOf } from "./branding-images";
import { storefrontChangedAfterCommit } from "./changes";
import { toStorefrontDto } from "./dto";
import { findLiveStorefront, findPublishedStorefront, isPublishedStorefront } from "./lookup";
import { authorize } from "./operations";
import type { StorefrontDto } from "./schema";
import { isSlugTaken, slugTaken } from "./service";
import { paymentMethodsFor, timeZoneFor } from "./settings";
import { storefronts } from "./tables";

/**
 * A storefront in public: publishing (its slug chosen from the name) and unpublishing, and the public page's
 * reads of a published storefront and of one of its products (no actor).
 */

/** `Panadería Doña Ana` -> `panaderia-dona-ana`; never empty. */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/g, "");
  return slug || "store";
}

/** The first free `base`, `base-2`, `base-3`... among live storefronts. */
async function freeSlug(db: Db, base: string): Promise<string> {
  const taken = await db
    .select({ slug: storefronts.slug })
    .from(storefronts)
    .where(
      and(
        isNull(storefronts.deletedAt),
        sql`(${storefronts.slug} = ${base} or ${storefronts.slug} like ${`${base}-%`})`,
      ),
    );
  const used = new Set(taken.map((r) => r.slug));
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * Publishes a storefront (docs/api.md, "Delete, publish, unpublish"): needs a verified account (403
 * `email_not_verified`) on a plan that can publish (402 `plan_cannot_publish` with `upgrade`). Assigns a unique
 * slug from the name when none is set. Publishing twice is a no-op.
 */
export async function publishStorefront(
  ctx: ServiceContext,
  input: { storefrontId: string },
): Promise<StorefrontDto> {
  const actor = authorize(ctx, "publishStorefront");
  const { storefrontId } = input;
  const current = await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId });
  const [account] = await ctx.db
    .select({ plan: accounts.plan, status: accounts.status })
    .from(accounts)
    .where(eq(accounts.id, actor.accountId));
  if (!account) throw new AppError("user_not_found");
  if (account.status !== "verified") throw new AppError("email_not_verified");
  if (!PLAN_LIMITS[account.plan].publishable) {
    throw new AppError("plan_cannot_publish", { upgrade: upgradeFor(account.plan) });
  }
  // Already published: nothing to write, so `updatedAt` (a client's If-Match) does not move.
  if (current.published && current.slug) return toStorefrontDto(current);
  for (let attempt = 0; attempt < 5; attempt++) {
    const slug = current.slug ?? (await freeSlug(ctx.db, slugify(current.name)));
    try {
      // A savepoint (or a transaction of its own): a slug taken meanwhile aborts only this attempt.
      const row = await inSavepoint(ctx.db, async (tx) => {
        const [updated] = await tx
          .update(storefronts)
          .set({ published: true, slug: sql`coalesce(${storefronts.slug}, ${slug})`, updatedAt: ctx.now() })
          .where(
            and(
              eq(storefronts.id, storefrontId),
              eq(storefronts.accountId, actor.accountId),
              isNull(storefronts.deletedAt),
            ),
          )
          .returning();
        return updated;
      });
      if (!row) throw new AppError("storefront_deleted", { param: "storefrontId" });
      storefrontChangedAfterCommit(ctx, { storefrontId: row.id, slug: row.slug });
      return toStorefrontDto(row);
    } catch (error) {
      if (!isSlugTaken(error) || current.slug) throw error;
    }
  }
  throw slugTaken();
}

/** Unpublishes a storefront (POST /v1/storefronts/{storefrontId}/unpublish): `published: false`; the slug is kept. */
export async function unpublishStorefront(
  ctx: ServiceContext,
  input: { storefrontId: string },
): Promise<StorefrontDto> {
  const actor = authorize(ctx, "unpublishStorefront");
  const { storefrontId } = input;
  const [row] = await ctx.db
    .update(storefronts)
    .set({ published: false, updatedAt: ctx.now() })
    .where(
      and(
        eq(storefronts.id, storefrontId),
        eq(storefronts.accountId, actor.accountId),
        isNull(storefronts.deletedAt),
      ),
    )
    .returning();
  if (row) {
    storefrontChangedAfterCommit(ctx, { storefrontId: row.id, slug: row.slug });
    return toStorefrontDto(row);
  }
  await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId });
  throw new AppError("storefront_not_found", { param: "storefrontId" });
}

/** The settings a customer's page needs (docs/api.md, "Storefront settings"). */
export type PublicStorefrontSettings = { timeZone: string; paymentMethods: string[] };

/** A published storefront as its customers see it: the storefront, its visible products and its settings. */
export type PublishedStorefront = {
  storefront: StorefrontDto;
  products: ProductDto[];
  settings: PublicStorefrontSettings;
  /** The resized WebP variants of each product's image, by product id (docs/ui.md, "Public storefront"). */
  images: Record<string, ResponsiveImage>;
  /** The resized WebP variants of the logo and the background (docs/api.md, "Branding images"). */
  brandingImages: BrandingImages;
};

/**
 * The public storefront page's read (docs/api.md, "Public storefront"): no actor. Only a published, not hidden,
 * not deleted storefront exists here; anything else is 404 `storefront_not_found` (a customer never learns
 * whether a store is unpublished, hidden or gone). Products the merchant hid are left out; the rest come in
 * position order (null last), then by id.
 */
export async function getPublishedStorefrontBySlug(
  ctx: ServiceContext,
  input: { slug: string },
): Promise<PublishedStorefront> {
  const storefront = await findPublishedStorefront(ctx.db, input.slug);
  const rows = await ctx.db
    .select()
    .from(products)
    .where(and(eq(products.storefrontId, storefront.id), or(isNull(products.hide), ne(products.hide, true))))
    .orderBy(sql`${products.position} asc nulls last`, asc(products.id));
  return {
    storefront: toStorefrontDto(storefront),
    products: rows.map(toProductDto),
    images: await responsiveImagesOf(ctx.db, rows),
    brandingImages: await brandingImagesOf(ctx.db, storefront),
    settings: {
      timeZone: timeZoneFor(storefront),
      paymentMethods: paymentMethodsFor(storefront.paymentMethods, storefront.language),
    },
  };
}

/** One product of a published storefront as its customers see it (the product page). */
export type PublishedProduct = {
  storefront: StorefrontDto;
  product: ProductDto;
  image: ResponsiveImage | null;
};

/**
 * The srcset of each product whose image was resized (docs/ui.md, "Public storefront"): one query for the page's
 * files; a product whose image is not resized (pending, or failed) shows its URLs as they are.
 */
async function responsiveImagesOf(
  db: Db,
  rows: Array<{
    id: string;
    imageFileId: string | null;
    thumbnailUrl: string | null;
    isThumbnailGenerated: boolean;
  }>,
): Promise<Record<string, ResponsiveImage>> {
  const fileIds = [...new Set(rows.flatMap((row) => (row.imageFileId ? [row.imageFileId] : [])))];
  if (fileIds.length === 0) return {};
  const found = await db
    .select({ id: files.id, variants: files.variants })
    .from(files)
    .where(inArray(files.id, fileIds));
  const variantsOf = new Map(found.map((file) => [file.id, file.variants]));
  const images: Record<string, ResponsiveImage> = {};
  for (const row of rows) {
    const image = row.imageFileId
      ? responsiveImageOf(row.imageFileId, variantsOf.get(row.imageFileId))
      : null;
    if (image) images[row.id] = image;
  }
  return images;
}

/**
 * The public product page's read (docs/api.md, "Public storefront"): no actor. ONE row, the product with its
 * storefront, found by the product's id; an unknown id, a product the merchant hid, one of another storefront, or
 * a storefront that is not public are all 404 `product_not_found`. The storefront's catalogue is never loaded for
 * it, so a random product path costs one indexed lookup.
 */
export async function getPublishedProduct(
  ctx: ServiceContext,
  input: { slug: string; productId: string },
): Promise<PublishedProduct> {
  const [row] = await ctx.db
    .select({ storefront: storefronts, product: products })
    .from(products)
    .innerJoin(storefronts, eq(storefronts.id, products.storefrontId))
    .where(
      and(
        eq(products.id, input.productId),
        or(isNull(products.hide), ne(products.hide, true)),
        isPublishedStorefront(input.slug),
      ),
    )
    .limit(1);
  if (!row) throw new AppError("product_not_found", { param: "productId" });
  const images = await responsiveImagesOf(ctx.db, [row.product]);
  return {
    storefront: toStorefrontDto(row.storefront),
    product: toProductDto(row.product),
    image: images[row.product.id] ?? null,
  };
}
