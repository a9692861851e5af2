import { createHash } from "node:crypto";
import { and, asc, eq, gt, inArray, isNotNull, isNull, lt, ne, notExists, or, sql } from "drizzle-orm";
import { issueKey } from "@/server/accounts/keys";
import { userScopesFor } from "@/server/accounts/scopes";
import { accounts, apiKeys } from "@/server/accounts/tables";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { randomBase62, safeEqual, sha256Hex } from "@/server/lib/crypto";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/log";
import { decryptSecret, encryptSecret } from "@/server/lib/secrets";
import { clientHost, type OAuthClientRow, redirectUriMatches, resolveClient } from "./clients";
import { type AuthorizePageReason, OAuthError } from "./errors";
import { consumeLimit, type WindowedLimit } from "./limits";
import { authorize } from "./operations";
import { KEY_SCOPE_FOR, type McpScope, normalizeScopes, parseScopeParameter } from "./scopes";
import {
  oauthAuthorizationRequests,
  oauthClients,
  oauthGrants,
  oauthRateLimits,
  oauthTokens,
} from "./tables";
import { consentPageUrl, issuer, mcpUrl } from "./urls";

/**
 * Marea's OAuth 2.1 authorization server for MCP clients (docs/mcp.md, "Authorization server"): authorization
 * code with PKCE (S256 only), tokens bound to the MCP URL, single-use 60-second codes, opaque 1-hour access
 * tokens, rotating refresh tokens with reuse detection (and a 10-second grace for a retry), RFC 7009 revocation.
 * Every code and token is stored only as its SHA-256; a presented secret is found by its hash, never compared as
 * text.
 */

export const AUTHORIZATION_REQUEST_TTL_MS = 10 * 60_000;
export const CODE_TTL_MS = 60_000;
export const ACCESS_TOKEN_TTL_MS = 3_600_000;
export const REFRESH_TOKEN_TTL_MS = 30 * 86_400_000;

/** Token formats: a prefix (so scanners and logs can tell them apart) and 43 base62 characters (~256 bits). */
const PREFIX = { code: "mcp_code_", access: "mcp_at_", refresh: "mcp_rt_" } as const;
const TOKEN_PATTERN = /^mcp_(code|at|rt)_[0-9A-Za-z]{43}$/;
const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const STATE_MAX = 2000;

type TokenKind = keyof typeof PREFIX;

function newSecret(kind: TokenKind): string {
  return `${PREFIX[kind]}${randomBase62(43)}`;
}

function hashOf(secret: string): string {
  return sha256Hex(secret);
}

/** `resource` as MCP clients send it: exactly the MCP URL (a trailing slash is tolerated). */
function isOurResource(value: string): boolean {
  const ours = mcpUrl();
  return value === ours || value === `${ours}/`;
}

/** Where the browser goes with the answer: the client's redirect URI plus the parameters and `iss` (RFC 9207). */
function redirectWith(redirectUri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value != null) url.searchParams.set(name, value);
  url.searchParams.set("iss", issuer());
  return url.toString();
}

// ---------------------------------------------------------------------------------------------------------------
// Authorization endpoint

export type AuthorizeOutcome =
  /** Valid: the signed-in person decides on the consent page. */
  | { kind: "consent"; location: string }
  /** Refused with an error the client receives at its redirect URI (with `state` and `iss`). */
  | { kind: "redirect"; location: string }
  /**
   * Refused before the redirect URI could be trusted, or a request too malformed to be a real client's: shown to
   * the person on `/oauth/error` (its `reason` picks the text), never redirected.
   */
  | { kind: "error_page"; error: OAuthError };

const AUTHORIZE_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
];

/**
 * Authorization requests kept for the consent page, per fixed 10-minute window (their lifetime), per client
 * address and network: an unauthenticated insert (docs/security.md, "OAuth").
 */
export const AUTHORIZATION_REQUEST_LIMITS = {
  name: "authorize-request",
  windowSeconds: 600,
  perIp: 30,
  perNetwork: 100,
} as const satisfies WindowedLimit;

function errorPage(
  code: OAuthError["code"],
  description: string,
  reason: AuthorizePageReason,
): AuthorizeOutcome {
  return { kind: "error_page", error: new OAuthError(code, description, { reason }) };
}

/** The one value of a parameter sent once; null when absent or repeated. */
function single(params: URLSearchParams, name: string): string | null {
  const values = params.getAll(name);
  return values.length === 1 ? (values[0] ?? null) : null;
}

/**
 * `GET|POST /oauth/authorize` (docs/mcp.md, "Authorize"). First the client and its redirect URI (exact match,
 * or a loopback redirect on another port); if either is wrong the person sees the error page. Then the request
 * must be well-formed, or the person sees the error page too, so a registered redirect URI cannot be used as an
 * open redirect by a link that never meant to authorize: `response_type=code` and a base64url S256
 * `code_challenge` with `code_challenge_method=S256`, each sent once. Only a well-formed request's remaining
 * errors go back to the redirect URI (RFC 6749 section 4.1.2.1): `resource`, when sent, must be the MCP URL
 * (`invalid_target`), known scopes only, no request objects, no other repeated parameter. A valid request is kept
 * 10 minutes for the consent page, counted in the client address's `AUTHORIZATION_REQUEST_LIMITS`.
 */
export async function startAuthorization(
  db: Db,
  input: { params: URLSearchParams; ip: string | null },
  now: Date,
): Promise<AuthorizeOutcome> {
  const { params, ip } = input;
  const clientId = single(params, "client_id");
  if (!clientId)
    return errorPage("invalid_request", "client_id is missing or repeated.", "oauth_request_malformed");
  let client: OAuthClientRow;
  try {
    client = await resolveClient(db, clientId, now, { ip });
  } catch (error) {
    if (error instanceof OAuthError) return { kind: "error_page", error };
    throw error;
  }
  const redirectUri = params.get("redirect_uri");
  if (!redirectUri)
    return errorPage("invalid_request", "redirect_uri is missing.", "oauth_request_malformed");
  if (params.getAll("redirect_uri").length > 1 || !redirectUriMatches(client.redirectUris, redirectUri))
    return errorPage(
      "invalid_request",
      "redirect_uri is not one this client registered.",
      "oauth_redirect_uri_unregistered",
    );

  // Well-formed or not redirected at all (docs/mcp.md, "Authorize").
  if (single(params, "response_type") !== "code")
    return errorPage(
      "unsupported_response_type",
      "Only response_type=code is supported.",
      "oauth_request_malformed",
    );
  const challenge = single(params, "code_challenge");
  if (!challenge || single(params, "code_challenge_method") !== "S256" || !PKCE_CHALLENGE.test(challenge))
    return errorPage(
      "invalid_request",
      "PKCE is required: a base64url SHA-256 code_challenge with code_challenge_method=S256.",
      "oauth_request_malformed",
    );

  const state = params.get("state");
  const refuse = (code: OAuthError["code"], description: string): AuthorizeOutcome => ({
    kind: "redirect",
    location: redirectWith(redirectUri, {
      error: code,
      error_description: description,
      state: state && state.length <= STATE_MAX ? state : null,
    }),
  });

  const repeated = AUTHORIZE_PARAMS.find((name) => params.getAll(name).length > 1);
  if (repeated) return refuse("invalid_request", `${repeated} is repeated.`);
  if (state !== null && state.length > STATE_MAX) return refuse("invalid_request", "state is too long.");
  if (params.get("request") !== null || params.get("request_uri") !== null)
    return refuse("invalid_request", "Request objects are not supported.");
  const resource = params.get("resource") ?? mcpUrl();
  if (!isOurResource(resource)) return refuse("invalid_target", `resource must be ${mcpUrl()}.`);
  const scopes = parseScopeParameter(params.get("scope"));
  if (!scopes) return refuse("invalid_scope", "Known scopes: marea.read, marea.write, marea.publish.");

  try {
    await consumeLimit(
      db,
      AUTHORIZATION_REQUEST_LIMITS,
      ip,
      now,
      "Too many authorization requests from this address. Try again later.",
    );
  } catch (error) {
    if (error instanceof OAuthError) return { kind: "error_page", error };
    throw error;
  }
  const id = newId("oar");
  await db.insert(oauthAuthorizationRequests).values({
    id,
    clientId: client.id,
    clientName: client.name,
    redirectUri,
    state,
    codeChallenge: challenge,
    scopes,
    resource: mcpUrl(),
    createdAt: now,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_REQUEST_TTL_MS),
  });
  return { kind: "consent", location: consentPageUrl(id) };
}

// ---------------------------------------------------------------------------------------------------------------
// Consent (a signed-in dashboard session)

export type ConsentRequestDto = {
  requestId: string;
  clientId: string;
  clientName: string;
  /** The metadata document's host; null for a dynamically registered client. */
  clientHost: string | null;
  clientKind: "dynamic" | "metadata_document";
  clientUri: string | null;
  redirectUri: string;
  /** The host the answer goes to, or the app's scheme (`cursor:`) for a private-use redirect. */
  redirectHost: string;
  scopes: McpScope[];
  /** Scopes asked for that this account cannot grant yet (publishing needs a verified email). */
  unavailableScopes: McpScope[];
  /** True when the app is connected already (approving updates its key). */
  isConnected: boolean;
  expiresAt: string;
};

function redirectHostOf(uri: string): string {
  const url = new URL(uri);
  return url.host || url.protocol;
}

/** The scopes this account can grant: a key of the account may hold their key scopes. */
function grantableScopes(
  scopes: readonly McpScope[],
  accountStatus: "unverified" | "verified" | "cancelled",
) {
  const allowed = userScopesFor(accountStatus);
  return scopes.filter((scope) => allowed.includes(KEY_SCOPE_FOR[scope]));
}

async function readPendingRequest(db: Db, requestId: string, now: Date) {
  if (!/^oar_[0-9a-z]{26}$/.test(requestId))
    throw new AppError("oauth_request_expired", { param: "request" });
  const [row] = await db
    .select({ request: oauthAuthorizationRequests, client: oauthClients })
    .from(oauthAuthorizationRequests)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthAuthorizationRequests.clientId))
    .where(and(eq(oauthAuthorizationRequests.id, requestId), gt(oauthAuthorizationRequests.expiresAt, now)))
    .limit(1);
  if (!row) throw new AppError("oauth_request_expired", { param: "request" });
  return row;
}

/** What the consent page shows: the app's name, the client id's host, the redirect host and the scopes. */
export async function getConsentRequest(
  ctx: ServiceContext,
  input: { requestId: string },
): Promise<ConsentRequestDto> {
  const actor = authorize(ctx, "reviewOAuthConsent");
  const { request, client } = await readPendingRequest(ctx.db, input.requestId, ctx.now());
  const scopes = normalizeScopes(request.scopes);
  const grantable = grantableScopes(scopes, actor.accountStatus);
  const [grant] = await ctx.db
    .select({ keyId: oauthGrants.keyId })
    .from(oauthGrants)
    .innerJoin(apiKeys, eq(apiKeys.id, oauthGrants.keyId))
    .where(
      and(
        eq(oauthGrants.accountId, actor.accountId),
        eq(oauthGrants.clientId, client.id),
        isNull(apiKeys.revokedAt),
      ),
    )
    .limit(1);
  const clientUri = typeof client.metadata.client_uri === "string" ? client.metadata.client_uri : null;
  return {
    requestId: request.id,
    clientId: client.id,
    clientName: request.clientName,
    clientHost: clientHost(client),
    clientKind: client.kind,
    clientUri,
    redirectUri: request.redirectUri,
    redirectHost: redirectHostOf(request.redirectUri),
    scopes,
    unavailableScopes: scopes.filter((scope) => !grantable.includes(scope)),
    isConnected: Boolean(grant),
    expiresAt: request.expiresAt.toISOString(),
  };
}

/**
 * The person's answer on the consent page (docs/mcp.md, "Consent"). Approve: the app's ONE per-user key (named
 * after the app, source `oauth`) is created, or updated to the scopes granted now, and a single-use code valid
 * 60 seconds is issued; deny: `access_denied`. Either way the request is used up, and the answer is where the
 * browser goes next (the client's redirect URI with `code` or `error`, `state` and `iss`).
 */
export async function decideConsent(
  ctx: ServiceContext,
  input: { requestId: string; approve: boolean },
): Promise<{ redirectTo: string }> {
  const actor = authorize(ctx, "decideOAuthConsent");
  const now = ctx.now();
  return inTransaction(ctx.db, async (db) => {
    const { request, client } = await readPendingRequest(db, input.requestId, now);
    const [taken] = await db
      .delete(oauthAuthorizationRequests)
      .where(eq(oauthAuthorizationRequests.id, request.id))
      .returning({ id: oauthAuthorizationRequests.id });
    if (!taken) throw new AppError("oauth_request_expired", { param: "request" });
    if (!input.approve)
      return {
        redirectTo: redirectWith(request.redirectUri, {
          error: "access_denied",
          error_description: "The person declined the request.",
          state: request.state,
        }),
      };
    const scopes = grantableScopes(normalizeScopes(request.scopes), actor.accountStatus);
    if (scopes.length === 0)
      return {
        redirectTo: redirectWith(request.redirectUri, {
          error: "invalid_scope",
          error_description: "None of the requested scopes can be granted to this account.",
          state: request.state,
        }),
      };
    const keyId = await connectApp(db, { accountId: actor.accountId, client, scopes }, now);
    const code = newSecret("code");
    await db.insert(oauthTokens).values({
      hash: hashOf(code),
      id: newId("tok"),
      kind: "code",
      familyId: newId("tok"),
      clientId: client.id,
      accountId: actor.accountId,
      keyId,
      scopes,
      resource: request.resource,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    });
    log("info", "oauth consent approved", { accountId: actor.accountId, clientId: client.id, scopes });
    return { redirectTo: redirectWith(request.redirectUri, { code, state: request.state }) };
  });
}

/**
 * Creates or updates the connected app's ONE per-user key (named after the app; key scopes from the granted
 * `marea.*` scopes). Serialized per account and client, so two approvals at once still make one key.
 */
async function connectApp(
  db: Db,
  input: { accountId: string; client: OAuthClientRow; scopes: McpScope[] },
  now: Date,
): Promise<string> {
  await db.execute(
    sql`select pg_advisory_xact_lock(hashtext(${`oauth:${input.accountId}:${input.client.id}`}))`,
  );
  const keyScopes = input.scopes.map((scope) => KEY_SCOPE_FOR[scope]);
  const name = input.client.name.slice(0, 100);
  // A client someone allowed is in use: the purge of unused clients leaves it alone. Written once, so consents
  // of many accounts to one popular client do not queue on its row.
  await db
    .update(oauthClients)
    .set({ grantedAt: now })
    .where(and(eq(oauthClients.id, input.client.id), isNull(oauthClients.grantedAt)));
  const [existing] = await db
    .select({ keyId: oauthGrants.keyId, revokedAt: apiKeys.revokedAt })
    .from(oauthGrants)
    .innerJoin(apiKeys, eq(apiKeys.id, oauthGrants.keyId))
    .where(and(eq(oauthGrants.accountId, input.accountId), eq(oauthGrants.clientId, input.client.id)))
    .limit(1);
  if (existing && existing.revokedAt === null) {
    await db.update(apiKeys).set({ name, scopes: keyScopes }).where(eq(apiKeys.id, existing.keyId));
    await db
      .update(oauthGrants)
      .set({ scopes: input.scopes, updatedAt: now })
      .where(and(eq(oauthGrants.accountId, input.accountId), eq(oauthGrants.clientId, input.client.id)));
    return existing.keyId;
  }
  const { row } = await issueKey(db, {
    accountId: input.accountId,
    kind: "user",
    name,
    scopes: keyScopes,
    source: "oauth",
    now,
  });
  await db
    .insert(oauthGrants)
    .values({
      accountId: input.accountId,
      clientId: input.client.id,
      keyId: row.id,
      scopes: input.scopes,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: [oauthGrants.accountId, oauthGrants.clientId],
      set: { keyId: row.id, scopes: input.scopes, createdAt: now, updatedAt: now },
    });
  return row.id;
}

// ---------------------------------------------------------------------------------------------------------------
// Token endpoint

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

// ---------------------------------------------------------------------------------------------------------------
// The resource server's side: what an access token stands for

export type AccessGrant = {
  tokenId: string;
  clientId: string;
  /** The SHA-256 of the per-user key the consent made: the request is counted in that key's bucket. */
  keyHash: string;
  scopes: McpScope[];
};

/**
 * The grant behind an access token presented at the MCP endpoint, or null: unknown, expired, revoked, issued for
 * another resource (audience), or its app disconnected (the per-user key revoked or deleted, the grant gone).
 */
export async function resolveAccessToken(db: Db, token: string, now: Date): Promise<AccessGrant | null> {
  if (!TOKEN_PATTERN.test(token) || !token.startsWith(PREFIX.access)) return null;
  const [row] = await db
    .select({
      tokenId: oauthTokens.id,
      clientId: oauthTokens.clientId,
      keyHash: apiKeys.hash,
      scopes: oauthTokens.scopes,
      resource: oauthTokens.resource,
    })
    .from(oauthTokens)
    .innerJoin(
      oauthGrants,
      and(
        eq(oauthGrants.accountId, oauthTokens.accountId),
        eq(oauthGrants.clientId, oauthTokens.clientId),
        eq(oauthGrants.keyId, oauthTokens.keyId),
      ),
    )
    .innerJoin(apiKeys, eq(apiKeys.id, oauthTokens.keyId))
    .where(
      and(
        eq(oauthTokens.hash, hashOf(token)),
        eq(oauthTokens.kind, "access"),
        isNull(oauthTokens.revokedAt),
        gt(oauthTokens.expiresAt, now),
        isNull(apiKeys.revokedAt),
      ),
    )
    .limit(1);
  if (!row || !isOurResource(row.resource)) return null;
  return {
    tokenId: row.tokenId,
    clientId: row.clientId,
    keyHash: row.keyHash,
    scopes: normalizeScopes(row.scopes),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Connected apps (the keys and account pages)

export type ConnectedAppDto = {
  clientId: string;
  clientName: string;
  clientHost: string | null;
  clientKind: "dynamic" | "metadata_document";
  /** The per-user key the consent made (its name is the app's). */
  keyId: string;
  keyPrefix: string;
  scopes: McpScope[];
  connectedAt: string;
  updatedAt: string;
};

/** The apps connected to the signed-in account: one per client whose per-user key is live. */
export async function listConnectedApps(ctx: ServiceContext): Promise<ConnectedAppDto[]> {
  const actor = authorize(ctx, "listConnectedApps");
  const rows = await ctx.db
    .select({ grant: oauthGrants, client: oauthClients, keyPrefix: apiKeys.prefix, keyName: apiKeys.name })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .innerJoin(apiKeys, eq(apiKeys.id, oauthGrants.keyId))
    .where(and(eq(oauthGrants.accountId, actor.accountId), isNull(apiKeys.revokedAt)))
    .orderBy(asc(oauthGrants.createdAt), asc(oauthGrants.clientId));
  return rows.map(({ grant, client, keyPrefix, keyName }) => ({
    clientId: client.id,
    clientName: keyName ?? client.name,
    clientHost: clientHost(client),
    clientKind: client.kind,
    keyId: grant.keyId,
    keyPrefix,
    scopes: normalizeScopes(grant.scopes),
    connectedAt: grant.createdAt.toISOString(),
    updatedAt: grant.updatedAt.toISOString(),
  }));
}

/**
 * Disconnects an app at once: its per-user key is revoked (the next MCP call answers 401), every token it holds
 * is revoked (the next refresh answers `invalid_grant`), and the grant is forgotten.
 */
export async function disconnectApp(
  ctx: ServiceContext,
  input: { clientId: string },
): Promise<{ clientId: string; disconnected: true }> {
  const actor = authorize(ctx, "disconnectApp");
  const now = ctx.now();
  return inTransaction(ctx.db, async (db) => {
    const [grant] = await db
      .delete(oauthGrants)
      .where(and(eq(oauthGrants.accountId, actor.accountId), eq(oauthGrants.clientId, input.clientId)))
      .returning();
    if (!grant) throw new AppError("connected_app_not_found", { param: "clientId" });
    await db
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.id, grant.keyId), isNull(apiKeys.revokedAt)));
    await db
      .update(oauthTokens)
      .set({ revokedAt: now })
      .where(
        and(
          eq(oauthTokens.accountId, actor.accountId),
          eq(oauthTokens.clientId, input.clientId),
          isNull(oauthTokens.revokedAt),
        ),
      );
    log("info", "oauth app disconnected", { accountId: actor.accountId, clientId: input.clientId });
    return { clientId: input.clientId, disconnected: true as const };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Housekeeping

/** A registered client no person allowed is dropped this long after its registration. */
export const UNUSED_CLIENT_TTL_MS = 30 * 86_400_000;
/** A metadata document's copy no grant relies on is dropped this long after it was last fetched. */
export const UNUSED_DOCUMENT_CLIENT_TTL_MS = 86_400_000;

/**
 * The hourly purge (docs/mcp.md, "Authorization server"): codes and tokens expired a day ago, stale
 * authorization requests, old rate-limit windows, the sealed answers of rotations whose reuse grace is over, and
 * clients nobody uses (docs/security.md, "OAuth"): a metadata document's copy with no grant a day after it was
 * fetched (it is fetched again when needed), a registered client nobody ever allowed 30 days after it
 * registered. A client some grant names is never dropped.
 */
export async function purgeExpiredOAuthData(
  db: Db,
  now: Date,
): Promise<{ tokens: number; requests: number; rateLimitWindows: number; replays: number; clients: number }> {
  const dayAgo = new Date(now.getTime() - 86_400_000);
  const tokens = await db
    .delete(oauthTokens)
    .where(lt(oauthTokens.expiresAt, dayAgo))
    .returning({ id: oauthTokens.id });
  const replays = await db
    .update(oauthTokens)
    .set({ replay: null })
    .where(
      and(
        isNotNull(oauthTokens.replay),
        lt(oauthTokens.usedAt, new Date(now.getTime() - REFRESH_REUSE_GRACE_MS)),
      ),
    )
    .returning({ id: oauthTokens.id });
  const requests = await db
    .delete(oauthAuthorizationRequests)
    .where(lt(oauthAuthorizationRequests.expiresAt, now))
    .returning({ id: oauthAuthorizationRequests.id });
  const windows = await db
    .delete(oauthRateLimits)
    .where(lt(oauthRateLimits.windowStart, Math.floor(dayAgo.getTime() / 1000)))
    .returning({ key: oauthRateLimits.key });
  const isUnused = and(
    notExists(db.select({ one: sql`1` }).from(oauthGrants).where(eq(oauthGrants.clientId, oauthClients.id))),
    notExists(
      db
        .select({ one: sql`1` })
        .from(oauthAuthorizationRequests)
        .where(eq(oauthAuthorizationRequests.clientId, oauthClients.id)),
    ),
  );
  const clients = await db
    .delete(oauthClients)
    .where(
      and(
        isUnused,
        or(
          and(
            eq(oauthClients.kind, "metadata_document"),
            lt(oauthClients.updatedAt, new Date(now.getTime() - UNUSED_DOCUMENT_CLIENT_TTL_MS)),
          ),
          and(
            eq(oauthClients.kind, "dynamic"),
            isNull(oauthClients.grantedAt),
            lt(oauthClients.createdAt, new Date(now.getTime() - UNUSED_CLIENT_TTL_MS)),
          ),
        ),
      ),
    )
    .returning({ id: oauthClients.id });
  return {
    tokens: tokens.length,
    requests: requests.length,
    rateLimitWindows: windows.length,
    replays: replays.length,
    clients: clients.length,
  };
}
