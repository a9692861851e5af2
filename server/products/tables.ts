import { type SQL, sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { accounts } from "@/server/gate/tables";
import { storefronts } from "@/server/storefronts/tables";

/** Where a product without a `position` sorts: after every product that has one (docs/ui.md, "Products"). */
export const UNSET_POSITION = 2_147_483_648;

/**
 * A product's place in its storefront's order: `position`, unset last. The products table sorts by it and the
 * `products_storefront_order_idx` index is on it, so a first page reads 51 index entries instead of sorting every
 * product of the storefront; the constant is written into the SQL (not a parameter) so that the index matches.
 */
export function productOrder(position: AnyPgColumn): SQL {
  return sql`coalesce(${position}::bigint, ${sql.raw(String(UNSET_POSITION))}::bigint)`;
}

/**
 * Products of a storefront (docs/api.md, "Products"). Money is numeric in the database, a JSON number
 * outside.
 */
export const products = pgTable(
  "products",
  {
    id: text("id").primaryKey(),
    storefrontId: text("storefront_id")
      .notNull()
      .references(() => storefronts.id),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    title: text("title").notNull(),
    price: numeric("price", { precision: 14, scale: 4, mode: "number" }).notNull(),
    description: text("description"),
    salePrice: numeric("sale_price", { precision: 14, scale: 4, mode: "number" }),
    category: text("category"),
    subcategory: text("subcategory"),
    imageUrl: text("image_url"),
    thumbnailUrl: text("thumbnail_url"),
    sku: text("sku"),
    slug: text("slug"),
    position: integer("position"),
    cartProduct: boolean("cart_product"),
    hide: boolean("hide"),
    stock: integer("stock"),
    tags: jsonb("tags").$type<string[] | null>(),
    extraProductsCategory: jsonb("extra_products_category"),
    imageProcessingPending: boolean("image_processing_pending").notNull().default(false),
    /** The file whose WebP variants show `imageUrl` (docs/api.md, "Images"); null until resized. */
    imageFileId: text("image_file_id"),
    /** `thumbnailUrl` was set by resizing, not by the client: a new `imageUrl` clears it. */
    isThumbnailGenerated: boolean("thumbnail_generated").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    index("products_storefront_idx").on(t.storefrontId, t.id),
    index("products_storefront_order_idx").on(t.storefrontId, productOrder(t.position), t.id),
    index("products_account_idx").on(t.accountId),
    index("products_image_pending_idx").on(t.imageProcessingPending),
  ],
);
