import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/** Fixed-window request counters per key: bucket `m` (minute) and `d` (UTC day). */
export const rateLimitCounters = pgTable(
  "rate_limit_counters",
  {
    keyId: text("key_id").notNull(),
    bucket: text("bucket", { enum: ["m", "d"] }).notNull(),
    /** Epoch seconds at which the window starts. */
    windowStart: bigint("window_start", { mode: "number" }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.keyId, t.bucket, t.windowStart] }),
    index("rate_limit_window_idx").on(t.windowStart),
  ],
);

/** Idempotency records, scoped to (API key, Idempotency-Key), kept 24 h (docs/api.md, "Idempotency"). */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    keyId: text("key_id").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    fingerprint: text("fingerprint").notNull(),
    state: text("state", { enum: ["in_progress", "done"] }).notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    responseHeaders: jsonb("response_headers").$type<Record<string, string>>(),
    /** An in-progress claim older than this is abandoned (its process died) and may be taken over. */
    lockedUntil: timestamp("locked_until", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.keyId, t.idempotencyKey] }),
    index("idempotency_created_idx").on(t.createdAt),
  ],
);
