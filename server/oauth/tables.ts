import { sql } from "drizzle-orm";
import {
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { accounts, apiKeys } from "@/server/gate/tables";

const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * OAuth clients (docs/mcp.md, "Clients"): registered through `/oauth/register` (RFC 7591, `dynamic`) or known
 * by the URL of their client ID metadata document (`metadata_document`, fetched and cached by Cache-Control).
 * Every client is public (`token_endpoint_auth_method: none`) and proves itself with PKCE.
 */
export const oauthClients = pgTable(
  "oauth_clients",
  {
    /** `oac_…` for registered clients; the document's https URL for metadata-document clients. */
    id: text("id").primaryKey(),
    kind: text("kind", { enum: ["dynamic", "metadata_document"] }).notNull(),
    name: text("name").notNull(),
    redirectUris: text("redirect_uris").array().notNull(),
    /** The rest of the client's metadata as registered or fetched (client_uri, logo_uri, software_id...). */
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull(),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
    /** Metadata documents: reused until then (Cache-Control max-age), fetched again after. */
    documentExpiresAt: at("document_expires_at"),
    /**
     * When a person first allowed this client on the consent page. A registered client never allowed is unused:
     * the hourly purge drops it after 30 days (docs/mcp.md, "Authorization server").
     */
    grantedAt: at("granted_at"),
  },
  (t) => [index("oauth_clients_created_idx").on(t.createdAt)],
);

/**
 * An authorization request waiting for the signed-in person's decision on the consent page. Checked in full at
 * `/oauth/authorize`, kept 10 minutes, used once.
 */
export const oauthAuthorizationRequests = pgTable(
  "oauth_authorization_requests",
  {
    id: text("id").primaryKey(),
    clientId: text("client_id")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    clientName: text("client_name").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    state: text("state"),
    codeChallenge: text("code_challenge").notNull(),
    scopes: text("scopes").array().notNull(),
    resource: text("resource").notNull(),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
  },
  (t) => [index("oauth_authorization_requests_expires_idx").on(t.expiresAt)],
);

/**
 * A connected app: the account's consent to one client, and the ONE per-user key that consent made (named after
 * the app). Revoking or deleting that key disconnects the app.
 */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    clientId: text("client_id")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    /** The `marea.*` scopes last granted. */
    scopes: text("scopes").array().notNull(),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.clientId] }),
    uniqueIndex("oauth_grants_key_uq").on(t.keyId),
    // The purge of unused clients asks "does any grant name this client?".
    index("oauth_grants_client_idx").on(t.clientId),
  ],
);

/**
 * Authorization codes, access tokens and refresh tokens, stored only as the SHA-256 of the secret. `familyId`
 * ties together everything one authorization code led to (its tokens and every rotation), so a replayed code or a
 * reused refresh token revokes the whole family.
 */
export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    hash: text("hash").primaryKey(),
    /** `tok_…`: how logs and the actor name a token without its secret. */
    id: text("id").notNull(),
    kind: text("kind", { enum: ["code", "access", "refresh"] }).notNull(),
    familyId: text("family_id").notNull(),
    clientId: text("client_id")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    scopes: text("scopes").array().notNull(),
    resource: text("resource").notNull(),
    /** Codes only: where the code was sent and the PKCE challenge it must be redeemed with. */
    redirectUri: text("redirect_uri"),
    codeChallenge: text("code_challenge"),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
    /** A code redeemed, or a refresh token rotated: presenting it again is a replay. */
    usedAt: at("used_at"),
    revokedAt: at("revoked_at"),
    /**
     * A rotated refresh token: the answer its rotation gave (the new token pair), encrypted with the secrets key
     * (`encryptSecret`), so a retry within the reuse grace gets the same pair (docs/mcp.md, "Token"). Never
     * kept in clear; cleared by the hourly purge once the grace is over, and when the family is revoked.
     */
    replay: text("replay"),
  },
  (t) => [
    uniqueIndex("oauth_tokens_id_uq").on(t.id),
    index("oauth_tokens_family_idx").on(t.familyId),
    index("oauth_tokens_grant_idx").on(t.accountId, t.clientId),
    // Deleting an unused client cascades to its tokens: found by client, not by a scan.
    index("oauth_tokens_client_idx").on(t.clientId),
    // The hourly purge finds the few sealed answers left, not every token.
    index("oauth_tokens_replay_idx").on(t.usedAt).where(sql`${t.replay} is not null`),
    index("oauth_tokens_key_idx").on(t.keyId),
    index("oauth_tokens_expires_idx").on(t.expiresAt),
  ],
);

/**
 * Fixed windows of the unauthenticated endpoints' limits (registration, metadata document fetches, kept
 * authorization requests), per client address, per network and in all (docs/security.md, "OAuth"); keys are
 * hashed, so no address is stored.
 */
export const oauthRateLimits = pgTable(
  "oauth_rate_limits",
  {
    key: text("key").notNull(),
    windowStart: integer("window_start").notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);
