import { createHash } from "node:crypto";
import { and, eq, gt, inArray, isNull, ne } from "drizzle-orm";
import type { Db } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { normalizeScopes, parseScopeParameter } from "@/server/gate/oauth-scopes";
import { accounts, apiKeys } from "@/server/gate/tables";
import { randomBase62, safeEqual, sha256Hex } from "@/server/lib/crypto";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/log";
import { decryptSecret, encryptSecret } from "@/server/lib/secrets";
import { resolveClient } from "./clients";
import { OAuthError } from "./errors";
import { oauthGrants, oauthTokens } from "./tables";
import { mcpUrl } from "./urls";

/**
 * The token endpoint and revocation (RFC 7009) of Marea's OAuth 2.1 authorization server for MCP clients
 * (docs/mcp.md, "Authorization server"): codes with PKCE (S256 only) for tokens bound to the MCP URL, opaque 1-hour
 * access tokens, rotating refresh tokens with reuse detection (and a 10-second grace for a retry). Every code and
 * token is stored only as its SHA-256; a presented secret is found by its hash, never compared as text.
 */

export const ACCESS_TOKEN_TTL_MS = 3_600_000;
export const REFRESH_TOKEN_TTL_MS = 30 * 86_400_000;

/** Token formats: a prefix (so scanners and logs can tell them apart) and 43 base62 characters (~256 bits). */
export const PREFIX = { code: "mcp_code_", access: "mcp_at_", refresh: "mcp_rt_" } as const;
export const TOKEN_PATTERN = /^mcp_(code|at|rt)_[0-9A-Za-z]{43}$/;
const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

type TokenKind = keyof typeof PREFIX;

export function newSecret(kind: TokenKind): string {
  return `${PREFIX[kind]}${randomBase62(43)}`;
}

export function hashOf(secret: string): string {
  return sha256Hex(secret);
}

/** `resource` as MCP clients send it: exactly the MCP URL (a trailing slash is tolerated). */
export function isOurResource(value: string): boolean {
  const ours = mcpUrl();
  return value === ours || value === `${ours}/`;
}

export type TokenResponse = {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
};

type TokenRow = typeof oauthTokens.$inferSelect;

function required(form: URLSearchParams, name: string): string {
  const values = form.getAll(name);
  if (values.length > 1) throw new OAuthError("invalid_request", `${name} is repeated.`);
  const value = values[0];
  if (!value) throw new OAuthError("invalid_request", `${name} is missing.`);
  return value;
}

function optional(form: URLSearchParams, name: string): string | null {
  const values = form.getAll(name);
  if (values.length > 1) throw new OAuthError("invalid_request", `${name} is repeated.`);
  return values[0] ?? null;
}

async function findToken(db: Db, secret: string, kind: TokenKind): Promise<TokenRow | undefined> {
  if (!TOKEN_PATTERN.test(secret) || !secret.startsWith(PREFIX[kind])) return undefined;
  const [row] = await db
    .select()
    .from(oauthTokens)
    .where(and(eq(oauthTokens.hash, hashOf(secret)), eq(oauthTokens.kind, kind)))
    .limit(1);
  return row;
}

/** Revokes every code and token one authorization led to (a replayed code, a reused refresh token). */
async function revokeFamily(db: Db, familyId: string, now: Date, reason: string): Promise<void> {
  const rows = await db
    .update(oauthTokens)
    .set({ revokedAt: now, replay: null })
    .where(and(eq(oauthTokens.familyId, familyId), isNull(oauthTokens.revokedAt)))
    .returning({ id: oauthTokens.id });
  log("warn", "oauth token family revoked", { familyId, reason, revoked: rows.length });
}

/** The per-user key behind a grant is still live and still the connected app's key, on a live account. */
async function isGrantLive(
  db: Db,
  token: Pick<TokenRow, "accountId" | "clientId" | "keyId">,
): Promise<boolean> {
  const [row] = await db
    .select({ keyId: oauthGrants.keyId })
    .from(oauthGrants)
    .innerJoin(apiKeys, eq(apiKeys.id, oauthGrants.keyId))
    .innerJoin(accounts, eq(accounts.id, oauthGrants.accountId))
    .where(
      and(
        eq(oauthGrants.accountId, token.accountId),
        eq(oauthGrants.clientId, token.clientId),
        eq(oauthGrants.keyId, token.keyId),
        isNull(apiKeys.revokedAt),
        ne(accounts.status, "cancelled"),
      ),
    )
    .limit(1);
  return Boolean(row);
}

async function issueTokens(
  db: Db,
  from: Pick<TokenRow, "familyId" | "clientId" | "accountId" | "keyId" | "resource">,
  scopes: string[],
  now: Date,
): Promise<TokenResponse> {
  const access = newSecret("access");
  const refresh = newSecret("refresh");
  const common = {
    familyId: from.familyId,
    clientId: from.clientId,
    accountId: from.accountId,
    keyId: from.keyId,
    scopes,
    resource: from.resource,
    createdAt: now,
  };
  await db.insert(oauthTokens).values([
    {
      ...common,
      hash: hashOf(access),
      id: newId("tok"),
      kind: "access",
      expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_MS),
    },
    {
      ...common,
      hash: hashOf(refresh),
      id: newId("tok"),
      kind: "refresh",
      expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
    },
  ]);
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_MS / 1000,
    refresh_token: refresh,
    scope: normalizeScopes(scopes).join(" "),
  };
}

function pkceMatches(verifier: string, challenge: string): boolean {
  if (!PKCE_VERIFIER.test(verifier)) return false;
  return safeEqual(createHash("sha256").update(verifier).digest("base64url"), challenge);
}

/**
 * `POST /oauth/token` (docs/mcp.md, "Token"): `authorization_code` (with `code_verifier`, the same
 * `redirect_uri`, and `resource` if sent equal to the MCP URL) or `refresh_token` (rotated on every use).
 * A code works once and for 60 seconds; presenting it again revokes everything it issued. A rotated refresh token
 * presented again revokes the whole family. A grant whose per-user key was deleted answers `invalid_grant`.
 */
export async function exchangeToken(
  db: Db,
  input: { form: URLSearchParams; clientId: string | null },
  now: Date,
): Promise<TokenResponse> {
  const form = input.form;
  const grantType = required(form, "grant_type");
  const clientId = input.clientId ?? required(form, "client_id");
  await resolveClient(db, clientId, now, { fetch: false });
  if (grantType === "authorization_code") return redeemCode(db, form, clientId, now);
  if (grantType === "refresh_token") return refreshTokens(db, form, clientId, now);
  throw new OAuthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token.");
}

async function redeemCode(
  db: Db,
  form: URLSearchParams,
  clientId: string,
  now: Date,
): Promise<TokenResponse> {
  const code = required(form, "code");
  const redirectUri = required(form, "redirect_uri");
  const verifier = optional(form, "code_verifier");
  const resource = optional(form, "resource");
  const row = await findToken(db, code, "code");
  if (!row || row.clientId !== clientId) throw new OAuthError("invalid_grant", "The code is not valid.");
  if (row.usedAt || row.revokedAt) {
    await revokeFamily(db, row.familyId, now, "authorization code replayed");
    throw new OAuthError("invalid_grant", "The code was already used; what it issued is revoked.");
  }
  if (row.expiresAt <= now) throw new OAuthError("invalid_grant", "The code has expired.");
  if (!verifier) throw new OAuthError("invalid_request", "code_verifier is missing (PKCE is required).");
  if (!row.codeChallenge || !pkceMatches(verifier, row.codeChallenge))
    throw new OAuthError("invalid_grant", "code_verifier does not match the code_challenge.");
  if (redirectUri !== row.redirectUri)
    throw new OAuthError("invalid_grant", "redirect_uri is not the one the code was issued for.");
  if (resource !== null && (!isOurResource(resource) || !isOurResource(row.resource)))
    throw new OAuthError("invalid_target", `resource must be ${mcpUrl()}.`);
  const issued = await inTransaction(db, async (tx) => {
    const [claimed] = await tx
      .update(oauthTokens)
      .set({ usedAt: now })
      .where(and(eq(oauthTokens.hash, row.hash), isNull(oauthTokens.usedAt), isNull(oauthTokens.revokedAt)))
      .returning({ hash: oauthTokens.hash });
    if (!claimed) return "replayed" as const;
    if (!(await isGrantLive(tx, row))) return "disconnected" as const;
    return issueTokens(tx, row, row.scopes, now);
  });
  // Another request redeemed the same code a moment earlier: a replay too.
  if (issued === "replayed") {
    await revokeFamily(db, row.familyId, now, "authorization code replayed");
    throw new OAuthError("invalid_grant", "The code was already used; what it issued is revoked.");
  }
  if (issued === "disconnected")
    throw new OAuthError("invalid_grant", "The app was disconnected (its key was deleted).");
  return issued;
}

/**
 * How long a rotated refresh token may be presented again by its client and get the same answer (RFC 9700
 * section 4.14.2): a client that lost the answer to a refresh, or runs several processes refreshing at once,
 * keeps its grant. Later, a reuse revokes the family (docs/mcp.md, "Token").
 */
export const REFRESH_REUSE_GRACE_MS = 10_000;

/** What a rotated refresh token's row keeps (encrypted) to answer a retry within the grace. */
type RotationReplay = { for: string; response: TokenResponse };

function sealReplay(rotatedHash: string, response: TokenResponse): string {
  return encryptSecret(JSON.stringify({ for: rotatedHash, response } satisfies RotationReplay));
}

function openReplay(row: TokenRow): TokenResponse | null {
  if (!row.replay) return null;
  try {
    const replay = JSON.parse(decryptSecret(row.replay)) as RotationReplay;
    // Bound to its own row: a ciphertext copied onto another row answers nothing.
    return replay.for === row.hash ? replay.response : null;
  } catch (error) {
    log("warn", "oauth refresh replay unreadable", { tokenId: row.id, error });
    return null;
  }
}

/**
 * A rotated refresh token presented again. Within `REFRESH_REUSE_GRACE_MS` of its rotation, asking for the same
 * scopes, while the pair it was rotated into is still unused and the grant live: the same pair again. Anything
 * else is a reuse: the family is revoked.
 */
async function answerReuse(db: Db, row: TokenRow, scopes: string[], now: Date): Promise<TokenResponse> {
  const isWithinGrace =
    row.usedAt !== null && now.getTime() - row.usedAt.getTime() <= REFRESH_REUSE_GRACE_MS && !row.revokedAt;
  const answer = isWithinGrace ? openReplay(row) : null;
  if (answer && answer.scope === normalizeScopes(scopes).join(" ")) {
    const [successor] = await db
      .select({ hash: oauthTokens.hash })
      .from(oauthTokens)
      .where(
        and(
          eq(oauthTokens.hash, hashOf(answer.refresh_token)),
          eq(oauthTokens.kind, "refresh"),
          eq(oauthTokens.familyId, row.familyId),
          isNull(oauthTokens.usedAt),
          isNull(oauthTokens.revokedAt),
          gt(oauthTokens.expiresAt, now),
        ),
      )
      .limit(1);
    if (successor && (await isGrantLive(db, row))) {
      log("info", "oauth refresh answered again within the reuse grace", {
        familyId: row.familyId,
        tokenId: row.id,
      });
      return answer;
    }
  }
  await revokeFamily(db, row.familyId, now, "refresh token reused");
  throw new OAuthError("invalid_grant", "The refresh token was already used; the grant is revoked.");
}

async function refreshTokens(
  db: Db,
  form: URLSearchParams,
  clientId: string,
  now: Date,
): Promise<TokenResponse> {
  const secret = required(form, "refresh_token");
  const resource = optional(form, "resource");
  const scopeParam = optional(form, "scope");
  const row = await findToken(db, secret, "refresh");
  if (!row || row.clientId !== clientId)
    throw new OAuthError("invalid_grant", "The refresh token is not valid.");
  const asked = scopeParam === null ? row.scopes : parseScopeParameter(scopeParam);
  if (row.usedAt) return answerReuse(db, row, asked ?? [], now);
  if (row.revokedAt) throw new OAuthError("invalid_grant", "The refresh token was revoked.");
  if (row.expiresAt <= now) throw new OAuthError("invalid_grant", "The refresh token has expired.");
  if (resource !== null && !isOurResource(resource))
    throw new OAuthError("invalid_target", `resource must be ${mcpUrl()}.`);
  if (!asked || asked.some((scope) => !row.scopes.includes(scope)))
    throw new OAuthError("invalid_scope", "A refresh can only keep or narrow the granted scopes.");
  const scopes = asked;
  // The claim, the new pair and the sealed answer commit together: a concurrent refresh with the same token
  // waits on the claimed row, then finds the answer to give again (answerReuse).
  const claimed = await inTransaction(db, async (tx) => {
    const [taken] = await tx
      .update(oauthTokens)
      .set({ usedAt: now })
      .where(and(eq(oauthTokens.hash, row.hash), isNull(oauthTokens.usedAt), isNull(oauthTokens.revokedAt)))
      .returning({ hash: oauthTokens.hash });
    if (!taken) return null;
    if (!(await isGrantLive(tx, row))) return "disconnected" as const;
    const issued = await issueTokens(tx, row, scopes, now);
    await tx
      .update(oauthTokens)
      .set({ replay: sealReplay(row.hash, issued) })
      .where(eq(oauthTokens.hash, row.hash));
    return issued;
  });
  if (claimed === null) {
    const [current] = await db.select().from(oauthTokens).where(eq(oauthTokens.hash, row.hash)).limit(1);
    if (current?.usedAt) return answerReuse(db, current, scopes, now);
    await revokeFamily(db, row.familyId, now, "refresh token reused");
    throw new OAuthError("invalid_grant", "The refresh token was already used; the grant is revoked.");
  }
  if (claimed === "disconnected")
    throw new OAuthError("invalid_grant", "The app was disconnected (its key was deleted).");
  return claimed;
}

// ---------------------------------------------------------------------------------------------------------------
// Revocation (RFC 7009)

/**
 * `POST /oauth/revoke`: revokes an access token (that token) or a refresh token (its whole family, access tokens
 * included). An unknown or already revoked token answers the same success (RFC 7009 section 2.2); another
 * client's token is refused.
 */
export async function revokeToken(
  db: Db,
  input: { form: URLSearchParams; clientId: string | null },
  now: Date,
): Promise<void> {
  const token = required(input.form, "token");
  const clientId = input.clientId ?? required(input.form, "client_id");
  await resolveClient(db, clientId, now, { fetch: false });
  if (!TOKEN_PATTERN.test(token)) return;
  const [row] = await db
    .select()
    .from(oauthTokens)
    .where(and(eq(oauthTokens.hash, hashOf(token)), inArray(oauthTokens.kind, ["access", "refresh"])))
    .limit(1);
  if (!row) return;
  if (row.clientId !== clientId)
    throw new OAuthError("unauthorized_client", "The token belongs to another client.");
  if (row.kind === "refresh") {
    await revokeFamily(db, row.familyId, now, "refresh token revoked by the client");
    return;
  }
  await db.update(oauthTokens).set({ revokedAt: now }).where(eq(oauthTokens.hash, row.hash));
}
