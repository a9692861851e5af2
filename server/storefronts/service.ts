import { and, asc, count, desc, eq, gt, inArray, isNull, ne, or, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { PLAN_LIMITS, upgradeFor } from "@/server/accounts/plans";
import type { Plan, PlanLimits } from "@/server/accounts/schema";
import { accounts, apiKeys } from "@/server/accounts/tables";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { inSavepoint, inTransaction, isTransaction, isUniqueViolationOn } from "@/server/db/transaction";
import { AppError, type Upgrade } from "@/server/errors";
import { checkFileReferences, type ResponsiveImage, responsiveImageOf } from "@/server/files/service";
import { files } from "@/server/files/tables";
import { toPages } from "@/server/lib/batch";
import { newId } from "@/server/lib/ids";
import { decodeCursor, type ListQuery, type Page, toPage } from "@/server/lib/pagination";
import { toProductDto } from "@/server/products/dto";
import type { ProductDto, RejectedProduct } from "@/server/products/schema";
import { insertProductsWithinLimit } from "@/server/products/service";
import { products } from "@/server/products/tables";
import { storefrontChangedAfterCommit } from "./changes";
import { publicUrlOf, type StorefrontRow, toStorefrontDto } from "./dto";
import {
  findLiveStorefront,
  findLiveStorefronts,
  findPublishedStorefront,
  isPublishedStorefront,
} from "./lookup";
import { authorize } from "./operations";
import {
  type CreateStorefrontInput,
  type StorefrontDto,
  type StorefrontSettingsDto,
  THEME_PRESETS,
  type UpdateStorefrontInput,
  type UpdateStorefrontSettingsInput,
} from "./schema";
import { paymentMethodsFor, timeZoneFor } from "./settings";
import { storefronts } from "./tables";
import { canonicalTimeZone } from "./time-zones";

type BrandingInput = NonNullable<CreateStorefrontInput["branding"]>;

/** `{preset}` becomes its three colours, so stored themes are always the response's triple. */
function normalizeBranding(branding: BrandingInput): Record<string, unknown> {
  const { theme, ...rest } = branding;
  if (theme === undefined) return rest;
  if (theme === null) return { ...rest, theme: null };
  return { ...rest, theme: "preset" in theme ? { ...THEME_PRESETS[theme.preset] } : theme };
}

/** `{fileId}` of the logo and background (docs/api.md, "Files"): each must be an own file. */
function brandingFileReferences(branding: BrandingInput | null | undefined) {
  return [
    { param: "branding.logoUrl", value: branding?.logoUrl },
    { param: "branding.backgroundUrl", value: branding?.backgroundUrl },
  ];
}

function slugTaken(): AppError {
  return new AppError("slug_taken", { param: "slug" });
}

/** Only the slug's unique index means `slug_taken`; any other unique violation is a bug, not the caller's. */
function isSlugTaken(error: unknown): boolean {
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
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      if (!row) throw new Error("storefront insert returned no row");
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

/** The PATCH body as ONE jsonb value: the keys it sends (null included), branding's `{preset}` resolved. */
function patchDocument(input: UpdateStorefrontInput): string {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (value !== undefined) patch[key] = value;
  if (input.branding) patch.branding = normalizeBranding(input.branding);
  return JSON.stringify(patch);
}

/**
 * The PATCH statement: ONE UPDATE whose every column is `case when <the body has the key> then <new value> else
 * <old value> end`, reading the body from one jsonb parameter (`input.p`). Its shape never depends on the body,
 * so drizzle builds it once and it is prepared (building it per request was a quarter of a PATCH's CPU).
 *
 * The merge happens IN the statement (docs/api.md, "PATCH rules" 1-2): `branding` and `delivery` merge key by
 * key, `schedule` day by day and then key by key; arrays and scalars replace; null clears (`hidden`: false).
 * PostgreSQL evaluates it on the newest row version, so concurrent PATCHes compose: no update is lost and no
 * row lock is held across a round trip to this process. Guards: the account, not deleted, `If-Match` equal to
 * `updatedAt` (`ifMatchAt`, or `ifMatchNever` for an unreadable header), and a published storefront keeps its
 * slug.
 */
function storefrontPatchStatement(db: Db) {
  const t = storefronts;
  const has = (key: string) => sql.raw(`(input.p ? '${key}')`);
  const text = (key: string) => sql.raw(`(input.p ->> '${key}')`);
  const json = (key: string) => sql.raw(`(input.p -> '${key}')`);
  const isNullIn = (key: string) => sql.raw(`(jsonb_typeof(input.p -> '${key}') = 'null')`);
  const replaceText = (key: string, column: AnyPgColumn) =>
    sql`case when ${has(key)} then ${text(key)} else ${column} end`;
  const replaceBoolean = (key: string, column: AnyPgColumn) =>
    sql`case when ${has(key)} then ${text(key)}::boolean else ${column} end`;
  const replaceJson = (key: string, column: AnyPgColumn) =>
    sql`case when ${has(key)} then nullif(${json(key)}, 'null'::jsonb) else ${column} end`;
  const mergeJson = (key: string, column: AnyPgColumn) =>
    sql`case when not ${has(key)} then ${column} when ${isNullIn(key)} then null
          else coalesce(${column}, '{}'::jsonb) || ${json(key)} end`;
  return (
    db
      .update(storefronts)
      .set({
        name: replaceText("name", t.name),
        language: replaceText("language", t.language),
        currency: replaceText("currency", t.currency),
        businessType: replaceText("businessType", t.businessType),
        slug: replaceText("slug", t.slug),
        pickup: replaceBoolean("pickup", t.pickup),
        dineIn: replaceBoolean("dineIn", t.dineIn),
        hidden: sql`case when ${has("hidden")} then coalesce(${text("hidden")}::boolean, false) else ${t.hidden} end`,
        biography: replaceJson("biography", t.biography),
        blocks: replaceJson("blocks", t.blocks),
        categories: replaceJson("categories", t.categories),
        branding: mergeJson("branding", t.branding),
        delivery: mergeJson("delivery", t.delivery),
        schedule: sql`case when not ${has("schedule")} then ${t.schedule} when ${isNullIn("schedule")} then null
        else coalesce(${t.schedule}, '{}'::jsonb) || coalesce((
          select jsonb_object_agg(day.key, case
              when jsonb_typeof(day.value) = 'object' and jsonb_typeof(${t.schedule} -> day.key) = 'object'
              then (${t.schedule} -> day.key) || day.value else day.value end)
          from jsonb_each(${json("schedule")}) as day), '{}'::jsonb) end`,
        // Strictly increasing, so an If-Match taken before a PATCH in the same millisecond is still stale.
        updatedAt: sql`greatest(${sql.placeholder("now")}::text::timestamptz, ${t.updatedAt} + interval '1 millisecond')`,
      })
      // `offset 0` keeps the subquery from being inlined: otherwise PostgreSQL parses the JSON text again at each
      // of the ~25 places that read `input.p`.
      .from(sql`(select ${sql.placeholder("patch")}::text::jsonb as p offset 0) as input`)
      .where(
        and(
          eq(t.id, sql`${sql.placeholder("storefrontId")}::text`),
          eq(t.accountId, sql`${sql.placeholder("accountId")}::text`),
          isNull(t.deletedAt),
          sql`(${sql.placeholder("ifMatchAt")}::text is null or ${t.updatedAt} = ${sql.placeholder("ifMatchAt")}::text::timestamptz)`,
          sql`not ${sql.placeholder("ifMatchNever")}::text::boolean`,
          sql`not (${has("slug")} and ${isNullIn("slug")} and ${t.published})`,
        ),
      )
      .returning()
  );
}

type StorefrontPatchStatement = Pick<ReturnType<typeof storefrontPatchStatement>, "execute">;

/** Built once per database and prepared; a transaction builds its own (prepared queries belong to a session). */
const preparedPatches = new WeakMap<Db, StorefrontPatchStatement>();

function patchStatementFor(db: Db): StorefrontPatchStatement {
  if (isTransaction(db)) return storefrontPatchStatement(db);
  let prepared = preparedPatches.get(db);
  if (!prepared) {
    prepared = storefrontPatchStatement(db).prepare("marea_storefront_patch");
    preparedPatches.set(db, prepared);
  }
  return prepared;
}

export type UpdateStorefrontArgs = {
  storefrontId: string;
  patch: UpdateStorefrontInput;
  /**
   * Optimistic concurrency: the `updatedAt` the caller read. The change applies only while the stored one is
   * still that instant; otherwise 409 `storefront_conflict`. A value that is not a timestamp never matches.
   */
  expectedUpdatedAt?: string | null;
};

const EARLIEST_IF_MATCH = Date.parse("0001-01-01T00:00:00.000Z");
const LATEST_IF_MATCH = Date.parse("9999-12-31T23:59:59.999Z");

/**
 * Deep-merges `patch` into the storefront; arrays replace (docs/api.md, "PATCH rules" 1-4). The
 * patch was validated whole before this runs (a `whatsapp` or `products` key is a 400 and nothing is written).
 * One UPDATE applies the merge under its guards (`storefrontPatchStatement`); when it changes no row, the row
 * is read once to say which guard failed: 404, 410, the slug rule or 409 `storefront_conflict`.
 */
export async function updateStorefront(
  ctx: ServiceContext,
  input: UpdateStorefrontArgs,
): Promise<StorefrontDto> {
  const actor = authorize(ctx, "updateStorefront");
  const { storefrontId, patch } = input;
  await checkFileReferences(ctx.db, actor.accountId, brandingFileReferences(patch.branding));
  const parsed = input.expectedUpdatedAt == null ? null : Date.parse(input.expectedUpdatedAt);
  // A date PostgreSQL's timestamptz cannot take as written (year 0, years past 9999) is not a timestamp either.
  const expected =
    parsed !== null && !(parsed >= EARLIEST_IF_MATCH && parsed <= LATEST_IF_MATCH) ? Number.NaN : parsed;
  let rows: StorefrontRow[];
  try {
    rows = (await patchStatementFor(ctx.db).execute({
      patch: patchDocument(patch),
      now: ctx.now().toISOString(),
      storefrontId,
      accountId: actor.accountId,
      ifMatchAt: expected === null || Number.isNaN(expected) ? null : new Date(expected).toISOString(),
      ifMatchNever: String(expected !== null && Number.isNaN(expected)),
    })) as StorefrontRow[];
  } catch (error) {
    if (isSlugTaken(error)) throw slugTaken();
    throw error;
  }
  const [row] = rows;
  if (row) {
    storefrontChangedAfterCommit(ctx, { storefrontId: row.id, slug: row.slug });
    return toStorefrontDto(row);
  }

  const current = await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId });
  if (patch.slug === null && current.published) {
    throw new AppError("invalid_request", {
      param: "slug",
      detail: {
        en: "slug: a published storefront keeps its slug; unpublish it first.",
        es: "slug: una tienda publicada conserva su slug; despublícala primero.",
        pt: "slug: uma loja publicada mantém seu slug; despublique-a primeiro.",
      },
    });
  }
  throw new AppError("storefront_conflict", {
    param: "If-Match",
    detail: {
      en: `The storefront's updatedAt is now ${current.updatedAt.toISOString()}.`,
      es: `El updatedAt de la tienda ahora es ${current.updatedAt.toISOString()}.`,
      pt: `O updatedAt da loja agora é ${current.updatedAt.toISOString()}.`,
    },
  });
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

function toSettingsDto(row: StorefrontRow): StorefrontSettingsDto {
  return {
    storefrontId: row.id,
    timeZone: timeZoneFor(row),
    isDefaultTimeZone: row.timeZone === null,
    paymentMethods: paymentMethodsFor(row.paymentMethods, row.language),
    isDefaultPaymentMethods: !row.paymentMethods || row.paymentMethods.length === 0,
  };
}

/**
 * A storefront's settings outside the /v1 Storefront object (docs/api.md, "Storefront settings"): its time zone
 * (the currency's default until set) and payment methods. The dashboard's door only.
 */
export async function getStorefrontSettings(
  ctx: ServiceContext,
  input: { storefrontId: string },
): Promise<StorefrontSettingsDto> {
  const actor = authorize(ctx, "getStorefrontSettings");
  return toSettingsDto(
    await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId: input.storefrontId }),
  );
}

/**
 * Sets a storefront's time zone (an IANA name this runtime knows, stored in its canonical spelling; null goes
 * back to the currency's default) and/or its payment methods (null: cash only). The dashboard's door only; the
 * /v1 Storefront object does not change. The public page follows at once.
 */
export async function updateStorefrontSettings(
  ctx: ServiceContext,
  input: { storefrontId: string; settings: UpdateStorefrontSettingsInput },
): Promise<StorefrontSettingsDto> {
  const actor = authorize(ctx, "updateStorefrontSettings");
  const { storefrontId, settings } = input;
  const set: Partial<typeof storefronts.$inferInsert> = {};
  if (settings.timeZone !== undefined) {
    const zone = settings.timeZone === null ? null : canonicalTimeZone(settings.timeZone);
    if (settings.timeZone !== null && zone === null) {
      throw new AppError("invalid_request", {
        param: "timeZone",
        detail: {
          en: "timeZone: must be an IANA time zone name, e.g. America/Mexico_City.",
          es: "timeZone: debe ser un nombre de zona horaria IANA, p. ej. America/Mexico_City.",
          pt: "timeZone: deve ser um nome de fuso horário IANA, p. ex. America/Mexico_City.",
        },
      });
    }
    set.timeZone = zone;
  }
  if (settings.paymentMethods !== undefined) {
    set.paymentMethods = settings.paymentMethods?.map((name) => name.trim()) ?? null;
  }
  const current = await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId });
  if (Object.keys(set).length === 0) return toSettingsDto(current);
  const [row] = await ctx.db
    .update(storefronts)
    .set(set)
    .where(
      and(
        eq(storefronts.id, storefrontId),
        eq(storefronts.accountId, actor.accountId),
        isNull(storefronts.deletedAt),
      ),
    )
    .returning();
  if (!row) throw new AppError("storefront_deleted", { param: "storefrontId" });
  storefrontChangedAfterCommit(ctx, { storefrontId: row.id, slug: row.slug });
  return toSettingsDto(row);
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

/** A storefront as the dashboard's list shows it (docs/ui.md, "Storefronts"). */
export type StorefrontSummaryDto = {
  id: string;
  name: string;
  currency: string;
  /** `draft`: never or no longer published; `hidden`: published but hidden; `published`: on its public page. */
  status: "published" | "hidden" | "draft";
  slug: string | null;
  publicUrl: string | null;
  productCount: number;
  updatedAt: string;
};

/** The account's plan as the dashboard shows it beside a 402: its limits, and where to upgrade. */
export type PlanUsageDto = {
  plan: Plan;
  limits: PlanLimits;
  /** The limits of the plan an upgrade leads to. */
  upgradeLimits: PlanLimits;
  upgrade: Upgrade;
};

function planUsageOf(plan: Plan): PlanUsageDto {
  return { plan, limits: PLAN_LIMITS[plan], upgradeLimits: PLAN_LIMITS.PRO, upgrade: upgradeFor(plan) };
}

function statusOf(row: Pick<StorefrontRow, "published" | "hidden">): StorefrontSummaryDto["status"] {
  if (!row.published) return "draft";
  return row.hidden ? "hidden" : "published";
}

/**
 * The dashboard's storefront list: every live storefront of the account (a plan allows at most 10) with its
 * product count, most recently changed first, and the plan's limits for the upgrade prompt. Authorized as
 * `listStorefronts`, the read it extends.
 */
export async function listStorefrontSummaries(
  ctx: ServiceContext,
): Promise<{ data: StorefrontSummaryDto[]; usage: PlanUsageDto }> {
  const actor = authorize(ctx, "listStorefronts");
  // Grouped by the primary key, so every storefront column may be selected.
  const rows = await ctx.db
    .select({ row: storefronts, productCount: count(products.id) })
    .from(storefronts)
    .leftJoin(products, eq(products.storefrontId, storefronts.id))
    .where(and(eq(storefronts.accountId, actor.accountId), isNull(storefronts.deletedAt)))
    .groupBy(storefronts.id)
    .orderBy(desc(storefronts.updatedAt), asc(storefronts.id));
  return {
    data: rows.map(({ row, productCount }) => ({
      id: row.id,
      name: row.name,
      currency: row.currency,
      status: statusOf(row),
      slug: row.slug,
      publicUrl: publicUrlOf(row),
      productCount,
      updatedAt: row.updatedAt.toISOString(),
    })),
    usage: planUsageOf(actor.plan),
  };
}

/** What the dashboard's storefront editor loads (docs/ui.md, "Storefronts"). */
export type StorefrontEditorDto = {
  storefront: StorefrontDto;
  settings: StorefrontSettingsDto;
  /** What the Storefront object cannot say: `biography`, `branding.backgroundUrl` and `blocks` stored as `auto`. */
  stored: { isBiographyAuto: boolean; isBackgroundAuto: boolean; blocks: "auto" | "custom" | null };
  /**
   * Products per category name, names no longer in `categories` (orphans) included: removing or renaming a
   * category leaves its products with the old name (docs/api.md, "PATCH rules" 2).
   */
  categoryUsage: Array<{ name: string; products: number }>;
  productCount: number;
  usage: PlanUsageDto;
};

/**
 * One storefront for the dashboard's editor: the Storefront object, its dashboard-only settings (time zone,
 * payment methods), what is stored as `auto`, and how many products use each category. Authorized as
 * `getStorefrontSettings` (the dashboard's door only).
 */
export async function getStorefrontEditor(
  ctx: ServiceContext,
  input: { storefrontId: string },
): Promise<StorefrontEditorDto> {
  const actor = authorize(ctx, "getStorefrontSettings");
  const row = await findLiveStorefront(ctx.db, {
    accountId: actor.accountId,
    storefrontId: input.storefrontId,
  });
  const usage = await ctx.db
    .select({ name: products.category, products: sql<number>`count(*)::int` })
    .from(products)
    .where(eq(products.storefrontId, row.id))
    .groupBy(products.category);
  const branding = row.branding as { backgroundUrl?: unknown } | null;
  return {
    storefront: toStorefrontDto(row),
    settings: toSettingsDto(row),
    stored: {
      isBiographyAuto: row.biography === "auto",
      isBackgroundAuto: branding?.backgroundUrl === "auto",
      blocks: row.blocks === "auto" ? "auto" : Array.isArray(row.blocks) ? "custom" : null,
    },
    categoryUsage: usage
      .filter((entry): entry is { name: string; products: number } => entry.name !== null)
      .sort((a, b) => a.name.localeCompare(b.name)),
    productCount: usage.reduce((sum, entry) => sum + entry.products, 0),
    usage: planUsageOf(actor.plan),
  };
}
