import { randomBytes } from "node:crypto";
import { and, eq, inArray, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { revokeKeyRow } from "@/server/accounts/keys";
import { createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { type AppError, ERROR_CATALOGUE } from "@/server/errors";
import { apiKeys } from "@/server/gate/tables";
import { currentTerms } from "@/server/gate/terms";
import { sha256Hex } from "@/server/lib/crypto";
import { UNKNOWN_CLIENT } from "@/server/sessions/client-ip";
import { acceptTermsForAccount } from "@/server/sessions/service";
import { createMerchant, type Merchant } from "@/server/storefronts/testing";
import { contextWith, serviceContextFor, sessionContextFor } from "@/server/testing/context";
import {
  AUTHORIZATION_REQUEST_LIMITS,
  CODE_TTL_MS,
  decideConsent,
  getConsentRequest,
  startAuthorization,
} from "./authorization";
import { REGISTRATION_LIMITS, redirectUriMatches, registerClient } from "./clients";
import { OAuthError } from "./errors";
import {
  disconnectApp,
  listConnectedApps,
  purgeExpiredOAuthData,
  resolveAccessToken,
  UNUSED_CLIENT_TTL_MS,
} from "./grants";
import { networkOf } from "./limits";
import { oauthAuthorizationRequests, oauthClients, oauthGrants, oauthTokens } from "./tables";
import {
  authorizeAndApprove,
  authorizeParams,
  connectTestApp,
  pkcePair,
  registerTestClient,
  requestIdOf,
  TEST_REDIRECT_URI,
  tokenForm,
  uniqueClientIp,
} from "./testing";
import { exchangeToken, REFRESH_REUSE_GRACE_MS, revokeToken } from "./tokens";
import { mcpUrl } from "./urls";

// docs/mcp.md, "Authorization server": the OAuth 2.1 flows and every refusal, called as the routes call them.

let merchant: Merchant;

beforeAll(async () => {
  merchant = await createMerchant({ verified: true, plan: "PRO" });
});

async function oauthFailure(work: Promise<unknown>): Promise<OAuthError> {
  const outcome = await work.then(
    () => null,
    (error: unknown) => error,
  );
  if (!(outcome instanceof OAuthError)) throw new Error(`expected an OAuthError, got ${String(outcome)}`);
  return outcome;
}

async function redeem(clientId: string, code: string, verifier: string, extra: Record<string, string> = {}) {
  return exchangeToken(
    await dbReady(),
    {
      form: tokenForm({
        grant_type: "authorization_code",
        client_id: clientId,
        code,
        code_verifier: verifier,
        redirect_uri: TEST_REDIRECT_URI,
        resource: mcpUrl(),
        ...extra,
      }),
      clientId: null,
    },
    new Date(),
  );
}

async function refresh(
  clientId: string,
  refreshToken: string,
  extra: Record<string, string> = {},
  now = new Date(),
) {
  return exchangeToken(
    await dbReady(),
    {
      form: tokenForm({
        grant_type: "refresh_token",
        client_id: clientId,
        refresh_token: refreshToken,
        ...extra,
      }),
      clientId: null,
    },
    now,
  );
}

describe("dynamic client registration (RFC 7591)", () => {
  it("registers a public client: https, loopback http and private-use scheme redirects", async () => {
    const client = await registerTestClient({
      client_name: "Cursor",
      redirect_uris: [
        "https://app.example.com/cb",
        "http://localhost:33418/callback",
        "cursor://anysphere.cursor-mcp/oauth/callback",
      ],
      token_endpoint_auth_method: "client_secret_post",
      application_type: "native",
    });
    expect(client.client_id).toMatch(/^oac_/);
    expect(client.token_endpoint_auth_method).toBe("none");
    expect(client).not.toHaveProperty("client_secret");
    expect(client.grant_types).toEqual(["authorization_code", "refresh_token"]);
    expect(client.application_type).toBe("native");
  });

  it.each([
    ["http to a public host", "http://app.example.com/cb"],
    ["javascript:", "javascript:alert(1)"],
    ["data:", "data:text/html,hi"],
    ["a fragment", "https://app.example.com/cb#x"],
    ["credentials", "https://user:pw@app.example.com/cb"],
    ["not a URI", "/relative/cb"],
  ])("refuses a redirect URI with %s", async (_, uri) => {
    const error = await oauthFailure(registerTestClient({ redirect_uris: [uri] }));
    expect(error.code).toBe("invalid_redirect_uri");
  });

  it("refuses grant types and response types it does not serve", async () => {
    expect((await oauthFailure(registerTestClient({ grant_types: ["client_credentials"] }))).code).toBe(
      "invalid_client_metadata",
    );
    expect((await oauthFailure(registerTestClient({ response_types: ["token"] }))).code).toBe(
      "invalid_client_metadata",
    );
  });

  it(`is rate limited: ${REGISTRATION_LIMITS.perIp} an hour per client IP, then 429 with Retry-After`, async () => {
    const db = await dbReady();
    const ip = uniqueClientIp();
    const metadata = { client_name: "Loop", redirect_uris: [TEST_REDIRECT_URI] };
    for (let i = 0; i < REGISTRATION_LIMITS.perIp; i++)
      await registerClient(db, { metadata, ip }, new Date());
    const error = await oauthFailure(registerClient(db, { metadata, ip }, new Date()));
    expect(error.code).toBe("temporarily_unavailable");
    expect(error.status).toBe(429);
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    // Another address is not affected.
    await expect(registerClient(db, { metadata, ip: uniqueClientIp() }, new Date())).resolves.toBeTruthy();
  });

  it("matches redirect URIs exactly, except the port of a loopback redirect (RFC 8252)", () => {
    const registered = ["http://127.0.0.1:8976/callback", "https://app.example.com/cb", "myapp:/cb"];
    expect(redirectUriMatches(registered, "http://127.0.0.1:50123/callback")).toBe(true);
    expect(redirectUriMatches(registered, "http://127.0.0.1/callback")).toBe(true);
    expect(redirectUriMatches(registered, "http://127.0.0.1:8976/other")).toBe(false);
    expect(redirectUriMatches(registered, "http://127.0.0.1:8976/callback?x=1")).toBe(false);
    expect(redirectUriMatches(registered, "http://localhost:8976/callback")).toBe(false);
    expect(redirectUriMatches(registered, "https://app.example.com:444/cb")).toBe(false);
    expect(redirectUriMatches(registered, "https://app.example.com/cb/")).toBe(false);
    expect(redirectUriMatches(registered, "myapp:/cb")).toBe(true);
  });
});

describe("the authorization endpoint", () => {
  it("a valid request waits for consent; the consent page sees the app, the hosts and the scopes", async () => {
    const client = await registerTestClient({ client_name: "Claude" });
    const { challenge } = pkcePair();
    const outcome = await startAuthorization(
      await dbReady(),
      { params: authorizeParams(client.client_id, challenge), ip: uniqueClientIp() },
      new Date(),
    );
    expect(outcome.kind).toBe("consent");
    if (outcome.kind !== "consent") return;
    expect(outcome.location).toMatch(/\/dashboard\/oauth\/consent\?request=oar_/);
    const consent = await getConsentRequest(await sessionContextFor(merchant.userId), {
      requestId: requestIdOf(outcome.location),
    });
    expect(consent).toMatchObject({
      clientName: "Claude",
      clientHost: null,
      clientKind: "dynamic",
      redirectHost: "127.0.0.1:8976",
      scopes: ["marea.read", "marea.write", "marea.publish"],
      unavailableScopes: [],
      isConnected: false,
    });
  });

  it("an unknown client or an unregistered redirect URI is shown to the person, never redirected", async () => {
    const client = await registerTestClient();
    const { challenge } = pkcePair();
    const db = await dbReady();
    for (const params of [
      authorizeParams("oac_unknown", challenge),
      authorizeParams(client.client_id, challenge, { redirect_uri: "http://127.0.0.1:8976/elsewhere" }),
      authorizeParams(client.client_id, challenge, { redirect_uri: "https://attacker.example/cb" }),
      authorizeParams(client.client_id, challenge, { redirect_uri: null }),
      authorizeParams(client.client_id, challenge, { client_id: null }),
    ]) {
      const outcome = await startAuthorization(db, { params: params, ip: uniqueClientIp() }, new Date());
      expect(outcome.kind, params.toString()).toBe("error_page");
    }
  });

  it("a loopback redirect on another port is accepted (RFC 8252 section 7.3)", async () => {
    const client = await registerTestClient();
    const { challenge } = pkcePair();
    const outcome = await startAuthorization(
      await dbReady(),
      {
        params: authorizeParams(client.client_id, challenge, {
          redirect_uri: "http://127.0.0.1:61234/callback",
        }),
        ip: uniqueClientIp(),
      },
      new Date(),
    );
    expect(outcome.kind).toBe("consent");
  });

  it.each([
    ["another resource", { resource: "https://other.example/mcp" }, "invalid_target"],
    ["an unknown scope", { scope: "marea.read admin" }, "invalid_scope"],
  ] as const)(
    "%s (a well-formed request): the error goes back to the redirect URI with state and iss",
    async (_, override, error) => {
      const client = await registerTestClient();
      const { challenge } = pkcePair();
      const outcome = await startAuthorization(
        await dbReady(),
        { params: authorizeParams(client.client_id, challenge, override), ip: uniqueClientIp() },
        new Date(),
      );
      expect(outcome.kind).toBe("redirect");
      if (outcome.kind !== "redirect") return;
      const url = new URL(outcome.location);
      expect(`${url.origin}${url.pathname}`).toBe(TEST_REDIRECT_URI);
      expect(url.searchParams.get("error")).toBe(error);
      expect(url.searchParams.get("state")).toBe("state-123");
      expect(url.searchParams.get("iss")).toBe("http://localhost:3000");
    },
  );

  it.each([
    ["PKCE missing", { code_challenge: null, code_challenge_method: null }, "invalid_request"],
    ["plain PKCE", { code_challenge_method: "plain" }, "invalid_request"],
    ["no challenge method (plain by default)", { code_challenge_method: null }, "invalid_request"],
    ["a malformed challenge", { code_challenge: "short" }, "invalid_request"],
    ["response_type token", { response_type: "token" }, "unsupported_response_type"],
    ["no response_type", { response_type: null }, "unsupported_response_type"],
  ] as const)(
    "L2: %s: not redirected to the client (no open redirect), shown on the error page",
    async (_, override, error) => {
      const client = await registerTestClient({ redirect_uris: ["https://evil.example/login"] });
      const { challenge } = pkcePair();
      const outcome = await startAuthorization(
        await dbReady(),
        {
          params: authorizeParams(client.client_id, challenge, {
            redirect_uri: "https://evil.example/login",
            ...override,
          }),
          ip: uniqueClientIp(),
        },
        new Date(),
      );
      expect(outcome.kind).toBe("error_page");
      if (outcome.kind !== "error_page") return;
      expect(outcome.error.code).toBe(error);
      expect(outcome.error.reason).toBe("oauth_request_malformed");
    },
  );

  it("L2: a repeated response_type, code_challenge or code_challenge_method is not redirected either", async () => {
    const client = await registerTestClient();
    const { challenge } = pkcePair();
    for (const [name, value] of [
      ["response_type", "code"],
      ["code_challenge", challenge],
      ["code_challenge_method", "S256"],
      ["client_id", "oac_other"],
    ]) {
      const params = authorizeParams(client.client_id, challenge);
      params.append(name ?? "", value ?? "");
      const outcome = await startAuthorization(await dbReady(), { params, ip: uniqueClientIp() }, new Date());
      expect(outcome.kind, name).toBe("error_page");
    }
  });

  it("a repeated parameter is refused", async () => {
    const client = await registerTestClient();
    const { challenge } = pkcePair();
    const params = authorizeParams(client.client_id, challenge);
    params.append("scope", "marea.read");
    const outcome = await startAuthorization(
      await dbReady(),
      { params: params, ip: uniqueClientIp() },
      new Date(),
    );
    expect(outcome.kind === "redirect" && new URL(outcome.location).searchParams.get("error")).toBe(
      "invalid_request",
    );
  });

  it("no scope asks for the three; offline_access is accepted and ignored", async () => {
    const client = await registerTestClient();
    const { challenge } = pkcePair();
    const db = await dbReady();
    for (const scope of [null, "offline_access marea.read"]) {
      const outcome = await startAuthorization(
        db,
        { params: authorizeParams(client.client_id, challenge, { scope }), ip: uniqueClientIp() },
        new Date(),
      );
      if (outcome.kind !== "consent") throw new Error("expected consent");
      const consent = await getConsentRequest(await sessionContextFor(merchant.userId), {
        requestId: requestIdOf(outcome.location),
      });
      expect(consent.scopes).toEqual(
        scope === null ? ["marea.read", "marea.write", "marea.publish"] : ["marea.read"],
      );
    }
  });
});

describe("consent", () => {
  it("approving creates ONE per-user key named after the app; approving again updates that key", async () => {
    const owner = await createMerchant({ verified: true });
    const client = await registerTestClient({ client_name: "Claude Desktop" });
    const first = await authorizeAndApprove({
      accountId: owner.userId,
      clientId: client.client_id,
      challenge: pkcePair().challenge,
      params: { scope: "marea.read" },
    });
    expect(first.searchParams.get("code")).toMatch(/^mcp_code_/);
    expect(first.searchParams.get("state")).toBe("state-123");
    expect(first.searchParams.get("iss")).toBe("http://localhost:3000");
    const db = await dbReady();
    const keysAfterFirst = await db.select().from(apiKeys).where(eq(apiKeys.source, "oauth"));
    const mine = keysAfterFirst.filter((key) => key.accountId === owner.userId);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      name: "Claude Desktop",
      kind: "user",
      scopes: ["catalog:read"],
      revokedAt: null,
    });

    await authorizeAndApprove({
      accountId: owner.userId,
      clientId: client.client_id,
      challenge: pkcePair().challenge,
      params: { scope: "marea.read marea.write marea.publish" },
    });
    const after = (await db.select().from(apiKeys).where(eq(apiKeys.accountId, owner.userId))).filter(
      (key) => key.source === "oauth",
    );
    expect(after).toHaveLength(1);
    expect(after[0]?.id).toBe(mine[0]?.id);
    expect(after[0]?.scopes).toEqual(["catalog:read", "catalog:write", "storefront:publish"]);
    const apps = await listConnectedApps(await sessionContextFor(owner.userId));
    expect(apps).toEqual([
      expect.objectContaining({
        clientId: client.client_id,
        clientName: "Claude Desktop",
        keyId: mine[0]?.id,
        scopes: ["marea.read", "marea.write", "marea.publish"],
      }),
    ]);
  });

  it("denying sends access_denied with state and iss, and makes no key", async () => {
    const owner = await createMerchant({ verified: true });
    const client = await registerTestClient();
    const redirect = await authorizeAndApprove({
      accountId: owner.userId,
      clientId: client.client_id,
      challenge: pkcePair().challenge,
      approve: false,
    });
    expect(redirect.searchParams.get("error")).toBe("access_denied");
    expect(redirect.searchParams.get("state")).toBe("state-123");
    expect(redirect.searchParams.get("iss")).toBe("http://localhost:3000");
    expect(await listConnectedApps(await sessionContextFor(owner.userId))).toEqual([]);
  });

  it("an authorization request is answered once, and not after 10 minutes", async () => {
    const client = await registerTestClient();
    const db = await dbReady();
    const outcome = await startAuthorization(
      db,
      { params: authorizeParams(client.client_id, pkcePair().challenge), ip: uniqueClientIp() },
      new Date(),
    );
    if (outcome.kind !== "consent") throw new Error("expected consent");
    const requestId = requestIdOf(outcome.location);
    const ctx = await sessionContextFor(merchant.userId);
    await decideConsent(ctx, { requestId, approve: true });
    await expect(decideConsent(ctx, { requestId, approve: true })).rejects.toMatchObject({
      code: "oauth_request_expired",
    });

    const later = await startAuthorization(
      db,
      { params: authorizeParams(client.client_id, pkcePair().challenge), ip: uniqueClientIp() },
      new Date(),
    );
    if (later.kind !== "consent") throw new Error("expected consent");
    const laterId = requestIdOf(later.location);
    const inElevenMinutes = await sessionContextFor(
      merchant.userId,
      () => new Date(Date.now() + 11 * 60_000),
    );
    await expect(decideConsent(inElevenMinutes, { requestId: laterId, approve: true })).rejects.toMatchObject(
      {
        code: "oauth_request_expired",
      },
    );
    const [kept] = await db
      .select()
      .from(oauthAuthorizationRequests)
      .where(eq(oauthAuthorizationRequests.id, laterId));
    expect(kept).toBeDefined();
  });

  it("only a dashboard session can review or approve consent, list or disconnect apps", async () => {
    const keyCtx = await serviceContextFor(merchant.userKey);
    for (const call of [
      getConsentRequest(keyCtx, { requestId: "oar_x" }),
      decideConsent(keyCtx, { requestId: "oar_x", approve: true }),
      listConnectedApps(keyCtx),
      disconnectApp(keyCtx, { clientId: "oac_x" }),
    ]) {
      await expect(call).rejects.toMatchObject({ code: "insufficient_scope" });
    }
    await expect(listConnectedApps(await contextWith(null))).rejects.toMatchObject({
      code: "missing_authorization",
    });
  });

  it("an unverified account cannot grant publishing: marea.publish is left out of the key", async () => {
    const unverified = await createMerchant();
    const client = await registerTestClient();
    const db = await dbReady();
    const outcome = await startAuthorization(
      db,
      { params: authorizeParams(client.client_id, pkcePair().challenge), ip: uniqueClientIp() },
      new Date(),
    );
    if (outcome.kind !== "consent") throw new Error("expected consent");
    const ctx = await sessionContextFor(unverified.userId);
    const consent = await getConsentRequest(ctx, { requestId: requestIdOf(outcome.location) });
    expect(consent.unavailableScopes).toEqual(["marea.publish"]);
    await decideConsent(ctx, { requestId: consent.requestId, approve: true });
    const [key] = (await db.select().from(apiKeys).where(eq(apiKeys.accountId, unverified.userId))).filter(
      (row) => row.source === "oauth",
    );
    expect(key?.scopes).toEqual(["catalog:read", "catalog:write"]);
  });
});

describe("the token endpoint", () => {
  async function freshCode(scope = "marea.read marea.write") {
    const client = await registerTestClient();
    const { verifier, challenge } = pkcePair();
    const redirect = await authorizeAndApprove({
      accountId: merchant.userId,
      clientId: client.client_id,
      challenge,
      params: { scope },
    });
    return { client, verifier, code: redirect.searchParams.get("code") ?? "" };
  }

  it("redeems a code for a 1-hour opaque access token bound to the MCP URL and a refresh token, stored hashed", async () => {
    const { client, verifier, code } = await freshCode();
    const tokens = await redeem(client.client_id, code, verifier);
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "marea.read marea.write" });
    expect(tokens.access_token).toMatch(/^mcp_at_[0-9A-Za-z]{43}$/);
    expect(tokens.refresh_token).toMatch(/^mcp_rt_[0-9A-Za-z]{43}$/);
    const db = await dbReady();
    const rows = await db.select().from(oauthTokens).where(eq(oauthTokens.clientId, client.client_id));
    for (const secret of [code, tokens.access_token, tokens.refresh_token]) {
      expect(rows.some((row) => row.hash === sha256Hex(secret))).toBe(true);
      expect(JSON.stringify(rows)).not.toContain(secret);
    }
    expect(rows.find((row) => row.kind === "access")?.resource).toBe(mcpUrl());
    const grant = await resolveAccessToken(db, tokens.access_token, new Date());
    expect(grant).toMatchObject({ clientId: client.client_id, scopes: ["marea.read", "marea.write"] });
    expect(await resolveAccessToken(db, tokens.access_token, new Date(Date.now() + 3601_000))).toBeNull();
  });

  it("a wrong verifier, a missing verifier, another redirect URI, another resource or another client are refused", async () => {
    const { client, verifier, code } = await freshCode();
    const other = await registerTestClient();
    expect((await oauthFailure(redeem(client.client_id, code, pkcePair().verifier))).code).toBe(
      "invalid_grant",
    );
    expect(
      (
        await oauthFailure(
          exchangeToken(
            await dbReady(),
            {
              form: tokenForm({
                grant_type: "authorization_code",
                client_id: client.client_id,
                code,
                redirect_uri: TEST_REDIRECT_URI,
              }),
              clientId: null,
            },
            new Date(),
          ),
        )
      ).code,
    ).toBe("invalid_request");
    expect(
      (
        await oauthFailure(
          redeem(client.client_id, code, verifier, { redirect_uri: "http://127.0.0.1:1/callback" }),
        )
      ).code,
    ).toBe("invalid_grant");
    expect(
      (
        await oauthFailure(
          redeem(client.client_id, code, verifier, { resource: "https://other.example/mcp" }),
        )
      ).code,
    ).toBe("invalid_target");
    expect((await oauthFailure(redeem(other.client_id, code, verifier))).code).toBe("invalid_grant");
    // None of those used the code up.
    await expect(redeem(client.client_id, code, verifier)).resolves.toMatchObject({ token_type: "Bearer" });
  });

  it("a replayed code is refused and revokes what it issued", async () => {
    const { client, verifier, code } = await freshCode();
    const tokens = await redeem(client.client_id, code, verifier);
    const db = await dbReady();
    expect(await resolveAccessToken(db, tokens.access_token, new Date())).not.toBeNull();
    const replay = await oauthFailure(redeem(client.client_id, code, verifier));
    expect(replay.code).toBe("invalid_grant");
    expect(await resolveAccessToken(db, tokens.access_token, new Date())).toBeNull();
    expect((await oauthFailure(refresh(client.client_id, tokens.refresh_token))).code).toBe("invalid_grant");
  });

  it(`a code lives ${CODE_TTL_MS / 1000} seconds`, async () => {
    const { client, verifier, code } = await freshCode();
    const late = await oauthFailure(
      exchangeToken(
        await dbReady(),
        {
          form: tokenForm({
            grant_type: "authorization_code",
            client_id: client.client_id,
            code,
            code_verifier: verifier,
            redirect_uri: TEST_REDIRECT_URI,
          }),
          clientId: null,
        },
        new Date(Date.now() + CODE_TTL_MS + 1000),
      ),
    );
    expect(late.code).toBe("invalid_grant");
  });

  it("refresh tokens rotate; a reused one is refused and revokes the whole family", async () => {
    const { client, tokens } = await connectTestApp(merchant.userId);
    const db = await dbReady();
    const second = await refresh(client.client_id, tokens.refresh_token);
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    expect(second.access_token).not.toBe(tokens.access_token);
    expect(await resolveAccessToken(db, second.access_token, new Date())).not.toBeNull();

    // Past the reuse grace (a retry within it is answered again, see below).
    const afterGrace = new Date(Date.now() + REFRESH_REUSE_GRACE_MS + 1000);
    const reuse = await oauthFailure(refresh(client.client_id, tokens.refresh_token, {}, afterGrace));
    expect(reuse.code).toBe("invalid_grant");
    expect(await resolveAccessToken(db, second.access_token, new Date())).toBeNull();
    expect(await resolveAccessToken(db, tokens.access_token, new Date())).toBeNull();
    expect((await oauthFailure(refresh(client.client_id, second.refresh_token))).code).toBe("invalid_grant");
  });

  it("a refresh may narrow the scopes, never widen them; resource must stay the MCP URL", async () => {
    const { client, tokens } = await connectTestApp(merchant.userId, "marea.read marea.write");
    const narrowed = await refresh(client.client_id, tokens.refresh_token, { scope: "marea.read" });
    expect(narrowed.scope).toBe("marea.read");
    expect(
      (await oauthFailure(refresh(client.client_id, narrowed.refresh_token, { scope: "marea.write" }))).code,
    ).toBe("invalid_scope");
    expect(
      (
        await oauthFailure(
          refresh(client.client_id, narrowed.refresh_token, { resource: "https://x.example/mcp" }),
        )
      ).code,
    ).toBe("invalid_target");
  });

  it("grant types other than authorization_code and refresh_token are refused", async () => {
    const client = await registerTestClient();
    const error = await oauthFailure(
      exchangeToken(
        await dbReady(),
        {
          form: tokenForm({ grant_type: "client_credentials", client_id: client.client_id }),
          clientId: null,
        },
        new Date(),
      ),
    );
    expect(error.code).toBe("unsupported_grant_type");
    const unknown = await oauthFailure(
      exchangeToken(
        await dbReady(),
        {
          form: tokenForm({ grant_type: "refresh_token", client_id: "oac_nobody", refresh_token: "x" }),
          clientId: null,
        },
        new Date(),
      ),
    );
    expect(unknown.code).toBe("invalid_client");
  });
});

describe("revocation (RFC 7009)", () => {
  it("revoking a refresh token revokes its family, access tokens included", async () => {
    const { client, tokens } = await connectTestApp(merchant.userId);
    const db = await dbReady();
    await revokeToken(
      db,
      { form: tokenForm({ token: tokens.refresh_token, client_id: client.client_id }), clientId: null },
      new Date(),
    );
    expect(await resolveAccessToken(db, tokens.access_token, new Date())).toBeNull();
    expect((await oauthFailure(refresh(client.client_id, tokens.refresh_token))).code).toBe("invalid_grant");
  });

  it("revoking an access token revokes that token only; unknown tokens answer success", async () => {
    const { client, tokens } = await connectTestApp(merchant.userId);
    const db = await dbReady();
    await revokeToken(
      db,
      { form: tokenForm({ token: tokens.access_token, client_id: client.client_id }), clientId: null },
      new Date(),
    );
    expect(await resolveAccessToken(db, tokens.access_token, new Date())).toBeNull();
    await expect(refresh(client.client_id, tokens.refresh_token)).resolves.toMatchObject({
      token_type: "Bearer",
    });
    await expect(
      revokeToken(
        db,
        { form: tokenForm({ token: "mcp_at_nothing", client_id: client.client_id }), clientId: null },
        new Date(),
      ),
    ).resolves.toBeUndefined();
  });

  it("another client cannot revoke a token", async () => {
    const { tokens } = await connectTestApp(merchant.userId);
    const other = await registerTestClient();
    const error = await oauthFailure(
      revokeToken(
        await dbReady(),
        { form: tokenForm({ token: tokens.access_token, client_id: other.client_id }), clientId: null },
        new Date(),
      ),
    );
    expect(error.code).toBe("unauthorized_client");
  });
});

describe("deleting the per-user key disconnects the app at once", () => {
  it("a revoked key: the access token stops working and the next refresh is invalid_grant", async () => {
    const owner = await createMerchant({ verified: true });
    const { client, tokens } = await connectTestApp(owner.userId);
    const db = await dbReady();
    const [app] = await listConnectedApps(await sessionContextFor(owner.userId));
    await revokeKeyRow(db, app?.keyId ?? "", "user", new Date());
    expect(await resolveAccessToken(db, tokens.access_token, new Date())).toBeNull();
    expect((await oauthFailure(refresh(client.client_id, tokens.refresh_token))).code).toBe("invalid_grant");
    expect(await listConnectedApps(await sessionContextFor(owner.userId))).toEqual([]);
    // Approving again makes a new key; the old tokens stay dead.
    const again = await connectTestApp(owner.userId);
    expect(await resolveAccessToken(db, again.tokens.access_token, new Date())).not.toBeNull();
    expect(await resolveAccessToken(db, tokens.access_token, new Date())).toBeNull();
  });

  it("a key row deleted outright takes the grant and its tokens with it", async () => {
    const owner = await createMerchant({ verified: true });
    const { client, tokens } = await connectTestApp(owner.userId);
    const db = await dbReady();
    const [app] = await listConnectedApps(await sessionContextFor(owner.userId));
    await db.delete(apiKeys).where(eq(apiKeys.id, app?.keyId ?? ""));
    expect(await resolveAccessToken(db, tokens.access_token, new Date())).toBeNull();
    expect((await oauthFailure(refresh(client.client_id, tokens.refresh_token))).code).toBe("invalid_grant");
  });

  it("disconnectApp revokes the key and every token; an unknown app is connected_app_not_found", async () => {
    const owner = await createMerchant({ verified: true });
    const { client, tokens } = await connectTestApp(owner.userId);
    const ctx = await sessionContextFor(owner.userId);
    const [app] = await listConnectedApps(ctx);
    await expect(disconnectApp(ctx, { clientId: client.client_id })).resolves.toEqual({
      clientId: client.client_id,
      disconnected: true,
    });
    const db = await dbReady();
    const [key] = await db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.id, app?.keyId ?? ""));
    expect(key?.revokedAt).not.toBeNull();
    expect(await resolveAccessToken(db, tokens.access_token, new Date())).toBeNull();
    expect((await oauthFailure(refresh(client.client_id, tokens.refresh_token))).code).toBe("invalid_grant");
    const missing = await disconnectApp(ctx, { clientId: client.client_id }).catch(
      (error: AppError) => error,
    );
    expect((missing as AppError).code).toBe("connected_app_not_found");
    expect(ERROR_CATALOGUE.connected_app_not_found.status).toBe(404);
  });

  it("another account cannot disconnect someone else's app", async () => {
    const owner = await createMerchant({ verified: true });
    const { client } = await connectTestApp(owner.userId);
    const stranger = await createMerchant({ verified: true });
    await expect(
      disconnectApp(await sessionContextFor(stranger.userId), { clientId: client.client_id }),
    ).rejects.toMatchObject({ code: "connected_app_not_found" });
    expect(await listConnectedApps(await sessionContextFor(owner.userId))).toHaveLength(1);
  });
});

describe("a developer key's account can connect apps too, for its user scopes only", () => {
  it("the per-user key never carries developer scopes", async () => {
    const developer = await createDeveloper();
    // The dashboard asks for the current terms before any page (consent included).
    await acceptTermsForAccount(
      await dbReady(),
      { accountId: developer.accountId, version: currentTerms().version },
      new Date(),
    );
    const { tokens } = await connectTestApp(developer.accountId);
    const grant = await resolveAccessToken(await dbReady(), tokens.access_token, new Date());
    expect(grant?.scopes).toEqual(["marea.read", "marea.write", "marea.publish"]);
    const [key] = (
      await (await dbReady()).select().from(apiKeys).where(eq(apiKeys.accountId, developer.accountId))
    ).filter((row) => row.source === "oauth");
    expect(key?.scopes.some((scope) => scope.startsWith("developer:"))).toBe(false);
  });
});

describe("L5: registration is shaped per address and per network, not by one ceiling anyone can spend", () => {
  it(`L5: ${REGISTRATION_LIMITS.perNetwork} an hour per IPv4 /24: more addresses in one network do not buy more`, async () => {
    const db = await dbReady();
    const metadata = { client_name: "Net", redirect_uris: [TEST_REDIRECT_URI] };
    const prefix = `172.${20 + ((randomBytes(1)[0] ?? 0) % 10)}.${randomBytes(1)[0]}`;
    const perAddress = REGISTRATION_LIMITS.perIp;
    const addresses = Math.ceil(REGISTRATION_LIMITS.perNetwork / perAddress);
    let made = 0;
    for (let host = 1; host <= addresses; host++)
      for (let i = 0; i < perAddress && made < REGISTRATION_LIMITS.perNetwork; i++, made++)
        await registerClient(db, { metadata, ip: `${prefix}.${host}` }, new Date());
    const error = await oauthFailure(registerClient(db, { metadata, ip: `${prefix}.250` }, new Date()));
    expect(error.code).toBe("temporarily_unavailable");
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    // Another network is not affected.
    await expect(registerClient(db, { metadata, ip: uniqueClientIp() }, new Date())).resolves.toBeTruthy();
  });

  it("L5: IPv6 counts per /48, whatever /64 inside it the client rotates through", async () => {
    expect(networkOf("2001:db8:abcd:12::/64")).toBe("2001:db8:abcd::/48");
    expect(networkOf("2001:db8:abcd:ffff::/64")).toBe("2001:db8:abcd::/48");
    expect(networkOf("2001:0db8:00ab::1")).toBe("2001:db8:ab::/48");
    expect(networkOf("198.51.100.7")).toBe("198.51.100.0/24");
    const db = await dbReady();
    const metadata = { client_name: "Net6", redirect_uris: [TEST_REDIRECT_URI] };
    const site = `2001:db8:${randomBytes(2).toString("hex")}`;
    for (let i = 0; i < REGISTRATION_LIMITS.perNetwork; i++)
      await registerClient(db, { metadata, ip: `${site}:${i.toString(16)}::/64` }, new Date());
    const error = await oauthFailure(registerClient(db, { metadata, ip: `${site}:ffff::/64` }, new Date()));
    expect(error.code).toBe("temporarily_unavailable");
  });

  it("L5: a client without a known address is counted (one shared bucket), never let through uncounted", async () => {
    const db = await dbReady();
    const metadata = { client_name: "Nobody", redirect_uris: [TEST_REDIRECT_URI] };
    for (let i = 0; i < REGISTRATION_LIMITS.perIp; i++)
      await registerClient(db, { metadata, ip: UNKNOWN_CLIENT }, new Date());
    expect((await oauthFailure(registerClient(db, { metadata, ip: UNKNOWN_CLIENT }, new Date()))).code).toBe(
      "temporarily_unavailable",
    );
  });

  it("L5: the service-wide ceiling is a backstop far above what one network may spend", () => {
    expect(REGISTRATION_LIMITS.global).toBeGreaterThanOrEqual(100 * REGISTRATION_LIMITS.perNetwork);
  });
});

describe("S5: unauthenticated rows are bounded", () => {
  it(`S5: authorization requests: ${AUTHORIZATION_REQUEST_LIMITS.perIp} per 10 minutes per address, then the error page (no row)`, async () => {
    const client = await registerTestClient();
    const db = await dbReady();
    const ip = uniqueClientIp();
    const authorize = (from: string) =>
      startAuthorization(
        db,
        { params: authorizeParams(client.client_id, pkcePair().challenge), ip: from },
        new Date(),
      );
    for (let i = 0; i < AUTHORIZATION_REQUEST_LIMITS.perIp; i++)
      expect((await authorize(ip)).kind).toBe("consent");
    const before = await db
      .select({ id: oauthAuthorizationRequests.id })
      .from(oauthAuthorizationRequests)
      .where(eq(oauthAuthorizationRequests.clientId, client.client_id));
    const refused = await authorize(ip);
    expect(refused.kind).toBe("error_page");
    if (refused.kind !== "error_page") return;
    expect(refused.error.code).toBe("temporarily_unavailable");
    expect(refused.error.reason).toBe("oauth_rate_limited");
    const after = await db
      .select({ id: oauthAuthorizationRequests.id })
      .from(oauthAuthorizationRequests)
      .where(eq(oauthAuthorizationRequests.clientId, client.client_id));
    expect(after).toHaveLength(before.length);
    expect((await authorize(uniqueClientIp())).kind).toBe("consent");
  });

  it("S5: the purge drops clients nobody uses, never one a grant names", async () => {
    const db = await dbReady();
    const now = new Date();
    const abandoned = await registerTestClient({ client_name: "Abandoned" });
    const recent = await registerTestClient({ client_name: "Recent" });
    const { client: connected } = await connectTestApp(merchant.userId);
    const disconnectedOwner = await createMerchant({ verified: true });
    const { client: disconnected } = await connectTestApp(disconnectedOwner.userId);
    await disconnectApp(await sessionContextFor(disconnectedOwner.userId), {
      clientId: disconnected.client_id,
    });
    const documentUrl = `https://docs-${randomBytes(4).toString("hex")}.example/client.json`;
    const usedDocumentUrl = `https://docs-${randomBytes(4).toString("hex")}.example/used.json`;
    for (const id of [documentUrl, usedDocumentUrl])
      await db.insert(oauthClients).values({
        id,
        kind: "metadata_document",
        name: "Doc",
        redirectUris: [TEST_REDIRECT_URI],
        metadata: {},
        createdAt: now,
        updatedAt: now,
        documentExpiresAt: now,
      });
    const documentOwner = await createMerchant({ verified: true });
    const [usedDocumentKey] = await db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(eq(apiKeys.accountId, documentOwner.userId))
      .limit(1);
    await db.insert(oauthGrants).values({
      accountId: documentOwner.userId,
      clientId: usedDocumentUrl,
      keyId: usedDocumentKey?.id ?? "",
      scopes: ["marea.read"],
      createdAt: now,
      updatedAt: now,
    });
    const longAgo = new Date(now.getTime() - UNUSED_CLIENT_TTL_MS - 60_000);
    await db
      .update(oauthClients)
      .set({ createdAt: longAgo, updatedAt: longAgo })
      .where(
        inArray(oauthClients.id, [
          abandoned.client_id,
          connected.client_id,
          disconnected.client_id,
          documentUrl,
          usedDocumentUrl,
        ]),
      );

    const purged = await purgeExpiredOAuthData(db, now);
    expect(purged.clients).toBeGreaterThanOrEqual(2);
    const left = new Set(
      (
        await db
          .select({ id: oauthClients.id })
          .from(oauthClients)
          .where(
            inArray(oauthClients.id, [
              abandoned.client_id,
              recent.client_id,
              connected.client_id,
              disconnected.client_id,
              documentUrl,
              usedDocumentUrl,
            ]),
          )
      ).map((row) => row.id),
    );
    expect(left.has(abandoned.client_id)).toBe(false);
    expect(left.has(documentUrl)).toBe(false);
    expect(left.has(recent.client_id)).toBe(true);
    expect(left.has(connected.client_id)).toBe(true);
    // Allowed once: a person may connect it again from the same app.
    expect(left.has(disconnected.client_id)).toBe(true);
    expect(left.has(usedDocumentUrl)).toBe(true);
    expect(await listConnectedApps(await sessionContextFor(merchant.userId))).toContainEqual(
      expect.objectContaining({ clientId: connected.client_id }),
    );
  });
});

describe("refresh-token reuse grace (RFC 9700 section 4.14.2)", () => {
  it(`a retry within ${REFRESH_REUSE_GRACE_MS / 1000} s by the same client gets the SAME pair, which works`, async () => {
    const { client, tokens } = await connectTestApp(merchant.userId);
    const db = await dbReady();
    const first = await refresh(client.client_id, tokens.refresh_token);
    const retry = await refresh(
      client.client_id,
      tokens.refresh_token,
      {},
      new Date(Date.now() + REFRESH_REUSE_GRACE_MS - 2000),
    );
    expect(retry).toEqual(first);
    expect(await resolveAccessToken(db, first.access_token, new Date())).not.toBeNull();
    // The family is intact: the new refresh token rotates as usual.
    const next = await refresh(client.client_id, first.refresh_token);
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect(await resolveAccessToken(db, next.access_token, new Date())).not.toBeNull();
  });

  it("the answer kept for the grace is encrypted, bound to its row, and cleared by the purge after the grace", async () => {
    const { client, tokens } = await connectTestApp(merchant.userId);
    const db = await dbReady();
    const first = await refresh(client.client_id, tokens.refresh_token);
    const [row] = await db
      .select()
      .from(oauthTokens)
      .where(eq(oauthTokens.hash, sha256Hex(tokens.refresh_token)));
    expect(row?.replay).toMatch(/^v1:/);
    for (const secret of [first.access_token, first.refresh_token, tokens.refresh_token])
      expect(JSON.stringify(row)).not.toContain(secret);
    const purged = await purgeExpiredOAuthData(db, new Date(Date.now() + REFRESH_REUSE_GRACE_MS + 1000));
    expect(purged.replays).toBeGreaterThanOrEqual(1);
    const [after] = await db
      .select({ replay: oauthTokens.replay })
      .from(oauthTokens)
      .where(eq(oauthTokens.hash, sha256Hex(tokens.refresh_token)));
    expect(after?.replay).toBeNull();
  });

  it("after the grace, a reuse revokes the family as before", async () => {
    const { client, tokens } = await connectTestApp(merchant.userId);
    const db = await dbReady();
    const first = await refresh(client.client_id, tokens.refresh_token);
    const late = await oauthFailure(
      refresh(
        client.client_id,
        tokens.refresh_token,
        {},
        new Date(Date.now() + REFRESH_REUSE_GRACE_MS + 1000),
      ),
    );
    expect(late.code).toBe("invalid_grant");
    expect(await resolveAccessToken(db, first.access_token, new Date())).toBeNull();
    expect((await oauthFailure(refresh(client.client_id, first.refresh_token))).code).toBe("invalid_grant");
  });

  it("within the grace, a reuse after the new refresh token was used, or asking other scopes, revokes the family", async () => {
    const db = await dbReady();
    const a = await connectTestApp(merchant.userId);
    const firstA = await refresh(a.client.client_id, a.tokens.refresh_token);
    const secondA = await refresh(a.client.client_id, firstA.refresh_token);
    expect((await oauthFailure(refresh(a.client.client_id, a.tokens.refresh_token))).code).toBe(
      "invalid_grant",
    );
    expect(await resolveAccessToken(db, secondA.access_token, new Date())).toBeNull();

    const b = await connectTestApp(merchant.userId);
    const firstB = await refresh(b.client.client_id, b.tokens.refresh_token);
    expect(
      (await oauthFailure(refresh(b.client.client_id, b.tokens.refresh_token, { scope: "marea.read" }))).code,
    ).toBe("invalid_grant");
    expect(await resolveAccessToken(db, firstB.access_token, new Date())).toBeNull();
  });

  it("another client presenting the token within the grace gets nothing", async () => {
    const { client, tokens } = await connectTestApp(merchant.userId);
    const other = await registerTestClient();
    const first = await refresh(client.client_id, tokens.refresh_token);
    expect((await oauthFailure(refresh(other.client_id, tokens.refresh_token))).code).toBe("invalid_grant");
    await expect(refresh(client.client_id, tokens.refresh_token)).resolves.toEqual(first);
  });

  it("a disconnected app's retry within the grace is refused", async () => {
    const owner = await createMerchant({ verified: true });
    const { client, tokens } = await connectTestApp(owner.userId);
    await refresh(client.client_id, tokens.refresh_token);
    await disconnectApp(await sessionContextFor(owner.userId), { clientId: client.client_id });
    expect((await oauthFailure(refresh(client.client_id, tokens.refresh_token))).code).toBe("invalid_grant");
  });

  it("two simultaneous refreshes with one token both get the same pair, and the family lives on", async () => {
    const { client, tokens } = await connectTestApp(merchant.userId);
    const db = await dbReady();
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => refresh(client.client_id, tokens.refresh_token)),
    );
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(await resolveAccessToken(db, answers[0]?.access_token ?? "", new Date())).not.toBeNull();
    const live = await db
      .select({ hash: oauthTokens.hash })
      .from(oauthTokens)
      .where(
        and(
          eq(oauthTokens.clientId, client.client_id),
          eq(oauthTokens.kind, "refresh"),
          isNull(oauthTokens.usedAt),
          isNull(oauthTokens.revokedAt),
        ),
      );
    expect(live).toHaveLength(1);
  });
});
