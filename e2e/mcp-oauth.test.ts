import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { auth, Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { revokeKeyRow } from "@/server/accounts/keys";
import { createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { apiKeys } from "@/server/gate/tables";
import { TestOAuthProvider } from "@/server/mcp/testing";
import { REFRESH_REUSE_GRACE_MS } from "@/server/oauth/tokens";
import { createSession } from "@/server/sessions/service";
import { createMerchant, createTestStorefront, type Merchant } from "@/server/storefronts/testing";
import { type NextServer, startNextServer } from "./fixtures";

// docs/mcp.md: the whole MCP + OAuth 2.1 flow against the production start (`npm start`) on PostgreSQL, driven by the official MCP client
// SDK, with the consent given the way a browser gives it (a signed-in session cookie and the consent form's POST).
// Revisions: 2025-06-18 (401 -> RFC 9728 discovery -> dynamic registration), 2025-11-25 (a client ID metadata
// document served over https from a local test host; scope step-up), 2026-07-28 (application_type at registration,
// `iss` checked, stateless requests).

const REDIRECT = "http://127.0.0.1:8976/callback";
let server: NextServer;
let base: string;
let mcp: string;
let merchant: Merchant;
let sessionCookie: string;
let storefrontId: string;
let tls: { server: Server; dir: string; base: string };

// PostgreSQL only: the test writes accounts and sessions into the database the server reads (an embedded PGlite
// database belongs to one process).
describe.runIf(inject("testDb") === "postgres")("MCP and OAuth against the production start", () => {
  /** A throwaway CA-less certificate for 127.0.0.1, trusted by the app through NODE_EXTRA_CA_CERTS. */
  function makeCertificate(dir: string): { key: string; cert: string } {
    const key = path.join(dir, "key.pem");
    const cert = path.join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
        "-keyout",
        key,
        "-out",
        cert,
      ],
      { stdio: "ignore" },
    );
    return { key, cert };
  }

  let documentBody: (clientId: string) => Record<string, unknown> = () => ({});
  /** The last consent page the "browser" saw. */
  let lastConsentHtml = "";

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "marea-cimd-"));
    const files = makeCertificate(dir);
    const httpsServer = createServer(
      { key: readFileSync(files.key), cert: readFileSync(files.cert) },
      (request, response) => {
        if (request.url !== "/oauth/client.json") {
          response.writeHead(404).end();
          return;
        }
        response.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=60" });
        response.end(JSON.stringify(documentBody(`${tls.base}/oauth/client.json`)));
      },
    );
    await new Promise<void>((resolve) => httpsServer.listen(0, "127.0.0.1", resolve));
    tls = {
      server: httpsServer,
      dir,
      base: `https://127.0.0.1:${(httpsServer.address() as AddressInfo).port}`,
    };

    server = await startNextServer({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1", NODE_EXTRA_CA_CERTS: files.cert });
    base = server.baseUrl;
    mcp = `${base}/mcp`;
    merchant = await createMerchant({ verified: true, plan: "PRO" });
    const session = await createSession(await dbReady(), merchant.userId, new Date());
    sessionCookie = `marea_session=${session.token}`;
    storefrontId = (await createTestStorefront(merchant.userKey)).id;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    tls?.server.closeAllConnections();
    await new Promise((resolve) => tls?.server.close(resolve));
    if (tls) rmSync(tls.dir, { recursive: true, force: true });
  });

  /**
   * The browser's part: open the authorization URL, land on the consent page signed in, and submit the form.
   * Returns the client's redirect (with `code` or `error`, `state` and `iss`).
   */
  async function consent(
    authorizationUrl: URL | string,
    decision: "approve" | "deny" = "approve",
  ): Promise<URL> {
    const authorize = await fetch(authorizationUrl, { redirect: "manual" });
    expect(authorize.status).toBe(302);
    const consentUrl = authorize.headers.get("location") ?? "";
    expect(consentUrl).toMatch(/\/dashboard\/oauth\/consent\?request=oar_/);
    const page = await fetch(consentUrl, { headers: { cookie: sessionCookie }, redirect: "manual" });
    expect(page.status).toBe(200);
    // Two policies, both enforced (a combined header separates them with commas): next.config.ts's framing rule,
    // and the page policy every page gets (docs/security.md, "Headers"), without form-action here.
    const policies = (page.headers.get("content-security-policy") ?? "").split(",").map((p) => p.trim());
    expect(policies).toContain("frame-ancestors 'none'");
    const pagePolicy = policies.find((policy) => policy.includes("'nonce-"));
    expect(pagePolicy).toContain("frame-ancestors 'none'");
    expect(pagePolicy).not.toContain("form-action");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const html = await page.text();
    lastConsentHtml = html;
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? "";
    const submitted = await fetch(`${base}/oauth/consent`, {
      method: "POST",
      redirect: "manual",
      headers: {
        cookie: sessionCookie,
        origin: base,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ request: field("request"), csrf: field("csrf"), decision }).toString(),
    });
    expect(submitted.status).toBe(303);
    return new URL(submitted.headers.get("location") ?? "");
  }

  function transport(provider: TestOAuthProvider) {
    return new StreamableHTTPClientTransport(new URL(mcp), { authProvider: provider });
  }

  /** 401 -> discovery -> registration (or metadata document) -> consent -> token: a connected SDK client. */
  async function connectWithOAuth(provider: TestOAuthProvider, adjust?: (url: URL) => void): Promise<Client> {
    const first = transport(provider);
    await expect(new Client({ name: "e2e", version: "1" }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const url = new URL(provider.authorizationUrl ?? "");
    adjust?.(url);
    const callback = await consent(url);
    expect(callback.searchParams.get("iss")).toBe(base);
    await first.finishAuth(callback.searchParams);
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(transport(provider));
    return client;
  }

  async function rawMcp(bearer: string, body: unknown, headers: Record<string, string> = {}) {
    return fetch(mcp, {
      method: "POST",
      headers: {
        authorization: `Bearer ${bearer}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(body),
    });
  }

  async function tokenRequest(values: Record<string, string>) {
    return fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(values).toString(),
    });
  }

  describe("MCP 2025-06-18: discovery through the 401 challenge, then dynamic client registration", () => {
    it("the 401 names the metadata, and the documents are served by the built app", async () => {
      const res = await rawMcp("", { jsonrpc: "2.0", id: 1, method: "tools/list" }, { authorization: "" });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe(
        `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="marea.read marea.write marea.publish"`,
      );
      const prm = (await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json()) as {
        resource: string;
      };
      expect(prm.resource).toBe(mcp);
      const root = (await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json()) as {
        resource: string;
      };
      expect(root.resource).toBe(mcp);
      const as = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as {
        issuer: string;
      };
      expect(as.issuer).toBe(base);
    });

    it("register -> authorize -> consent -> token -> tools/list and tools/call -> refresh -> revoke", {
      timeout: 60_000,
    }, async () => {
      const provider = new TestOAuthProvider({ redirectUrl: REDIRECT, clientName: "E2E Claude" });
      const client = await connectWithOAuth(provider);
      expect(provider.clientInformation()?.client_id).toMatch(/^oac_/);
      expect(lastConsentHtml).toContain("Allow E2E Claude to use your Marea account?");
      expect(lastConsentHtml).toMatch(/data-testid="consent-redirect-host">127\.0\.0\.1:8976</);

      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).not.toContain("marea.bootstrap_user");
      expect(tools).toHaveLength(17);
      const result = await client.callTool({ name: "marea.get_storefront", arguments: { storefrontId } });
      const rest = await fetch(`${base}/v1/storefronts/${storefrontId}`, {
        headers: { authorization: `Bearer ${merchant.userKey}` },
      });
      expect(result.structuredContent).toEqual(((await rest.json()) as { storefront: unknown }).storefront);

      // The consent made ONE per-user key named after the app.
      const keys = (
        await (await dbReady()).select().from(apiKeys).where(eq(apiKeys.accountId, merchant.userId))
      ).filter((key) => key.source === "oauth" && key.name === "E2E Claude");
      expect(keys).toHaveLength(1);

      // An expired access token: the SDK refreshes (rotation) and carries on.
      const before = provider.tokens();
      provider.saveTokens({
        ...(before as NonNullable<typeof before>),
        access_token: `mcp_at_${"0".repeat(43)}`,
      });
      const refreshed = new Client({ name: "e2e", version: "1" });
      await refreshed.connect(transport(provider));
      expect(provider.tokens()?.refresh_token).not.toBe(before?.refresh_token);
      expect((await refreshed.listTools()).tools).toHaveLength(17);

      // The old refresh token again once the reuse grace is over: reuse detected, the grant is revoked.
      await new Promise((resolve) => setTimeout(resolve, REFRESH_REUSE_GRACE_MS + 1000));
      const reuse = await tokenRequest({
        grant_type: "refresh_token",
        client_id: provider.clientInformation()?.client_id ?? "",
        refresh_token: before?.refresh_token ?? "",
      });
      expect(reuse.status).toBe(400);
      expect(await reuse.json()).toMatchObject({ error: "invalid_grant" });
      const revokedByReuse = await rawMcp(provider.tokens()?.access_token ?? "", {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/list",
      });
      expect(revokedByReuse.status).toBe(401);
      await client.close();
      await refreshed.close();

      // A fresh authorization, then RFC 7009 revocation of its refresh token.
      const again = new TestOAuthProvider({ redirectUrl: REDIRECT, clientName: "E2E Claude" });
      const second = await connectWithOAuth(again);
      const revoke = await fetch(`${base}/oauth/revoke`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          client_id: again.clientInformation()?.client_id ?? "",
          token: again.tokens()?.refresh_token ?? "",
        }).toString(),
      });
      expect(revoke.status).toBe(200);
      expect(
        (await rawMcp(again.tokens()?.access_token ?? "", { jsonrpc: "2.0", id: 3, method: "tools/list" }))
          .status,
      ).toBe(401);
      await second.close();
    });

    it("deleting the per-user key disconnects the app at once: next call 401, next refresh invalid_grant", async () => {
      const owner = await createMerchant({ verified: true, plan: "PRO" });
      const session = await createSession(await dbReady(), owner.userId, new Date());
      const ownerCookie = `marea_session=${session.token}`;
      const saved = sessionCookie;
      sessionCookie = ownerCookie;
      try {
        const provider = new TestOAuthProvider({ redirectUrl: REDIRECT, clientName: "Disconnect Me" });
        const client = await connectWithOAuth(provider);
        const [key] = (
          await (await dbReady()).select().from(apiKeys).where(eq(apiKeys.accountId, owner.userId))
        ).filter((row) => row.source === "oauth");
        await revokeKeyRow(await dbReady(), key?.id ?? "", "user", new Date());
        const call = await rawMcp(provider.tokens()?.access_token ?? "", {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/list",
        });
        expect(call.status).toBe(401);
        const refresh = await tokenRequest({
          grant_type: "refresh_token",
          client_id: provider.clientInformation()?.client_id ?? "",
          refresh_token: provider.tokens()?.refresh_token ?? "",
        });
        expect(await refresh.json()).toMatchObject({ error: "invalid_grant" });
        await client.close();
      } finally {
        sessionCookie = saved;
      }
    });
  });

  describe("MCP 2025-11-25: a client ID metadata document from a local https host, and scope step-up", () => {
    it("the document's URL is the client id; consent shows its host; a missing scope is asked for again", async () => {
      documentBody = (clientId) => ({
        client_id: clientId,
        client_name: "E2E Metadata Client",
        redirect_uris: [REDIRECT],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      });
      const provider = new TestOAuthProvider({
        redirectUrl: REDIRECT,
        clientMetadataUrl: `${tls.base}/oauth/client.json`,
      });
      // The person grants read only (the browser trims the scope), so publishing needs a step-up.
      const client = await connectWithOAuth(provider, (url) => url.searchParams.set("scope", "marea.read"));
      expect(provider.clientInformation()?.client_id).toBe(`${tls.base}/oauth/client.json`);
      expect(lastConsentHtml).toMatch(
        new RegExp(`data-testid="consent-client-host">${new URL(tls.base).host}<`),
      );
      expect(lastConsentHtml).toContain("E2E Metadata Client");
      expect(provider.tokens()?.scope).toBe("marea.read");
      expect((await client.callTool({ name: "marea.list_storefronts", arguments: {} })).isError).toBeFalsy();

      // 403 insufficient_scope with the step-up challenge, as the server sends it to any client:
      const unpublish = { name: "marea.unpublish_storefront", arguments: { storefrontId } };
      const challenged = await fetch(mcp, {
        method: "POST",
        headers: {
          authorization: `Bearer ${provider.tokens()?.access_token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: unpublish }),
      });
      expect(challenged.status).toBe(403);
      expect(challenged.headers.get("www-authenticate")).toMatch(
        /^Bearer error="insufficient_scope", scope="marea\.read marea\.publish"/,
      );
      // The official client (2.x) answers that 403 as the revision says: it asks the person for the challenged
      // scopes (a new authorization, which the test's browser has not given yet: Unauthorized).
      const refused = await client.callTool(unpublish).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(UnauthorizedError);
      expect(new URL(provider.authorizationUrl ?? "").searchParams.get("scope")).toBe(
        "marea.read marea.publish",
      );
      provider.invalidateCredentials("tokens");
      expect(await auth(provider, { serverUrl: new URL(mcp), scope: "marea.read marea.publish" })).toBe(
        "REDIRECT",
      );
      const stepUp = new URL(provider.authorizationUrl ?? "");
      expect(stepUp.searchParams.get("scope")).toBe("marea.read marea.publish");
      const callback = await consent(stepUp);
      const next = transport(provider);
      await next.finishAuth(callback.searchParams);
      const upgraded = new Client({ name: "e2e", version: "1" });
      await upgraded.connect(transport(provider));
      const unpublished = await upgraded.callTool({
        name: "marea.unpublish_storefront",
        arguments: { storefrontId },
      });
      expect(unpublished.isError).toBeFalsy();
      await client.close();
      await upgraded.close();
    });
  });

  describe("MCP 2026-07-28: application_type at registration, iss checked, stateless requests", () => {
    it("a native client with a private-use redirect and a loopback one; modern requests with the token", async () => {
      const registered = await fetch(`${base}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          client_name: "E2E Cursor",
          application_type: "native",
          redirect_uris: ["cursor://anysphere.cursor-mcp/oauth/callback", "http://127.0.0.1/callback"],
          grant_types: ["authorization_code", "refresh_token"],
          token_endpoint_auth_method: "none",
        }),
      });
      expect(registered.status).toBe(201);
      const client = (await registered.json()) as { client_id: string; application_type: string };
      expect(client.application_type).toBe("native");
      const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as {
        issuer: string;
        authorization_response_iss_parameter_supported: boolean;
      };
      expect(metadata.authorization_response_iss_parameter_supported).toBe(true);

      const verifier = randomBytes(32).toString("base64url");
      const redirectUri = "http://127.0.0.1:49152/callback"; // another port than registered: RFC 8252
      const authorize = new URL(`${base}/oauth/authorize`);
      authorize.search = new URLSearchParams({
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: redirectUri,
        scope: "marea.read",
        state: "s-2026",
        code_challenge: createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256",
        resource: mcp,
      }).toString();
      const callback = await consent(authorize);
      expect(callback.searchParams.get("iss")).toBe(metadata.issuer);
      const tokens = (await (
        await tokenRequest({
          grant_type: "authorization_code",
          client_id: client.client_id,
          code: callback.searchParams.get("code") ?? "",
          code_verifier: verifier,
          redirect_uri: redirectUri,
          resource: mcp,
        })
      ).json()) as { access_token: string };

      const meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "e2e-modern", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      };
      const modern = (method: string, params: Record<string, unknown>, name?: string) =>
        rawMcp(
          tokens.access_token,
          { jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } },
          {
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": method,
            ...(name ? { "mcp-name": name } : {}),
          },
        );
      const discover = (await (await modern("server/discover", {})).json()) as {
        result: { supportedVersions: string[] };
      };
      expect(discover.result.supportedVersions[0]).toBe("2026-07-28");
      const got = await modern(
        "tools/call",
        { name: "marea.get_storefront", arguments: { storefrontId } },
        "marea.get_storefront",
      );
      expect(got.status).toBe(200);
      const body = (await got.json()) as {
        result: { structuredContent: { id: string }; resultType: string };
      };
      expect(body.result).toMatchObject({ resultType: "complete", structuredContent: { id: storefrontId } });
      const write = await modern(
        "tools/call",
        { name: "marea.create_storefront", arguments: {} },
        "marea.create_storefront",
      );
      expect(write.status).toBe(403);
      expect(write.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    });
  });

  describe("authorize and token refusals over HTTP", () => {
    let clientId: string;
    beforeAll(async () => {
      const res = await fetch(`${base}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "Refusals", redirect_uris: [REDIRECT] }),
      });
      clientId = ((await res.json()) as { client_id: string }).client_id;
    });

    function authorizeUrl(overrides: Record<string, string | null>, challenge: string) {
      const values: Record<string, string | null> = {
        response_type: "code",
        client_id: clientId,
        redirect_uri: REDIRECT,
        scope: "marea.read",
        state: "st",
        code_challenge: challenge,
        code_challenge_method: "S256",
        resource: mcp,
        ...overrides,
      };
      const url = new URL(`${base}/oauth/authorize`);
      for (const [name, value] of Object.entries(values))
        if (value !== null) url.searchParams.set(name, value);
      return url;
    }

    it.each([
      ["missing PKCE", { code_challenge: null, code_challenge_method: null }],
      ["plain PKCE", { code_challenge_method: "plain" }],
    ] as const)("L2: authorize with %s: the error page, never the redirect", async (_, overrides) => {
      const res = await fetch(authorizeUrl(overrides, "x".repeat(43)), { redirect: "manual" });
      expect(res.headers.get("location")).toBe(
        `${base}/oauth/error?error=invalid_request&reason=oauth_request_malformed`,
      );
      const page = await fetch(res.headers.get("location") ?? "");
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("authorization request is incomplete or malformed");
    });

    it.each([["wrong resource", { resource: "https://elsewhere.example/mcp" }, "invalid_target"]] as const)(
      "authorize with %s (otherwise well-formed): redirected with the error, state and iss",
      async (_, overrides, error) => {
        const res = await fetch(authorizeUrl(overrides, "x".repeat(43)), { redirect: "manual" });
        const location = new URL(res.headers.get("location") ?? "");
        expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
        expect(location.searchParams.get("error")).toBe(error);
        expect(location.searchParams.get("state")).toBe("st");
        expect(location.searchParams.get("iss")).toBe(base);
      },
    );

    it("authorize with a wrong redirect URI: the error page, never the redirect", async () => {
      const res = await fetch(authorizeUrl({ redirect_uri: "https://attacker.example/cb" }, "x".repeat(43)), {
        redirect: "manual",
      });
      expect(res.headers.get("location")).toMatch(new RegExp(`^${base}/oauth/error\\?error=invalid_request`));
      const page = await fetch(res.headers.get("location") ?? "");
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("redirect_uri is not one this client registered.");
    });

    it("token: wrong verifier, wrong redirect, wrong resource, then the replayed code revokes what it issued", async () => {
      const verifier = randomBytes(32).toString("base64url");
      const callback = await consent(
        authorizeUrl({}, createHash("sha256").update(verifier).digest("base64url")),
      );
      const code = callback.searchParams.get("code") ?? "";
      const redeem = (extra: Record<string, string>) =>
        tokenRequest({
          grant_type: "authorization_code",
          client_id: clientId,
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT,
          ...extra,
        });
      expect(
        await (await redeem({ code_verifier: randomBytes(32).toString("base64url") })).json(),
      ).toMatchObject({
        error: "invalid_grant",
      });
      expect(await (await redeem({ redirect_uri: "http://127.0.0.1:8976/other" })).json()).toMatchObject({
        error: "invalid_grant",
      });
      expect(await (await redeem({ resource: "https://elsewhere.example/mcp" })).json()).toMatchObject({
        error: "invalid_target",
      });
      const ok = await redeem({ resource: mcp });
      expect(ok.status).toBe(200);
      const tokens = (await ok.json()) as { access_token: string };
      const replay = await redeem({});
      expect(replay.status).toBe(400);
      expect(await replay.json()).toMatchObject({ error: "invalid_grant" });
      expect(
        (await rawMcp(tokens.access_token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status,
      ).toBe(401);
    });
  });

  describe("refresh-token reuse grace over the production start", () => {
    it("two simultaneous refreshes with one token get the same pair; the pair works and rotates", async () => {
      const provider = new TestOAuthProvider({ redirectUrl: REDIRECT, clientName: "E2E Parallel" });
      const client = await connectWithOAuth(provider);
      await client.close();
      const clientId = provider.clientInformation()?.client_id ?? "";
      const refreshToken = provider.tokens()?.refresh_token ?? "";
      const responses = await Promise.all(
        Array.from({ length: 3 }, () =>
          tokenRequest({ grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken }),
        ),
      );
      const bodies = await Promise.all(responses.map((res) => res.text()));
      expect(responses.map((res) => res.status)).toEqual([200, 200, 200]);
      expect(new Set(bodies).size).toBe(1);
      const pair = JSON.parse(bodies[0] ?? "{}") as { access_token: string; refresh_token: string };
      expect((await rawMcp(pair.access_token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).toBe(
        200,
      );
      const next = await tokenRequest({
        grant_type: "refresh_token",
        client_id: clientId,
        refresh_token: pair.refresh_token,
      });
      expect(next.status).toBe(200);
    });
  });

  describe("static keys and marea.bootstrap_user over the production start", () => {
    it("bootstrap_user: reachable with a developer key, unreachable with a user key", async () => {
      const developer = await createDeveloper();
      const call = (bearer: string) =>
        rawMcp(bearer, {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "marea.bootstrap_user",
            arguments: { email: `e2e-${randomBytes(3).toString("hex")}@example.com` },
          },
        });
      const asDeveloper = (await (await call(developer.key)).json()) as { result: { isError?: boolean } };
      expect(asDeveloper.result.isError).toBeFalsy();
      const asUser = (await (await call(merchant.userKey)).json()) as {
        result: { isError: boolean; content: Array<{ text: string }> };
      };
      expect(asUser.result.isError).toBe(true);
      expect(JSON.parse(asUser.result.content[0]?.text ?? "{}").code).toBe("insufficient_scope");
    });

    it("a static key's MCP calls count in the key's bucket, shared with /v1", async () => {
      // Three calls in one minute window (the counters are per minute: a sequence that straddles the minute's
      // end starts counting again, so it is run again).
      for (let round = 0; ; round++) {
        const first = await rawMcp(merchant.userKey, { jsonrpc: "2.0", id: 1, method: "tools/list" });
        const rest = await fetch(`${base}/v1/me`, {
          headers: { authorization: `Bearer ${merchant.userKey}` },
        });
        const again = await rawMcp(merchant.userKey, { jsonrpc: "2.0", id: 2, method: "tools/list" });
        const windows = new Set([first, rest, again].map((r) => r.headers.get("x-ratelimit-reset")));
        if (windows.size > 1 && round < 2) continue;
        const remaining = Number(first.headers.get("x-ratelimit-remaining"));
        expect(Number(rest.headers.get("x-ratelimit-remaining"))).toBe(remaining - 1);
        expect(Number(again.headers.get("x-ratelimit-remaining"))).toBe(remaining - 2);
        return;
      }
    });
  });
});
