import {
  and,
  asc,
  count,
  eq,
  getTableColumns,
  gt,
  inArray,
  or,
  type SQL,
  type SQLWrapper,
  sql,
} from "drizzle-orm";
import { PLAN_LIMITS, upgradeFor } from "@/server/accounts/plans";
import type { Plan } from "@/server/accounts/schema";
import type { ServiceContext } from "@/server/context";
import { type Db, getDb } from "@/server/db/client";
import {
  type IdempotencyRecord,
  idempotencyRecordCte,
  idempotencyRecordValues,
} from "@/server/db/idempotency-record";
import { inTransaction, isTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { accounts } from "@/server/gate/tables";
import { inRequestedOrder, toPages } from "@/server/lib/batch";
import { roundLikeNumeric } from "@/server/lib/decimal";
import { newId } from "@/server/lib/ids";
import type { ListQuery, Page } from "@/server/lib/pagination";
import { decodeCursor, toPage } from "@/server/lib/pagination";
import { storefrontChangedAfterCommit } from "@/server/storefronts/changes";
import { findLiveStorefront, liveStorefrontsOf } from "@/server/storefronts/lookup";
import { storefronts } from "@/server/storefronts/tables";
import { type ProductRow, toProductDto } from "./dto";
import { processProductImages } from "./images";
import { authorize } from "./operations";
import type {
  BatchCreateProductsInput,
  ProductCatalogSummary,
  ProductDto,
  ProductManifest,
  ProductTableQuery,
  RejectedProduct,
  UpdateProductInput,
} from "./schema";
import { productOrder, products, UNSET_POSITION } from "./tables";

/** The product limit of an account's plan, computed in SQL from the row so a concurrent plan change counts. */
function productLimitSql() {
  return sql`(case ${accounts.plan} ${sql.join(
    Object.entries(PLAN_LIMITS).map(([plan, limits]) => sql`when ${plan} then ${limits.products}::int`),
    sql` `,
  )} end)`;
}

/** Every column of a new product, as it will be stored (money already rounded the way `numeric(14,4)` does). */
function newProductRow(
  accountId: string,
  storefrontId: string,
  input: ProductManifest,
  now: Date,
): ProductRow {
  return {
    id: newId("prd"),
    storefrontId,
    accountId,
    title: input.title,
    price: roundLikeNumeric(input.price, 4),
    description: input.description ?? null,
    salePrice: input.salePrice == null ? null : roundLikeNumeric(input.salePrice, 4),
    category: input.category ?? null,
    subcategory: input.subcategory ?? null,
    imageUrl: input.imageUrl ?? null,
    thumbnailUrl: input.thumbnailUrl ?? null,
    sku: input.sku ?? null,
    slug: input.slug ?? null,
    position: input.position ?? null,
    cartProduct: input.cartProduct ?? null,
    hide: input.hide ?? null,
    stock: input.stock ?? null,
    tags: input.tags ?? null,
    extraProductsCategory: input.extraProductsCategory ?? null,
    // docs/api.md, "Images": an image URL is fetched in the background; until then the product says so.
    imageProcessingPending: Boolean(input.imageUrl),
    imageFileId: null,
    isThumbnailGenerated: false,
    createdAt: now,
    updatedAt: now,
  };
}

/** After the write committed, fetch the new images (SSRF-guarded) and clear `imageProcessingPending`. */
function scheduleImageProcessing(ctx: ServiceContext, rows: ProductRow[]): void {
  const ids = rows.filter((row) => row.imageProcessingPending).map((row) => row.id);
  if (ids.length > 0) ctx.afterCommit(() => processProductImages(getDb(), ids));
}

/** The products the plan kept out, one `products_over_limit` per index (REST renders each as an error object). */
function overLimitRejections(indexes: number[], plan: Plan, path: string): RejectedProduct[] {
  return indexes.map((index) => ({
    index,
    code: "products_over_limit",
    param: `${path}[${index}]`,
    upgrade: upgradeFor(plan),
    detail: productLimitDetail(plan),
  }));
}

function productLimitDetail(plan: Plan) {
  const limit = PLAN_LIMITS[plan].products;
  return {
    en: `The plan ${plan} allows ${limit} products.`,
    es: `El plan ${plan} permite ${limit} productos.`,
    pt: `O plano ${plan} permite ${limit} produtos.`,
  };
}

/**
 * Creates as many of `manifests` as the plan still allows, in order, on a storefront the caller already
 * checked. The account row is locked (FOR NO KEY UPDATE: compatible with the key-share locks that concurrent
 * product inserts hold) so the count cannot race; the rest come back as `products_over_limit` rejections.
 * Used by storefront creation (its `products` manifest) and by the batch endpoint.
 */
export async function insertProductsWithinLimit(
  ctx: ServiceContext,
  db: Db,
  input: { accountId: string; storefrontId: string; manifests: ProductManifest[]; path: string },
): Promise<{ products: ProductDto[]; rejected?: RejectedProduct[] }> {
  const now = ctx.now();
  const [account] = await db
    .select({ plan: accounts.plan, productCount: accounts.productCount })
    .from(accounts)
    .where(eq(accounts.id, input.accountId))
    .for("no key update");
  if (!account) throw new AppError("user_not_found");
  const room = Math.max(0, PLAN_LIMITS[account.plan].products - account.productCount);
  const accepted = input.manifests.slice(0, room);
  let created: ProductRow[] = [];
  if (accepted.length > 0) {
    created = await db
      .insert(products)
      .values(accepted.map((manifest) => newProductRow(input.accountId, input.storefrontId, manifest, now)))
      .returning();
    await db
      .update(accounts)
      .set({ productCount: sql`${accounts.productCount} + ${created.length}` })
      .where(eq(accounts.id, input.accountId));
  }
  scheduleImageProcessing(ctx, created);
  const rejectedIndexes = input.manifests.map((_, index) => index).slice(accepted.length);
  return {
    products: created.map(toProductDto),
    ...(rejectedIndexes.length > 0
      ? { rejected: overLimitRejections(rejectedIndexes, account.plan, input.path) }
      : {}),
  };
}

const PRODUCT_COLUMNS = Object.entries(getTableColumns(products));

/**
 * `select <one placeholder per column> from <source>`, each cast to its column's type, in the table's column
 * order: an INSERT ... SELECT that inserts nothing when `source` is empty. Values go in as text and are cast in
 * SQL: the same on postgres.js and PGlite, whatever their serializers do (`productColumnValues` fills them).
 */
function selectPlaceholderRowFrom(source: SQLWrapper): SQL {
  const values = PRODUCT_COLUMNS.map(
    ([key, column]) => sql`${sql.placeholder(`column_${key}`)}::text::${sql.raw(column.getSQLType())}`,
  );
  return sql`select ${sql.join(values, sql`, `)} from ${source}`;
}

function productColumnValues(row: ProductRow): Record<string, string | null> {
  const values: Record<string, string | null> = {};
  for (const [key, column] of PRODUCT_COLUMNS) {
    const value = (row as Record<string, unknown>)[key];
    values[`column_${key}`] =
      value === undefined || value === null ? null : String(column.mapToDriverValue(value));
  }
  return values;
}

/** How the create statement stores an Idempotency-Key response (see `idempotencyRecordCte`). */
type RecordMode = "none" | "finishes-claim" | "claims";

/**
 * The create statement (see `planProductCreate`), with placeholders. A data-modifying CTE moves the account's
 * counter only while `product_count + 1 <= limit` (so two creates at 1,999 cannot both pass) and only while the
 * storefront is live (key-share locked, so a concurrent delete waits or is seen); the product row is inserted
 * from that CTE's result: no counter, no row. With a record mode other than `none`, the stored Idempotency-Key
 * response is a third CTE of the same statement, written only with the row.
 */
function productCreateStatement(db: Db, recordMode: RecordMode) {
  const counted = db.$with("counted", { id: accounts.id }).as(
    sql`update ${accounts} set ${sql.identifier(accounts.productCount.name)} = ${accounts.productCount} + 1
        where ${accounts.id} = ${sql.placeholder("accountId")}::text
          and ${accounts.productCount} + 1 <= ${productLimitSql()}
          and exists (select 1 from ${storefronts} where ${storefronts.id} = ${sql.placeholder("storefrontId")}::text
                and ${storefronts.accountId} = ${sql.placeholder("accountId")}::text and ${storefronts.deletedAt} is null
                for key share)
        returning ${accounts.id}`,
  );
  const ctes =
    recordMode === "none" ? [counted] : [counted, idempotencyRecordCte(db, counted, recordMode === "claims")];
  return db
    .with(...ctes)
    .insert(products)
    .select(selectPlaceholderRowFrom(counted))
    .returning({ id: products.id });
}

type ProductCreateStatement = Pick<ReturnType<typeof productCreateStatement>, "execute">;

/**
 * drizzle's prepared queries for the create statement, built once per database: building the SQL of this
 * statement was about 15% of a product create's CPU. A transaction builds its own (prepared queries are bound
 * to their session).
 */
const preparedCreates = new WeakMap<Db, Record<RecordMode, ProductCreateStatement>>();

function createStatementFor(db: Db, recordMode: RecordMode): ProductCreateStatement {
  if (isTransaction(db)) return productCreateStatement(db, recordMode);
  let prepared = preparedCreates.get(db);
  if (!prepared) {
    prepared = {
      none: productCreateStatement(db, "none").prepare("marea_product_create"),
      "finishes-claim": productCreateStatement(db, "finishes-claim").prepare("marea_product_create_finish"),
      claims: productCreateStatement(db, "claims").prepare("marea_product_create_claim"),
    };
    preparedCreates.set(db, prepared);
  }
  return prepared[recordMode];
}

export type CreateProductArgs = { storefrontId: string; product: ProductManifest };

/**
 * Product create (POST /v1/storefronts/{storefrontId}/products) in two steps: the product as it will be
 * stored (every value is known before the write: id, timestamps, rounded money), and `run`, which writes it
 * with ONE statement. Given an Idempotency-Key record, `run` stores it in that same statement (the /v1
 * pipeline does this instead of opening a transaction). Over the plan's product limit: 402
 * `plan_max_products_reached` with `upgrade`. When nothing was inserted, the reason is read once: 404, 410 or 402.
 */
export function planProductCreate(
  ctx: ServiceContext,
  input: CreateProductArgs,
): { product: ProductDto; run: (record?: IdempotencyRecord) => Promise<void> } {
  const actor = authorize(ctx, "createProduct");
  const { storefrontId } = input;
  const row = newProductRow(actor.accountId, storefrontId, input.product, ctx.now());
  const run = async (record?: IdempotencyRecord) => {
    const values = {
      accountId: actor.accountId,
      storefrontId,
      ...productColumnValues(row),
      ...(record ? idempotencyRecordValues(record) : {}),
    };
    const recordMode: RecordMode = !record ? "none" : record.claim ? "claims" : "finishes-claim";
    const [inserted] = await createStatementFor(ctx.db, recordMode).execute(values);
    if (!inserted) {
      await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId });
      const [account] = await ctx.db
        .select({ plan: accounts.plan })
        .from(accounts)
        .where(eq(accounts.id, actor.accountId));
      const plan = account?.plan ?? "FREE_NEW";
      throw new AppError("plan_max_products_reached", {
        upgrade: upgradeFor(plan),
        detail: productLimitDetail(plan),
      });
    }
    scheduleImageProcessing(ctx, [row]);
    storefrontChangedAfterCommit(ctx, { storefrontId });
  };
  return { product: toProductDto(row), run };
}

/** Creates one product (callers without an Idempotency-Key record): plan, then write. */
export async function createProduct(ctx: ServiceContext, input: CreateProductArgs): Promise<ProductDto> {
  const plan = planProductCreate(ctx, input);
  await plan.run();
  return plan.product;
}

/** What a batch made: the created products, and those the plan kept out. */
export type CreatedProducts = { products: ProductDto[]; rejected?: RejectedProduct[] };

/**
 * Creates up to 100 products in order (POST /v1/storefronts/{storefrontId}/products/batch). All created: REST
 * answers 201; some past the plan limit: 207 with `rejected` (docs/api.md, "Plan limits").
 */
export async function createProducts(
  ctx: ServiceContext,
  input: { storefrontId: string } & BatchCreateProductsInput,
): Promise<CreatedProducts> {
  const actor = authorize(ctx, "createProductsBatch");
  const { storefrontId } = input;
  return inTransaction(ctx.db, async (db) => {
    // Key-share lock: a concurrent storefront delete (FOR UPDATE) waits for this batch, and counts it.
    await findLiveStorefront(db, { accountId: actor.accountId, storefrontId, lock: "key share" });
    storefrontChangedAfterCommit(ctx, { storefrontId });
    return insertProductsWithinLimit(ctx, db, {
      accountId: actor.accountId,
      storefrontId,
      manifests: input.products,
      path: "products",
    });
  });
}

/** A storefront's products, ordered by id, cursor pagination (GET /v1/storefronts/{storefrontId}/products). */
export async function listProducts(
  ctx: ServiceContext,
  input: { storefrontId: string } & ListQuery,
): Promise<Page<ProductDto>> {
  const actor = authorize(ctx, "listProducts");
  const { storefrontId } = input;
  await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId });
  const after = decodeCursor(input.cursor, "prd");
  const rows = await ctx.db
    .select()
    .from(products)
    .where(
      and(
        eq(products.storefrontId, storefrontId),
        eq(products.accountId, actor.accountId),
        after ? gt(products.id, after) : undefined,
      ),
    )
    .orderBy(asc(products.id))
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toProductDto);
}

async function findProduct(db: Db, accountId: string, storefrontId: string, productId: string, lock = false) {
  const query = db
    .select()
    .from(products)
    .where(
      and(
        eq(products.id, productId),
        eq(products.storefrontId, storefrontId),
        eq(products.accountId, accountId),
      ),
    )
    .limit(1);
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw new AppError("product_not_found", { param: "productId" });
  return row;
}

/** A product by id; REST also names its storefront (the path), GraphQL only the product (its ids are global). */
type ProductRef = { storefrontId?: string; productId: string };

/** The storefront the reference names, or the one the caller's product belongs to (404 `product_not_found`). */
async function storefrontOf(db: Db, accountId: string, ref: ProductRef): Promise<string> {
  if (ref.storefrontId !== undefined) return ref.storefrontId;
  const [row] = await db
    .select({ storefrontId: products.storefrontId })
    .from(products)
    .where(and(eq(products.id, ref.productId), eq(products.accountId, accountId)));
  if (!row) throw new AppError("product_not_found", { param: "productId" });
  return row.storefrontId;
}

/** One product (GET /v1/storefronts/{storefrontId}/products/{productId}). */
export async function getProduct(ctx: ServiceContext, input: ProductRef): Promise<ProductDto> {
  const actor = authorize(ctx, "getProduct");
  const { productId } = input;
  const storefrontId = await storefrontOf(ctx.db, actor.accountId, input);
  await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId });
  return toProductDto(await findProduct(ctx.db, actor.accountId, storefrontId, productId));
}

/**
 * Changes a product: every field changeable (docs/api.md, "Products"); omitted fields untouched, null clears an
 * optional field. `salePrice` must stay below `price` after the change. A new `imageUrl` sets
 * `imageProcessingPending` and is fetched in the background.
 */
export async function updateProduct(
  ctx: ServiceContext,
  args: ProductRef & { patch: UpdateProductInput },
): Promise<ProductDto> {
  const actor = authorize(ctx, "updateProduct");
  const { productId, patch: input } = args;
  const row = await inTransaction(ctx.db, async (db) => {
    const storefrontId = await storefrontOf(db, actor.accountId, args);
    await findLiveStorefront(db, { accountId: actor.accountId, storefrontId, lock: "key share" });
    const current = await findProduct(db, actor.accountId, storefrontId, productId, true);
    const price = input.price ?? current.price;
    const salePrice = input.salePrice === undefined ? current.salePrice : input.salePrice;
    if (salePrice !== null && salePrice >= price) {
      const param = input.salePrice !== undefined ? "salePrice" : "price";
      throw new AppError("invalid_request", {
        param,
        detail: {
          en: `${param}: salePrice (${salePrice}) must be below price (${price}).`,
          es: `${param}: salePrice (${salePrice}) debe ser menor que price (${price}).`,
          pt: `${param}: salePrice (${salePrice}) deve ser menor que price (${price}).`,
        },
      });
    }
    const set: Partial<typeof products.$inferInsert> = { updatedAt: ctx.now() };
    for (const [key, value] of Object.entries(input)) {
      if (value !== undefined) (set as Record<string, unknown>)[key] = value;
    }
    if (input.thumbnailUrl !== undefined) set.isThumbnailGenerated = false;
    if (input.imageUrl !== undefined && input.imageUrl !== current.imageUrl) {
      set.imageProcessingPending = input.imageUrl !== null;
      // docs/api.md, "Images": the old image's variants and the thumbnail made from them go with it.
      set.imageFileId = null;
      if (input.thumbnailUrl === undefined && current.isThumbnailGenerated) {
        set.thumbnailUrl = null;
        set.isThumbnailGenerated = false;
      }
    }
    const [updated] = await db.update(products).set(set).where(eq(products.id, current.id)).returning();
    if (!updated) throw new AppError("product_not_found", { param: "productId" });
    return updated;
  });
  if (input.imageUrl !== undefined) scheduleImageProcessing(ctx, [row]);
  storefrontChangedAfterCommit(ctx, { storefrontId: row.storefrontId });
  return toProductDto(row);
}

/** Deletes a product for good; the plan's product count goes down by one. */
export async function deleteProduct(
  ctx: ServiceContext,
  input: ProductRef,
): Promise<{ id: string; deleted: true }> {
  const actor = authorize(ctx, "deleteProduct");
  const { productId } = input;
  return inTransaction(ctx.db, async (db) => {
    const storefrontId = await storefrontOf(db, actor.accountId, input);
    await findLiveStorefront(db, { accountId: actor.accountId, storefrontId, lock: "key share" });
    const deleted = await db
      .delete(products)
      .where(
        and(
          eq(products.id, productId),
          eq(products.storefrontId, storefrontId),
          eq(products.accountId, actor.accountId),
        ),
      )
      .returning({ id: products.id });
    if (deleted.length === 0) throw new AppError("product_not_found", { param: "productId" });
    storefrontChangedAfterCommit(ctx, { storefrontId });
    await db
      .update(accounts)
      .set({ productCount: sql`greatest(${accounts.productCount} - 1, 0)` })
      .where(eq(accounts.id, actor.accountId));
    return { id: productId, deleted: true as const };
  });
}

/**
 * `getProduct` for many product ids in ONE statement (the GraphQL loaders; a product id alone names it): per id,
 * in the order asked, the product, 404 `product_not_found` (unknown or another account's), or 410
 * `storefront_deleted` when its storefront was deleted.
 */
export async function loadProducts(
  ctx: ServiceContext,
  input: { productIds: readonly string[] },
): Promise<Array<ProductDto | AppError>> {
  const actor = authorize(ctx, "getProduct");
  const rows =
    input.productIds.length === 0
      ? []
      : await ctx.db
          .select({ product: products, deletedAt: storefronts.deletedAt })
          .from(products)
          .innerJoin(storefronts, eq(storefronts.id, products.storefrontId))
          .where(and(inArray(products.id, [...input.productIds]), eq(products.accountId, actor.accountId)));
  return inRequestedOrder(
    input.productIds,
    rows,
    (row) => row.product.id,
    (row) =>
      row.deletedAt
        ? new AppError("storefront_deleted", { param: "storefrontId" })
        : toProductDto(row.product),
    () => new AppError("product_not_found", { param: "productId" }),
  );
}

/**
 * The products of many storefronts, one page each, in ONE statement (GraphQL `Storefront.products`): ordered by
 * id as `listProducts`, `category` keeps the products of that category only, and `cursor` applies to every
 * storefront's list. A storefront that is not a live one of the caller's account gets an empty page (its
 * loader already answered 404 or 410 for it).
 */
export async function loadProductsByStorefront(
  ctx: ServiceContext,
  input: { storefrontIds: readonly string[]; category?: string | null } & ListQuery,
): Promise<Array<Page<ProductDto>>> {
  const actor = authorize(ctx, "listProducts");
  if (input.storefrontIds.length === 0) return [];
  const after = decodeCursor(input.cursor, "prd");
  const parent = liveStorefrontsOf(ctx.db, actor.accountId, input.storefrontIds).as("parent");
  const page = ctx.db
    .select()
    .from(products)
    .where(
      and(
        eq(products.storefrontId, parent.id),
        eq(products.accountId, actor.accountId),
        input.category != null ? eq(products.category, input.category) : undefined,
        after ? gt(products.id, after) : undefined,
      ),
    )
    .orderBy(asc(products.id))
    .limit(input.limit + 1)
    .as("page");
  const rows = await ctx.db.select().from(parent).innerJoinLateral(page, sql`true`);
  return toPages(
    input.storefrontIds,
    rows.map((row) => row.page),
    (row) => row.storefrontId,
    input.limit,
    toProductDto,
  );
}

/** Where an unset `position` sorts: after every int32 position. */

/** The cursor of the products table: base64url of `{"v":1,"after":"<id>","pos":<position or null>}`. */
function encodePositionCursor(row: { id: string; position: number | null }): string {
  return Buffer.from(JSON.stringify({ v: 1, after: row.id, pos: row.position }), "utf8").toString(
    "base64url",
  );
}

/** The row to continue after, or null (page one) for an absent or unreadable cursor, as every list does. */
function decodePositionCursor(cursor: string | undefined): { id: string; position: number } | null {
  const after = decodeCursor(cursor, "prd");
  if (!after || !cursor) return null;
  const { pos } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { pos?: unknown };
  if (pos === null || pos === undefined) return { id: after, position: UNSET_POSITION };
  return Number.isInteger(pos) ? { id: after, position: pos as number } : null;
}

/** `%`, `_` and `\` taken literally in an ILIKE pattern. */
function containsPattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The dashboard's products table (docs/ui.md, "Products"): a storefront's products by `position` (unset last,
 * ties by id), cursor pagination; `q` keeps those whose title or SKU contains it (any case), `category` those of
 * that category. 404 / 410 for a storefront that is not a live one of the caller's.
 */
export async function searchProducts(
  ctx: ServiceContext,
  input: ProductTableQuery,
): Promise<Page<ProductDto>> {
  const actor = authorize(ctx, "listProducts");
  const { storefrontId } = input;
  await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId });
  const after = decodePositionCursor(input.cursor);
  const position = productOrder(products.position);
  const q = input.q ? containsPattern(input.q) : null;
  const rows = await ctx.db
    .select()
    .from(products)
    .where(
      and(
        eq(products.storefrontId, storefrontId),
        eq(products.accountId, actor.accountId),
        q ? or(sql`${products.title} ilike ${q}`, sql`${products.sku} ilike ${q}`) : undefined,
        input.category ? eq(products.category, input.category) : undefined,
        after ? sql`(${position}, ${products.id}) > (${after.position}::bigint, ${after.id})` : undefined,
      ),
    )
    .orderBy(position, asc(products.id))
    .limit(input.limit + 1);
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  return {
    data: page.map(toProductDto),
    nextCursor: rows.length > input.limit && last ? encodePositionCursor(last) : null,
  };
}

/**
 * What the products page shows above its table (docs/ui.md, "Products"): the storefront, its categories (its own
 * list in order, then those named only on products), its product count and the account's products against the
 * plan's limit.
 */
export async function getProductCatalog(
  ctx: ServiceContext,
  input: { storefrontId: string },
): Promise<ProductCatalogSummary> {
  const actor = authorize(ctx, "listProducts");
  const storefront = await findLiveStorefront(ctx.db, {
    accountId: actor.accountId,
    storefrontId: input.storefrontId,
  });
  // One scan of the storefront's products gives both its count and the categories named on them.
  const [used, named] = await Promise.all([
    ctx.db
      .select({ n: accounts.productCount, plan: accounts.plan })
      .from(accounts)
      .where(eq(accounts.id, actor.accountId)),
    ctx.db
      .select({ category: products.category, n: count() })
      .from(products)
      .where(and(eq(products.storefrontId, storefront.id), eq(products.accountId, actor.accountId)))
      .groupBy(products.category),
  ]);
  const own = ((storefront.categories as Array<{ name: string; position?: number | null }> | null) ?? [])
    .map((category, index) => ({ name: category.name, order: category.position ?? UNSET_POSITION, index }))
    .sort((a, b) => a.order - b.order || a.index - b.index)
    .map((category) => category.name);
  const extra = named
    .map((row) => row.category)
    .filter((name): name is string => name !== null && !own.includes(name))
    .sort((a, b) => a.localeCompare(b));
  const plan = (used[0]?.plan ?? actor.plan) as Plan;
  return {
    storefront: {
      id: storefront.id,
      name: storefront.name,
      currency: storefront.currency,
      language: storefront.language,
    },
    categories: [...own, ...extra],
    productCount: named.reduce((sum, row) => sum + row.n, 0),
    usage: { used: used[0]?.n ?? 0, limit: PLAN_LIMITS[plan].products, plan },
  };
}
