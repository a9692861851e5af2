import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { issueKey } from "@/server/accounts/keys";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import {
  KEY_SCOPE_FOR,
  type McpScope,
  normalizeScopes,
  parseScopeParameter,
} from "@/server/gate/oauth-scopes";
import { userScopesFor } from "@/server/gate/scopes";
import { apiKeys } from "@/server/gate/tables";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/log";
import { clientHost, type OAuthClientRow, redirectUriMatches, resolveClient } from "./clients";
import type { ConsentRequestDto } from "./dto";
import { type AuthorizePageReason, OAuthError } from "./errors";
import { consumeLimit, type WindowedLimit } from "./limits";
import { authorize } from "./operations";
import { oauthAuthorizationRequests, oauthClients, oauthGrants, oauthTokens } from "./tables";
import { hashOf, isOurResource, newSecret } from "./tokens";
import { consentPageUrl, issuer, mcpUrl } from "./urls";

/**
 * The authorization endpoint and consent of Marea's OAuth 2.1 authorization server for MCP clients (docs/mcp.md,
 * "Authorization server"): a request is checked and kept, a signed-in dashboard session approves or denies it, and
 * an approval connects the app (its per-user key) and answers a single-use 60-second code. Tokens: tokens.ts.
 */

export const AUTHORIZATION_REQUEST_TTL_MS = 10 * 60_000;
export const CODE_TTL_MS = 60_000;
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const STATE_MAX = 2000;

/** Where the browser goes with the answer: the client's redirect URI plus the parameters and `iss` (RFC 9207). */
function redirectWith(redirectUri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value != null) url.searchParams.set(name, value);
  url.searchParams.set("iss", issuer());
  return url.toString();
}

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
