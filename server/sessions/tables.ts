import { bigint, index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { accounts } from "@/server/gate/tables";

const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * The one live sign-in code of an address (a new request replaces it). Nothing about the account is written
 * until the code is proven; an address without an account gets a row too, so no answer tells them apart.
 */
export const signInCodes = pgTable(
  "sign_in_codes",
  {
    /** Lowercased address. */
    email: text("email").primaryKey(),
    /** sha256(salt:email:code), hex. */
    codeHash: text("code_hash").notNull(),
    /** Random per code. */
    salt: text("salt").notNull(),
    /** Tries made against this code; past the limit the code is void. */
    attempts: integer("attempts").notNull().default(0),
    /** When the current code was mailed: a new one is mailed at most once a minute. */
    sentAt: at("sent_at").notNull(),
    expiresAt: at("expires_at").notNull(),
  },
  (t) => [index("sign_in_codes_expires_idx").on(t.expiresAt)],
);

/**
 * A proven address that an unverified bootstrap account holds, waiting for its owner to choose: continue with
 * that account or start a new one. The token lives in the sign-in cookie; only its sha256 is stored.
 */
export const signInChallenges = pgTable(
  "sign_in_challenges",
  {
    /** sha256 of the token, hex. */
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** The interface language at sign-in, for an account made by "start a new account". */
    language: text("language").notNull(),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
  },
  (t) => [index("sign_in_challenges_expires_idx").on(t.expiresAt)],
);

/** Dashboard sessions. The cookie holds a random token; the row's id is its sha256, never the token itself. */
export const sessions = pgTable(
  "sessions",
  {
    /** sha256 of the cookie value, hex. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
    /** When `expiresAt` was last pushed forward (sliding expiry moves it at most once a day). */
    extendedAt: at("extended_at").notNull(),
  },
  (t) => [index("sessions_account_idx").on(t.accountId), index("sessions_expires_idx").on(t.expiresAt)],
);

/** Fixed one-hour windows counting sign-in requests per client IP and per address (keys are hashed). */
export const signInRateLimits = pgTable(
  "sign_in_rate_limits",
  {
    /** sha256 of `<action>:<ip|email>:<value>`, hex. */
    key: text("key").notNull(),
    /** Epoch seconds at which the window starts. */
    windowStart: bigint("window_start", { mode: "number" }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.key, t.windowStart] }),
    index("sign_in_rate_limits_window_idx").on(t.windowStart),
  ],
);
