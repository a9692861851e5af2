import { sql } from "drizzle-orm";
import {
  bigint,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { accounts } from "@/server/gate/tables";
import { storefronts } from "@/server/storefronts/tables";

/** Orders (docs/api.md, "Orders"). Items keep the title and price charged at the time of the order. */
export const orders = pgTable(
  "orders",
  {
    id: text("id").primaryKey(),
    publicOrderId: integer("public_order_id").notNull(),
    storefrontId: text("storefront_id")
      .notNull()
      .references(() => storefronts.id),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    orderStatus: text("order_status").notNull(),
    customStatus: jsonb("custom_status"),
    items: jsonb("items").notNull(),
    customer: jsonb("customer").notNull(),
    paymentMethod: jsonb("payment_method").notNull(),
    paymentStatus: text("payment_status").notNull(),
    /** How the order reaches the customer: `{type: delivery|pickup|dine_in, distanceKm}`; decides deliveryPrice. */
    fulfillment: jsonb("fulfillment"),
    subtotalPrice: numeric("subtotal_price", { precision: 14, scale: 4, mode: "number" }).notNull(),
    deliveryPrice: numeric("delivery_price", { precision: 14, scale: 4, mode: "number" }).notNull(),
    totalPrice: numeric("total_price", { precision: 14, scale: 4, mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    source: text("source", { enum: ["api", "public"] }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
    paidAt: timestamp("paid_at", { withTimezone: true, mode: "date" }),
    /**
     * Public orders only: sha256 (hex) of the random token in the customer's status link (docs/api.md, "Order
     * status page"). The token itself is never stored.
     */
    statusTokenHash: text("status_token_hash"),
  },
  (t) => [
    uniqueIndex("orders_public_id_uq").on(t.storefrontId, t.publicOrderId),
    index("orders_storefront_idx").on(t.storefrontId, t.id),
    // The expiry job's scan: public orders still pending, oldest first (docs/api.md, "Public storefront").
    index("orders_pending_public_idx")
      .on(t.createdAt)
      .where(sql`source = 'public' and order_status = 'pending'`),
  ],
);

/**
 * Fixed one-minute windows counting orders from the public page per client IP (docs/api.md, "Public storefront",
 * rate limit). Keys are hashed; counted with `insert ... on conflict do update ... returning`.
 */
export const publicOrderRateLimits = pgTable(
  "public_order_rate_limits",
  {
    /** sha256 of `ip:<address>`, hex. */
    key: text("key").notNull(),
    /** Epoch seconds at which the window starts. */
    windowStart: bigint("window_start", { mode: "number" }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.key, t.windowStart] }),
    index("public_order_rate_limits_window_idx").on(t.windowStart),
  ],
);

/**
 * Fixed windows counting orders from the public page per storefront (10 minutes, by slug) and across every
 * storefront (one minute, key `all`): docs/api.md, "Public storefront". Apart from the per-IP windows so each
 * table's past windows are dropped on their own schedule.
 */
export const publicOrderStorefrontLimits = pgTable(
  "public_order_storefront_limits",
  {
    /** sha256 of `storefront:<slug>` or of `all`, hex. */
    key: text("key").notNull(),
    /** Epoch seconds at which the window starts. */
    windowStart: bigint("window_start", { mode: "number" }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.key, t.windowStart] }),
    index("public_order_storefront_limits_window_idx").on(t.windowStart),
  ],
);
