import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { inProcessFetch, TestOAuthProvider } from "@/server/mcp/testing";
import { createMerchant, type Merchant } from "@/server/storefronts/testing";
import { sessionContextFor } from "@/server/testing/context";
import { decideConsent } from "./authorization";
import { pkcePair, TEST_REDIRECT_URI, uniqueClientIp } from "./testing";
import { mcpUrl } from "./urls";

// docs/mcp.md, "Discovery" and "Authorization server": the HTTP doors in-process, and the official client SDK's
// own OAuth flow from a 401 to a working session (the same flow runs against the production start in e2e/).

let merchant: Merchant;

beforeAll(async () => {
  merchant = await createMerchant({ verified: true, plan: "PRO" });
});

async function get(path: string, init?: RequestInit): Promise<Response> {
  return inProcessFetch(`http://localhost:3000${path}`, init);
}

async function form(path: string, values: Record<string, string>, headers: Record<string, string> = {}) {
  return get(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(values).toString(),
  });
}

describe("discovery documents", () => {
  it("RFC 9728 protected resource metadata at the path-inserted and root forms, resource exactly the MCP URL", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(await res.json()).toEqual({
        resource: "http://localhost:3000/mcp",
        authorization_servers: ["http://localhost:3000"],
        scopes_supported: ["marea.read", "marea.write", "marea.publish"],
        bearer_methods_supported: ["header"],
        resource_name: "Marea",
        resource_documentation: "http://localhost:3000/docs/mcp",
      });
    }
    expect((await get("/.well-known/oauth-protected-resource/other")).status).toBe(404);
  });

  it("RFC 8414 authorization server metadata", async () => {
    const res = await get("/.well-known/oauth-authorization-server");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.json()).toMatchObject({
      issuer: "http://localhost:3000",
      authorization_endpoint: "http://localhost:3000/oauth/authorize",
      token_endpoint: "http://localhost:3000/oauth/token",
      registration_endpoint: "http://localhost:3000/oauth/register",
      revocation_endpoint: "http://localhost:3000/oauth/revoke",
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: ["none"],
      code_challenge_methods_supported: ["S256"],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      scopes_supported: ["marea.read", "marea.write", "marea.publish"],
    });
  });
});

describe("the endpoints' HTTP shapes", () => {
  it("register: 201 JSON; errors in RFC 7591's shape", async () => {
    const ok = await get("/oauth/register", {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": uniqueClientIp() },
      body: JSON.stringify({ client_name: "Shape", redirect_uris: [TEST_REDIRECT_URI] }),
    });
    expect(ok.status).toBe(201);
    expect(ok.headers.get("cache-control")).toBe("no-store");
    expect(await ok.json()).toMatchObject({ client_name: "Shape", token_endpoint_auth_method: "none" });
    const bad = await get("/oauth/register", {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": uniqueClientIp() },
      body: JSON.stringify({ redirect_uris: ["http://evil.example/cb"] }),
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()) as unknown).toMatchObject({ error: "invalid_redirect_uri" });
    const notJson = await get("/oauth/register", { method: "POST", body: "x" });
    expect(((await notJson.json()) as { error: string }).error).toBe("invalid_client_metadata");
  });

  it("token: form-encoded only; errors in RFC 6749's shape, no-store", async () => {
    const json = await get("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: "invalid_request" });
    const unknown = await form("/oauth/token", {
      grant_type: "authorization_code",
      client_id: "oac_nobody",
      code: "x",
    });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get("cache-control")).toBe("no-store");
    expect(await unknown.json()).toMatchObject({ error: "invalid_client" });
  });

  it("L11: a malformed Authorization: Basic header on token and revoke is 401 invalid_client, never a 500", async () => {
    const registered = (await (
      await get("/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": uniqueClientIp() },
        body: JSON.stringify({ client_name: "Basic", redirect_uris: [TEST_REDIRECT_URI] }),
      })
    ).json()) as { client_id: string };
    const basic = (text: string) => `Basic ${Buffer.from(text, "utf8").toString("base64")}`;
    const headers = [
      // `%` escapes decodeURIComponent throws on.
      basic("%ZZ:"),
      basic("%E0%A4%A:"),
      basic("%ED%A0%80:"),
      basic("%:"),
      // Not base64, and base64 of bytes that are not UTF-8.
      "Basic !!!",
      "Basic =abc",
      `Basic ${Buffer.from([0xff, 0xfe, 0x3a]).toString("base64")}`,
      // A NUL the database could not compare.
      basic("a%00b:"),
      basic("a\u0000b:"),
    ];
    for (const authorization of headers) {
      for (const path of ["/oauth/token", "/oauth/revoke"]) {
        const res = await form(
          path,
          path === "/oauth/token"
            ? { grant_type: "refresh_token", refresh_token: "mcp_rt_unknown" }
            : { token: "mcp_at_unknown" },
          { authorization },
        );
        expect(res.status, `${path} ${authorization}`).toBe(401);
        expect(res.headers.get("cache-control")).toBe("no-store");
        expect(await res.json()).toMatchObject({ error: "invalid_client" });
      }
    }
    // A well-formed header still works, and must agree with the form's client_id.
    const ok = await form(
      "/oauth/revoke",
      { token: "mcp_at_unknown", client_id: registered.client_id },
      { authorization: basic(`${registered.client_id}:`) },
    );
    expect(ok.status).toBe(200);
  });

  it("revoke: 200 for an unknown token", async () => {
    const registered = (await (
      await get("/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": uniqueClientIp() },
        body: JSON.stringify({ client_name: "Revoker", redirect_uris: [TEST_REDIRECT_URI] }),
      })
    ).json()) as { client_id: string };
    const res = await form("/oauth/revoke", { token: "mcp_at_unknown", client_id: registered.client_id });
    expect(res.status).toBe(200);
  });

  it("authorize: an unknown client goes to the error page, never to the redirect URI", async () => {
    const res = await get(
      `/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: "oac_nobody",
        redirect_uri: "https://attacker.example/cb",
        code_challenge: pkcePair().challenge,
        code_challenge_method: "S256",
      })}`,
    );
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toMatch(
      /^http:\/\/localhost:3000\/oauth\/error\?error=invalid_client/,
    );
  });
});

describe("the official client SDK's flow: 401 -> discovery -> dynamic registration -> consent -> token -> tools", () => {
  it("connects, calls tools, refreshes, and a revoked refresh token ends it", async () => {
    const provider = new TestOAuthProvider({ redirectUrl: TEST_REDIRECT_URI, clientName: "SDK Flow" });
    const first = new StreamableHTTPClientTransport(new URL(mcpUrl()), {
      authProvider: provider,
      fetch: inProcessFetch,
    });
    await expect(new Client({ name: "t", version: "1" }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const authorizationUrl = provider.authorizationUrl;
    expect(authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl?.searchParams.get("resource")).toBe(mcpUrl());
    expect(authorizationUrl?.searchParams.get("scope")).toBe("marea.read marea.write marea.publish");
    expect(provider.clientInformation()?.client_id).toMatch(/^oac_/);

    // The browser: authorize -> the consent page -> approve.
    const authorize = await inProcessFetch(authorizationUrl as URL);
    const consentUrl = new URL(authorize.headers.get("location") ?? "");
    expect(consentUrl.pathname).toBe("/dashboard/oauth/consent");
    const { redirectTo } = await decideConsent(await sessionContextFor(merchant.userId), {
      requestId: consentUrl.searchParams.get("request") ?? "",
      approve: true,
    });
    const callback = new URL(redirectTo);
    expect(callback.searchParams.get("iss")).toBe("http://localhost:3000");
    expect(callback.searchParams.get("state")).toBe("sdk-state");

    await first.finishAuth(callback.searchParams);
    const tokens = provider.tokens();
    expect(tokens?.access_token).toMatch(/^mcp_at_/);

    const client = new Client({ name: "t", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider, fetch: inProcessFetch }),
    );
    expect((await client.listTools()).tools).toHaveLength(17);
    const me = await client.callTool({ name: "marea.get_me", arguments: {} });
    expect(me.structuredContent).toMatchObject({ type: "user", keyName: "SDK Flow" });

    // Refresh through the token endpoint, as the SDK does when a token expires.
    const refreshed = await form("/oauth/token", {
      grant_type: "refresh_token",
      client_id: provider.clientInformation()?.client_id ?? "",
      refresh_token: tokens?.refresh_token ?? "",
      resource: mcpUrl(),
    });
    expect(refreshed.status).toBe(200);
    const rotated = (await refreshed.json()) as { access_token: string; refresh_token: string };
    const revoke = await form("/oauth/revoke", {
      client_id: provider.clientInformation()?.client_id ?? "",
      token: rotated.refresh_token,
      token_type_hint: "refresh_token",
    });
    expect(revoke.status).toBe(200);
    const afterRevoke = await inProcessFetch(mcpUrl(), {
      method: "POST",
      headers: {
        authorization: `Bearer ${rotated.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(afterRevoke.status).toBe(401);
    await client.close();
  });
});

describe("L2 and L8 over HTTP", () => {
  it("L2: a malformed request with a registered https redirect URI is not redirected there (no open redirect)", async () => {
    const registered = (await (
      await get("/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": uniqueClientIp() },
        body: JSON.stringify({ client_name: "Phish", redirect_uris: ["https://evil.example/login"] }),
      })
    ).json()) as { client_id: string };
    const res = await get(
      `/oauth/authorize?${new URLSearchParams({
        client_id: registered.client_id,
        redirect_uri: "https://evil.example/login",
      })}`,
    );
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location") ?? "");
    expect(location.origin).toBe("http://localhost:3000");
    expect(location.pathname).toBe("/oauth/error");
    expect(location.searchParams.get("reason")).toBe("oauth_request_malformed");
    expect(location.searchParams.get("error_description")).toBeNull();
  });

  it("L8: the error page link carries no description, only the RFC code and a catalogue reason", async () => {
    const res = await get(
      `/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: "oac_nobody",
        redirect_uri: "https://attacker.example/cb",
        code_challenge: pkcePair().challenge,
        code_challenge_method: "S256",
      })}`,
    );
    const location = new URL(res.headers.get("location") ?? "");
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: "invalid_client",
      reason: "oauth_client_unknown",
    });
  });
});

describe("refresh-token reuse grace over the token endpoint", () => {
  it("two simultaneous refreshes with one token (real parallel requests) get the same pair, which works", async () => {
    const provider = new TestOAuthProvider({ redirectUrl: TEST_REDIRECT_URI, clientName: "Parallel" });
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), {
      authProvider: provider,
      fetch: inProcessFetch,
    });
    await expect(new Client({ name: "t", version: "1" }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const consentUrl = new URL(
      (await inProcessFetch(provider.authorizationUrl as URL)).headers.get("location") ?? "",
    );
    const { redirectTo } = await decideConsent(await sessionContextFor(merchant.userId), {
      requestId: consentUrl.searchParams.get("request") ?? "",
      approve: true,
    });
    await transport.finishAuth(new URL(redirectTo).searchParams);
    const clientId = provider.clientInformation()?.client_id ?? "";
    const refreshToken = provider.tokens()?.refresh_token ?? "";

    const responses = await Promise.all(
      Array.from({ length: 3 }, () =>
        form("/oauth/token", {
          grant_type: "refresh_token",
          client_id: clientId,
          refresh_token: refreshToken,
          resource: mcpUrl(),
        }),
      ),
    );
    const bodies = await Promise.all(responses.map((res) => res.text()));
    for (const res of responses) expect(res.status).toBe(200);
    for (const body of bodies) expect(body).toBe(bodies[0]);
    const pair = JSON.parse(bodies[0] ?? "{}") as { access_token: string; refresh_token: string };
    expect(pair.refresh_token).not.toBe(refreshToken);
    const call = await inProcessFetch(mcpUrl(), {
      method: "POST",
      headers: {
        authorization: `Bearer ${pair.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(call.status).toBe(200);
    const next = await form("/oauth/token", {
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: pair.refresh_token,
    });
    expect(next.status).toBe(200);
  });
});
