import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbReady } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { inProcessFetch } from "@/server/mcp/testing";
import { createMerchant } from "@/server/storefronts/testing";
import { sessionContextFor } from "@/server/testing/context";
import { getConsentRequest, startAuthorization } from "./authorization";
import {
  cacheSeconds,
  DOCUMENT_FETCH_LIMITS,
  METADATA_DOCUMENT_MAX_BYTES,
  metadataDocumentUrlProblem,
  resolveClient,
} from "./clients";
import { OAuthError } from "./errors";
import { authorizeParams, pkcePair, requestIdOf, TEST_REDIRECT_URI, uniqueClientIp } from "./testing";
import { exchangeToken, revokeToken } from "./tokens";

// docs/mcp.md, "Client ID metadata documents": fetched with the webhooks' SSRF-safe pinned fetch (public addresses
// only; loopback here through the local-test switch), no redirects, 5 KB and 5 s at most, cached by Cache-Control.

type Route = (request: IncomingMessage, response: ServerResponse, base: string) => void;
const routes = new Map<string, Route>();
const hits = new Map<string, number>();
let server: Server;
let base: string;

function document(path: string, extra: Record<string, unknown> = {}) {
  return {
    client_id: `${base}${path}`,
    client_name: "Doc Client",
    client_uri: "https://doc-client.example.com",
    redirect_uris: [TEST_REDIRECT_URI],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...extra,
  };
}

function serveJson(path: string, body: unknown, headers: Record<string, string> = {}) {
  routes.set(path, (_request, response) => {
    response.writeHead(200, { "content-type": "application/json", ...headers });
    response.end(typeof body === "string" ? body : JSON.stringify(body));
  });
}

beforeAll(async () => {
  process.env.UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS = "1";
  resetEnvForTests();
  server = createServer((request, response) => {
    const path = request.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (!route) {
      response.writeHead(404).end();
      return;
    }
    route(request, response, base);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  delete process.env.UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS;
  resetEnvForTests();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function refusal(clientId: string, now = new Date()): Promise<OAuthError> {
  const error = await resolveClient(await dbReady(), clientId, now).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof OAuthError)) throw new Error(`expected a refusal for ${clientId}`);
  return error;
}

describe("client ID metadata documents", () => {
  it("a valid document names the client; it is reused for its Cache-Control max-age, then fetched again", async () => {
    serveJson("/cached.json", document("/cached.json"), { "cache-control": "public, max-age=300" });
    const db = await dbReady();
    const now = new Date();
    const client = await resolveClient(db, `${base}/cached.json`, now);
    expect(client).toMatchObject({
      kind: "metadata_document",
      name: "Doc Client",
      redirectUris: [TEST_REDIRECT_URI],
    });
    await resolveClient(db, `${base}/cached.json`, new Date(now.getTime() + 299_000));
    expect(hits.get("/cached.json")).toBe(1);
    await resolveClient(db, `${base}/cached.json`, new Date(now.getTime() + 301_000));
    expect(hits.get("/cached.json")).toBe(2);
  });

  it("no-store (or no Cache-Control) is fetched at every authorization", async () => {
    serveJson("/fresh.json", document("/fresh.json"), { "cache-control": "no-store" });
    const db = await dbReady();
    await resolveClient(db, `${base}/fresh.json`, new Date());
    await resolveClient(db, `${base}/fresh.json`, new Date());
    expect(hits.get("/fresh.json")).toBe(2);
    expect(cacheSeconds("max-age=999999")).toBe(86_400);
    expect(cacheSeconds("private, max-age=60")).toBe(60);
    expect(cacheSeconds("max-age=60, no-cache")).toBe(0);
    expect(cacheSeconds(undefined)).toBe(0);
  });

  it("a client_id that is not the document's own URL is refused", async () => {
    serveJson("/mismatch.json", {
      ...document("/mismatch.json"),
      client_id: "https://other.example/client.json",
    });
    expect((await refusal(`${base}/mismatch.json`)).description).toMatch(/client_id is not its own URL/);
  });

  it(`a document over ${METADATA_DOCUMENT_MAX_BYTES / 1024} KB is refused`, async () => {
    serveJson("/big.json", document("/big.json", { padding: "x".repeat(METADATA_DOCUMENT_MAX_BYTES) }));
    expect((await refusal(`${base}/big.json`)).description).toMatch(/larger than 5 KB/);
  });

  it("a redirect is not followed", async () => {
    serveJson("/target.json", document("/target.json"));
    routes.set("/moved.json", (_request, response) => {
      response.writeHead(302, { location: `${base}/target.json` }).end();
    });
    expect((await refusal(`${base}/moved.json`)).description).toMatch(/HTTP 302/);
    expect(hits.get("/target.json")).toBeUndefined();
  });

  it.each([
    ["not JSON", "not json"],
    ["a JSON array", "[]"],
  ])("%s is refused", async (label, body) => {
    const path = `/bad-${label.replace(/\W/g, "")}.json`;
    serveJson(path, body);
    expect((await refusal(`${base}${path}`)).code).toBe("invalid_client");
  });

  it.each([
    ["no client_name", { client_name: undefined }],
    ["a shared-secret method", { token_endpoint_auth_method: "client_secret_basic" }],
    ["private_key_jwt", { token_endpoint_auth_method: "private_key_jwt" }],
    ["a client secret", { client_secret: "s3cret" }],
    ["an http redirect to a public host", { redirect_uris: ["http://app.example.com/cb"] }],
    ["no redirect URIs", { redirect_uris: [] }],
  ])("a document with %s is refused", async (label, extra) => {
    const path = `/doc-${label.replace(/\W/g, "")}.json`;
    serveJson(path, document(path, extra));
    expect((await refusal(`${base}${path}`)).code).toBe("invalid_client");
  });

  it("a document that does not answer within 5 seconds is refused", { timeout: 15_000 }, async () => {
    routes.set("/slow.json", () => {
      // never answers
    });
    const started = Date.now();
    expect((await refusal(`${base}/slow.json`)).description).toMatch(/timeout/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4900);
  });

  it("private addresses stay refused even with the local-test switch; without it, https only", async () => {
    expect((await refusal("http://10.0.0.7/client.json")).description).toMatch(/must use https/);
    expect((await refusal("https://10.0.0.7/client.json")).description).toMatch(/blocked/);
    expect((await refusal("https://169.254.169.254/latest/meta-data/client.json")).description).toMatch(
      /blocked/,
    );
    process.env.UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS = "";
    resetEnvForTests();
    try {
      expect((await refusal(`${base}/cached.json`)).code).toBe("invalid_client");
      expect(metadataDocumentUrlProblem(`${base}/cached.json`)).toBe("must use https");
    } finally {
      process.env.UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS = "1";
      resetEnvForTests();
    }
  });

  it("the URL must have a path, no fragment, no credentials and no dot segments", () => {
    expect(metadataDocumentUrlProblem("https://client.example.com/")).toBe("must have a path");
    expect(metadataDocumentUrlProblem("https://client.example.com/c.json#x")).toBe(
      "must not contain a fragment",
    );
    expect(metadataDocumentUrlProblem("https://u:p@client.example.com/c.json")).toBe(
      "must not contain credentials",
    );
    expect(metadataDocumentUrlProblem("https://client.example.com/a/../c.json")).toBe(
      "must not contain dot segments",
    );
    expect(metadataDocumentUrlProblem("https://client.example.com/oauth/client.json")).toBeNull();
  });

  it("an authorization by a metadata-document client shows the document's host on the consent page", async () => {
    serveJson("/flow.json", document("/flow.json"), { "cache-control": "max-age=60" });
    const merchant = await createMerchant({ verified: true });
    const outcome = await startAuthorization(
      await dbReady(),
      { params: authorizeParams(`${base}/flow.json`, pkcePair().challenge), ip: uniqueClientIp() },
      new Date(),
    );
    if (outcome.kind !== "consent") throw new Error(`expected consent: ${JSON.stringify(outcome)}`);
    const consent = await getConsentRequest(await sessionContextFor(merchant.userId), {
      requestId: requestIdOf(outcome.location),
    });
    expect(consent).toMatchObject({
      clientId: `${base}/flow.json`,
      clientName: "Doc Client",
      clientKind: "metadata_document",
      clientHost: new URL(base).host,
      clientUri: "https://doc-client.example.com",
    });
  });
});

describe("L1: a metadata document's fetch discloses nothing about our network", () => {
  async function withoutLocalSwitch<T>(work: () => Promise<T>): Promise<T> {
    process.env.UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS = "";
    resetEnvForTests();
    try {
      return await work();
    } finally {
      process.env.UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS = "1";
      resetEnvForTests();
    }
  }

  it("L1: a name resolving to a private address, or not resolving, is 'not allowed', without the address or resolver code", async () => {
    // This machine's own name resolves to one of its addresses (loopback or private), like an internal name.
    const internal = `https://${hostname()}/client.json`;
    const missing = `https://no-such-host-${Date.now()}.invalid/client.json`;
    await withoutLocalSwitch(async () => {
      for (const clientId of [internal, missing]) {
        const error = await refusal(clientId);
        expect(error.code).toBe("invalid_client");
        expect(error.reason).toBe("oauth_client_host_not_allowed");
        expect(error.description).toBe(
          "The client metadata document could not be fetched (blocked: the host is not allowed).",
        );
        const outcome = await startAuthorization(
          await dbReady(),
          { params: authorizeParams(clientId, pkcePair().challenge), ip: uniqueClientIp() },
          new Date(),
        );
        expect(outcome.kind).toBe("error_page");
        const shown = JSON.stringify(outcome);
        for (const leak of ["127.0.0.1", "10.", "192.168.", "ENOTFOUND", "EAI_AGAIN", "resolve", hostname()])
          expect(shown.replace(clientId, ""), leak).not.toContain(leak);
      }
    });
  });

  it("L1: the authorize redirect to the error page carries only the error and a catalogue reason", async () => {
    await withoutLocalSwitch(async () => {
      const res = await inProcessFetch(
        `http://localhost:3000/oauth/authorize?${authorizeParams(`https://${hostname()}/client.json`, pkcePair().challenge)}`,
        { headers: { "x-forwarded-for": uniqueClientIp() } },
      );
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get("location") ?? "");
      expect(location.pathname).toBe("/oauth/error");
      expect([...location.searchParams.keys()].sort()).toEqual(["error", "reason"]);
      expect(location.searchParams.get("error")).toBe("invalid_client");
      expect(location.searchParams.get("reason")).toBe("oauth_client_host_not_allowed");
    });
  });

  it("L1: the token and revocation endpoints never fetch a document (only authorize does, and keeps a copy)", async () => {
    serveJson("/never.json", document("/never.json"));
    const db = await dbReady();
    const token = await exchangeToken(
      db,
      {
        form: new URLSearchParams({
          grant_type: "refresh_token",
          client_id: `${base}/never.json`,
          refresh_token: "x",
        }),
        clientId: null,
      },
      new Date(),
    ).catch((error: unknown) => error);
    expect(token).toBeInstanceOf(OAuthError);
    expect((token as OAuthError).code).toBe("invalid_client");
    const revoked = await revokeToken(
      db,
      { form: new URLSearchParams({ token: "x", client_id: `${base}/never.json` }), clientId: null },
      new Date(),
    ).catch((error: unknown) => error);
    expect((revoked as OAuthError).code).toBe("invalid_client");
    expect(hits.get("/never.json")).toBeUndefined();
  });

  it(`L1: fetches are limited to ${DOCUMENT_FETCH_LIMITS.perIp} per 10 minutes per address; kept copies do not count`, async () => {
    serveJson("/limited.json", document("/limited.json"), { "cache-control": "no-store" });
    serveJson("/kept.json", document("/kept.json"), { "cache-control": "max-age=600" });
    const db = await dbReady();
    const ip = uniqueClientIp();
    for (let i = 0; i < 3; i++) await resolveClient(db, `${base}/kept.json`, new Date(), { ip });
    for (let i = 0; i < DOCUMENT_FETCH_LIMITS.perIp - 1; i++)
      await resolveClient(db, `${base}/limited.json`, new Date(), { ip });
    const over = await resolveClient(db, `${base}/limited.json`, new Date(), { ip }).catch(
      (error: unknown) => error,
    );
    expect(over).toBeInstanceOf(OAuthError);
    expect((over as OAuthError).code).toBe("temporarily_unavailable");
    expect((over as OAuthError).reason).toBe("oauth_rate_limited");
    expect(hits.get("/limited.json")).toBe(DOCUMENT_FETCH_LIMITS.perIp - 1);
    await expect(
      resolveClient(db, `${base}/limited.json`, new Date(), { ip: uniqueClientIp() }),
    ).resolves.toMatchObject({
      kind: "metadata_document",
    });
  });
});
