import { index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { accounts } from "@/server/gate/tables";

/** One WebP variant of a file (docs/api.md, "Files"): its width and height in pixels and its size in bytes. */
export type FileVariant = { width: number; height: number; size: number };

/**
 * Uploaded (or fetched) images (docs/api.md, "Files"). The bytes live in the file store (disk or S3,
 * docs/operations.md, "File storage") under `{id}/original` and `{id}/w{width}.webp`; this row is their metadata.
 */
export const files = pgTable(
  "files",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    contentType: text("content_type").notNull(),
    /** Bytes of the stored original (metadata stripped, orientation applied). */
    size: integer("size").notNull(),
    width: integer("width").notNull(),
    height: integer("height").notNull(),
    frames: integer("frames").notNull().default(1),
    /** The original plus its variants: what the plan's storage quota counts. */
    storedBytes: integer("stored_bytes").notNull(),
    /** The WebP variants made so far; null until resizing ran (an empty list: it failed). */
    variants: jsonb("variants").$type<FileVariant[] | null>(),
    /** The external `imageUrl` this file was fetched from (null: uploaded). */
    sourceUrl: text("source_url"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    /** Since when no product or storefront refers to it (null: referenced); the cleanup job deletes after 30 days. */
    unreferencedSince: timestamp("unreferenced_since", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    index("files_account_idx").on(t.accountId, t.id),
    index("files_unreferenced_idx").on(t.unreferencedSince),
  ],
);
