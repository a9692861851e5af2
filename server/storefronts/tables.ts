import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "@/server/gate/tables";

/**
 * Storefronts. Nested objects are stored as JSON exactly as their DTO shapes (docs/api.md, "Storefronts").
 */
export const storefronts = pgTable(
  "storefronts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name").notNull(),
    language: text("language").notNull(),
    currency: text("currency").notNull(),
    businessType: text("business_type"),
    branding: jsonb("branding"),
    schedule: jsonb("schedule"),
    delivery: jsonb("delivery"),
    pickup: boolean("pickup"),
    dineIn: boolean("dine_in"),
    whatsapp: text("whatsapp"),
    biography: jsonb("biography"),
    blocks: jsonb("blocks"),
    categories: jsonb("categories"),
    slug: text("slug"),
    hidden: boolean("hidden").notNull().default(false),
    published: boolean("published").notNull().default(false),
    /**
     * Settings outside the /v1 Storefront object (docs/api.md, "Storefront settings"), edited in the dashboard:
     * the IANA time zone of `schedule` (null: from the currency), and the payment method names customers choose
     * from on the public page (null: cash only).
     */
    timeZone: text("time_zone"),
    paymentMethods: jsonb("payment_methods").$type<string[] | null>(),
    /** Last publicOrderId handed out for this storefront (orders number from 1 per storefront). */
    orderCounter: integer("order_counter").notNull().default(0),
    /**
     * Set by a write that sent a logo or background (to that write's `updatedAt`), cleared when its processing
     * ends: one still set after the process stopped is picked up by `process-branding-images` (docs/api.md,
     * "Branding images"). Never shown.
     */
    brandingImagesPendingSince: timestamp("branding_images_pending_since", {
      withTimezone: true,
      mode: "date",
    }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
    deletedAt: timestamp("deleted_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    index("storefronts_account_idx").on(t.accountId, t.id),
    uniqueIndex("storefronts_slug_uq").on(t.slug).where(sql`slug is not null and deleted_at is null`),
    index("storefronts_branding_pending_idx")
      .on(t.brandingImagesPendingSince)
      .where(sql`branding_images_pending_since is not null`),
  ],
);
