import { bigint, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/**
 * Fixed windows counting what an account does through the doors that have no API key to count against: dashboard
 * session requests, and webhook test fires, resends and recoveries whatever the door (docs/security.md, "Limits").
 * Keys are hashed; counted with `insert ... on conflict do update ... returning` (server/db/fixed-window.ts).
 */
export const accountRateLimits = pgTable(
  "account_rate_limits",
  {
    /** sha256 of `<bucket>:<accountId>`, hex. */
    key: text("key").notNull(),
    /** Epoch seconds at which the window starts. */
    windowStart: bigint("window_start", { mode: "number" }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.key, t.windowStart] }),
    index("account_rate_limits_window_idx").on(t.windowStart),
  ],
);
