import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

const timestamps = {
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
};

/** A person with an email: merchant, developer partner, or both (docs/api.md, "Accounts and keys"). */
export const accounts = pgTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    /** Stored lowercased; unique among accounts that are not cancelled. */
    email: text("email").notNull(),
    name: text("name"),
    language: text("language").notNull().default("es"),
    status: text("status", { enum: ["unverified", "verified", "cancelled"] }).notNull(),
    plan: text("plan", { enum: ["FREE_NEW", "FREE_OLD", "PRO"] })
      .notNull()
      .default("FREE_NEW"),
    /** The developer key that bootstrapped this account, if any. */
    developerKeyId: text("developer_key_id"),
    source: text("source", { enum: ["bootstrap", "dashboard", "cli"] }).notNull(),
    tosAcceptedVersion: text("tos_accepted_version"),
    verificationCodeHash: text("verification_code_hash"),
    verificationExpiresAt: timestamp("verification_expires_at", { withTimezone: true, mode: "date" }),
    /** Tries of the current code (at most 5; a new code starts again at 0). */
    verificationAttempts: integer("verification_attempts").notNull().default(0),
    /** Tries of every code, and codes mailed, for ever: a resend does not reset them (docs/api.md). */
    verificationTries: integer("verification_tries").notNull().default(0),
    verificationCodesIssued: integer("verification_codes_issued").notNull().default(0),
    /**
     * Whether the developer partner that bootstrapped the account may issue keys for it (docs/api.md, "Partner
     * access"): on until the owner first signs in to the dashboard, then off until the owner grants it.
     */
    partnerAccess: boolean("partner_access").notNull().default(true),
    /** When the owner first signed in to the dashboard (with a code mailed to the address). */
    ownerSignedInAt: timestamp("owner_signed_in_at", { withTimezone: true, mode: "date" }),
    /** Accounts this (developer) account may bootstrap per UTC day; null: the default (docs/api.md). */
    bootstrapDailyLimit: integer("bootstrap_daily_limit"),
    /** Products across the account's live storefronts; changed only by atomic conditional updates. */
    productCount: integer("product_count").notNull().default(0),
    ...timestamps,
    verifiedAt: timestamp("verified_at", { withTimezone: true, mode: "date" }),
    cancelledAt: timestamp("cancelled_at", { withTimezone: true, mode: "date" }),
    cancelReason: text("cancel_reason"),
  },
  (t) => [
    uniqueIndex("accounts_email_active_uq").on(t.email).where(sql`status <> 'cancelled'`),
    index("accounts_developer_key_idx").on(t.developerKeyId),
    index("accounts_status_created_idx").on(t.status, t.createdAt),
  ],
);

/** API keys: only the SHA-256 of the raw key is stored, plus a short display prefix. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    kind: text("kind", { enum: ["developer", "user"] }).notNull(),
    name: text("name"),
    prefix: text("prefix").notNull(),
    hash: text("hash").notNull(),
    scopes: text("scopes").array().notNull(),
    /** Requests per UTC day; null means the kind's default (10,000 for user keys). */
    dailyLimit: integer("daily_limit"),
    rpm: integer("rpm").notNull().default(60),
    source: text("source", { enum: ["cli", "dashboard", "bootstrap", "api", "oauth"] }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
    /**
     * When the key last authenticated a request, to the minute: the /v1 counting statement sets it when it opens
     * the key's minute window (server/gate/rate-limit.ts), so at most one write a minute per key.
     */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [uniqueIndex("api_keys_hash_uq").on(t.hash), index("api_keys_account_idx").on(t.accountId)],
);

/**
 * Fixed windows counting what accounts and developer accounts do against their abuse limits (server/accounts/
 * limits.ts): verification tries and resends per day, bootstraps per day and per address. Keys are hashed.
 */
export const accountLimitWindows = pgTable(
  "account_limit_windows",
  {
    /** sha256 of e.g. `verify-tries:<accountId>`, `bootstrap:<accountId>`, `bootstrap-address:<email>`, hex. */
    key: text("key").notNull(),
    /** Epoch seconds at which the window starts. */
    windowStart: bigint("window_start", { mode: "number" }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.key, t.windowStart] }),
    index("account_limit_windows_window_idx").on(t.windowStart),
  ],
);
