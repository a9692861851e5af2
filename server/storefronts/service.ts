import { and, asc, count, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { PLAN_LIMITS, upgradeFor } from "@/server/accounts/plans";
import type { ServiceContext } from "@/server/context";
import { inTransaction, isUniqueViolationOn } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { checkFileReferences } from "@/server/files/service";
import { accounts, apiKeys } from "@/server/gate/tables";
import { toPages } from "@/server/lib/batch";
import { newId } from "@/server/lib/ids";
import { decodeCursor, type ListQuery, type Page, toPage } from "@/server/lib/pagination";
import type { ProductDto, RejectedProduct } from "@/server/products/schema";
import { insertProductsWithinLimit } from "@/server/products/service";
import { products } from "@/server/products/tables";
import { brandingImagesSent, scheduleBrandingImages } from "./branding-images";
import { storefrontChangedAfterCommit } from "./changes";
import { toStorefrontDto } from "./dto";
import { findLiveStorefront, findLiveStorefronts } from "./lookup";
import { authorize } from "./operations";
import { type CreateStorefrontInput, type StorefrontDto, THEME_PRESETS } from "./schema";
import { storefronts } from "./tables";

/**
 * Storefronts as records: create, read, list, delete, and the GraphQL loaders. The PATCH is in patch.ts,
 * publishing and the public page's reads in publish.ts, the dashboard's own views and settings in dashboard.ts.
 */

type BrandingInput = NonNullable<CreateStorefrontInput["branding"]>;

// The branding and slug rules below are shared with the PATCH (patch.ts) and publishing (publish.ts).

/** `{preset}` becomes its three colours, so stored themes are always the response's triple. */
export function normalizeBranding(branding: BrandingInput): Record<string, unknown> {
  const { theme, ...rest } = branding;
  if (theme === undefined) return rest;
  if (theme === null) return { ...rest, theme: null };
  return { ...rest, theme: "preset" in theme ? { ...THEME_PRESETS[theme.preset] } : theme };
}

/** `{fileId}` of the logo and background (docs/api.md, "Files"): each must be an own file. */
export function brandingFileReferences(branding: BrandingInput | null | undefined) {
  return [
    { param: "branding.logoUrl", value: branding?.logoUrl },
    { param: "branding.backgroundUrl", value: branding?.backgroundUrl },
  ];
}

export function slugTaken(): AppError {
  return new AppError("slug_taken", { param: "slug" });
}

/** Only the slug's unique index means `slug_taken`; any other unique violation is a bug, not the caller's. */
export function isSlugTaken(error: unknown): boolean {
  return isUniqueViolationOn(error, "storefronts", "storefronts_slug_uq");
}

/** What creating a storefront made: the storefront, its manifest's products, and those the plan kept out. */
export type CreatedStorefront = {
  storefront: StorefrontDto;
  products: ProductDto[];
  rejected?: RejectedProduct[];
};

/**
 * Creates a storefront (docs/api.md, "Storefronts"; POST /v1/storefronts). Created unpublished and not hidden.
 * The account row is locked first, so the storefront limit of the plan (FREE_NEW 1, FREE_OLD 3, PRO 10;
 * 402 `plan_max_storefronts_reached`) holds under concurrent creates. Manifest products past the plan's
 * product limit are not created: they come back in `rejected` (REST answers 207).
 */
export async function createStorefront(
  ctx: ServiceContext,
  input: CreateStorefrontInput,
): Promise<CreatedStorefront> {
  const actor = authorize(ctx, "createStorefront");
  await checkFileReferences(ctx.db, actor.accountId, brandingFileReferences(input.branding));
  const now = ctx.now();
  try {
    return await inTransaction(ctx.db, async (db) => {
      const [account] = await db
        .select({ plan: accounts.plan, language: accounts.language })
        .from(accounts)
        .where(eq(accounts.id, actor.accountId))
        .for("no key update");
      if (!account) throw new AppError("user_not_found");
      const [live] = await db
        .select({ n: count() })
        .from(storefronts)
        .where(and(eq(storefronts.accountId, actor.accountId), isNull(storefronts.deletedAt)));
      const limit = PLAN_LIMITS[account.plan].storefronts;
      if ((live?.n ?? 0) >= limit) {
        throw new AppError("plan_max_storefronts_reached", {
          upgrade: upgradeFor(account.plan),
          detail: {
            en: `The plan ${account.plan} allows ${limit} storefront${limit === 1 ? "" : "s"}.`,
            es: `El plan ${account.plan} permite ${limit} tienda${limit === 1 ? "" : "s"}.`,
            pt: `O plano ${account.plan} permite ${limit} loja${limit === 1 ? "" : "s"}.`,
          },
        });
      }
      const [row] = await db
        .insert(storefronts)
        .values({
          id: newId("stf"),
          accountId: actor.accountId,
          name: input.name,
          language: input.language ?? account.language,
          currency: input.currency,
          businessType: input.businessType ?? null,
          branding: input.branding ? normalizeBranding(input.branding) : null,
          schedule: input.schedule ?? null,
          delivery: input.delivery ?? null,
          pickup: input.pickup ?? null,
          dineIn: input.dineIn ?? null,
          whatsapp: input.whatsapp ?? null,
          biography: input.biography ?? null,
          blocks: input.blocks ?? null,
          categories: input.categories ?? null,
          slug: input.slug ?? null,
          hidden: input.hidden ?? false,
          published: false,
          // docs/api.md, "Branding images": cleared by the job below; a sweep takes it over if that never runs.
          brandingImagesPendingSince: brandingImagesSent(input.branding).length > 0 ? now : null,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      if (!row) throw new Error("storefront insert returned no row");
      scheduleBrandingImages(ctx, row.id, input.branding, row.brandingImagesPendingSince);
      const created =
        input.products && input.products.length > 0
          ? await insertProductsWithinLimit(ctx, db, {
              accountId: actor.accountId,
              storefrontId: row.id,
              manifests: input.products,
              path: "products",
            })
          : { products: [] };
      return { storefront: toStorefrontDto(row), ...created };
    });
  } catch (error) {
    if (isSlugTaken(error)) throw slugTaken();
    throw error;
  }
}

/** One storefront of the caller's account (GET /v1/storefronts/{storefrontId}). */
export async function getStorefront(
  ctx: ServiceContext,
  input: { storefrontId: string },
): Promise<StorefrontDto> {
  const actor = authorize(ctx, "getStorefront");
  return toStorefrontDto(await findLiveStorefront(ctx.db, { accountId: actor.accountId, ...input }));
}

/** The account's live storefronts, ordered by id, cursor pagination (GET /v1/storefronts). */
export async function listStorefronts(ctx: ServiceContext, query: ListQuery): Promise<Page<StorefrontDto>> {
  const actor = authorize(ctx, "listStorefronts");
  const after = decodeCursor(query.cursor, "stf");
  const rows = await ctx.db
    .select()
    .from(storefronts)
    .where(
      and(
        eq(storefronts.accountId, actor.accountId),
        isNull(storefronts.deletedAt),
        after ? gt(storefronts.id, after) : undefined,
      ),
    )
    .orderBy(asc(storefronts.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit, toStorefrontDto);
}

/**
 * Deletes a storefront (DELETE /v1/storefronts/{storefrontId}): a soft delete; later calls on it answer 410
 * `storefront_deleted`. Its products stop counting against the plan. The storefront row is locked FOR UPDATE
 * first: product inserts hold a key-share lock on it, so in-flight creates finish (and are counted) first.
 */
export async function deleteStorefront(
  ctx: ServiceContext,
  input: { storefrontId: string },
): Promise<{ id: string; deleted: true }> {
  const actor = authorize(ctx, "deleteStorefront");
  const { storefrontId } = input;
  const now = ctx.now();
  return inTransaction(ctx.db, async (db) => {
    const current = await findLiveStorefront(db, {
      accountId: actor.accountId,
      storefrontId,
      lock: "update",
    });
    storefrontChangedAfterCommit(ctx, { storefrontId, slug: current.slug });
    await db
      .update(storefronts)
      .set({ deletedAt: now, published: false, updatedAt: now })
      .where(eq(storefronts.id, storefrontId));
    await db
      .update(accounts)
      .set({
        productCount: sql`greatest(${accounts.productCount} - (select count(*) from ${products}
          where ${products.storefrontId} = ${storefrontId})::int, 0)`,
      })
      .where(eq(accounts.id, actor.accountId));
    return { id: storefrontId, deleted: true as const };
  });
}

/**
 * `getStorefront` for many ids in ONE statement (the GraphQL loaders): per id, in the order asked, the storefront
 * or the error `getStorefront` would throw for it (404 another account's or unknown, 410 deleted).
 */
export async function loadStorefronts(
  ctx: ServiceContext,
  input: { storefrontIds: readonly string[] },
): Promise<Array<StorefrontDto | AppError>> {
  const actor = authorize(ctx, "getStorefront");
  const found = await findLiveStorefronts(ctx.db, { accountId: actor.accountId, ...input });
  return found.map((row) => (row instanceof AppError ? row : toStorefrontDto(row)));
}

/**
 * A developer's read of the live storefronts of accounts its keys bootstrapped (GraphQL `User.storefronts`), one
 * page per user in ONE statement, ordered by id; `cursor` applies to every user's list. A user this developer did
 * not bootstrap gets an empty page.
 */
export async function loadBootstrappedUserStorefronts(
  ctx: ServiceContext,
  input: { userIds: readonly string[] } & ListQuery,
): Promise<Array<Page<StorefrontDto>>> {
  const actor = authorize(ctx, "listBootstrappedUserStorefronts");
  if (input.userIds.length === 0) return [];
  const after = decodeCursor(input.cursor, "stf");
  const parent = ctx.db
    .select({ id: accounts.id })
    .from(accounts)
    .innerJoin(apiKeys, eq(apiKeys.id, accounts.developerKeyId))
    .where(and(inArray(accounts.id, [...input.userIds]), eq(apiKeys.accountId, actor.accountId)))
    .as("parent");
  const page = ctx.db
    .select()
    .from(storefronts)
    .where(
      and(
        eq(storefronts.accountId, parent.id),
        isNull(storefronts.deletedAt),
        after ? gt(storefronts.id, after) : undefined,
      ),
    )
    .orderBy(asc(storefronts.id))
    .limit(input.limit + 1)
    .as("page");
  const rows = await ctx.db.select().from(parent).innerJoinLateral(page, sql`true`);
  return toPages(
    input.userIds,
    rows.map((row) => row.page),
    (row) => row.accountId,
    input.limit,
    toStorefrontDto,
  );
}
