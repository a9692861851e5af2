import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptCurrentTerms } from "@/server/accounts/cancellation";
import { env } from "@/server/env";
import { currentTerms } from "@/server/gate/terms";
import { signInThroughMail } from "@/server/sessions/testing";
import { createMerchant, type Merchant } from "@/server/storefronts/testing";
import { sessionContextFor } from "@/server/testing/context";
import { type ProductionServer, startProductionServer } from "@/server/testing/production-server";
import { hasWholeAnswer, rawExchange } from "@/server/testing/raw-http";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { BODY_LIMITS } from "./body";

// docs/security.md, "Request bodies and door limits", through the production start (server/host/main.ts): the
// doors it serves itself (MCP, GraphQL, tRPC) and those Next serves (the checkout, the forms, OAuth). Each body is
// chunked, passes its door's cap, and never ends: a door that read it whole would never answer, so an answer at
// all proves it was refused while it arrived.

const CHUNK = 64 * 1024;

/** A chunked POST of more than `cap` bytes, without the last chunk; the answer the server gives meanwhile. */
function overCapChunked(
  server: ProductionServer,
  path: string,
  cap: number,
  headers: Record<string, string>,
): Promise<string> {
  const head = [
    `POST ${path} HTTP/1.1`,
    `host: 127.0.0.1:${server.port}`,
    "transfer-encoding: chunked",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join("\r\n");
  const chunk = Buffer.concat([
    Buffer.from(`${CHUNK.toString(16)}\r\n`),
    Buffer.alloc(CHUNK, 0x61),
    Buffer.from("\r\n"),
  ]);
  const chunks = Array.from({ length: Math.ceil(cap / CHUNK) + 2 }, () => chunk);
  return rawExchange(server.port, [`${head}\r\n\r\n`, ...chunks], 20_000, hasWholeAnswer);
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0);
}

function bodyOf(answer: string): string {
  const head = answer.slice(0, answer.indexOf("\r\n\r\n"));
  const body = answer.slice(answer.indexOf("\r\n\r\n") + 4);
  if (!/\r\ntransfer-encoding:\s*chunked/i.test(head)) return body;
  // Chunked: the chunks' data, without their sizes.
  let out = "";
  let rest = body;
  for (;;) {
    const line = rest.indexOf("\r\n");
    const size = Number.parseInt(rest.slice(0, line), 16);
    if (!size) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

describe.skipIf(testDatabaseKind() !== "postgres")("request bodies over HTTP (the production start)", () => {
  let server: ProductionServer;
  let merchant: Merchant;
  let cookie: string;
  let origin: string;

  beforeAll(async () => {
    server = await startProductionServer({
      DATABASE_URL: env().DATABASE_URL,
      DATA_DIR: env().DATA_DIR,
      WORKER: "off",
    });
    origin = server.baseUrl;
    merchant = await createMerchant({ verified: true, plan: "PRO" });
    const signedIn = await signInThroughMail(merchant.email);
    if (signedIn.kind !== "signed_in") throw new Error("expected a session");
    await acceptCurrentTerms(await sessionContextFor(signedIn.accountId), {
      version: currentTerms().version,
    });
    cookie = `marea_session=${signedIn.session.token}`;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("S1 tRPC: signed out, 401 before the body is read; signed in, 413 at 1 MiB while it arrives", async () => {
    const json = { "content-type": "application/json", origin };
    const anonymous = await overCapChunked(server, "/api/trpc/storefronts.create", BODY_LIMITS.api, json);
    expect(statusOf(anonymous)).toBe(401);
    const answer = await overCapChunked(server, "/api/trpc/storefronts.create", BODY_LIMITS.api, {
      ...json,
      cookie,
    });
    expect(statusOf(answer)).toBe(413);
    expect(bodyOf(answer)).toContain('"code":"payload_too_large"');
  });

  it("MCP and GraphQL: 413 payload_too_large at 1 MiB while it arrives (after authentication)", async () => {
    const keyed = { "content-type": "application/json", authorization: `Bearer ${merchant.userKey}` };
    const mcp = await overCapChunked(server, "/mcp", BODY_LIMITS.api, {
      ...keyed,
      accept: "application/json, text/event-stream",
    });
    expect(statusOf(mcp)).toBe(413);
    expect(bodyOf(mcp)).toContain('"code":"payload_too_large"');
    const graphql = await overCapChunked(server, "/api/graphql", BODY_LIMITS.api, keyed);
    expect(bodyOf(graphql)).toContain('"code":"payload_too_large"');
  });

  it("M3 public checkout (Next): another site 403 before reading; 413 at 64 KiB while it arrives", async () => {
    const json = { "content-type": "application/json" };
    const foreign = await overCapChunked(server, "/s/any-store/orders", BODY_LIMITS.checkout, {
      ...json,
      origin: "https://evil.example",
    });
    expect(statusOf(foreign)).toBe(403);
    const answer = await overCapChunked(server, "/s/any-store/orders", BODY_LIMITS.checkout, {
      ...json,
      origin,
    });
    expect(statusOf(answer)).toBe(413);
    expect(JSON.parse(bodyOf(answer)).error.code).toBe("payload_too_large");
  });

  it("M3 sign-in, preferences and OAuth forms (Next): 403 from another site before reading; 413 at 16 KiB", async () => {
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const foreign = await overCapChunked(server, "/signin/email", BODY_LIMITS.form, {
      ...form,
      origin: "https://evil.example",
    });
    expect(statusOf(foreign)).toBe(403);
    for (const path of ["/signin/email", "/signin/code", "/signout", "/preferences", "/oauth/consent"]) {
      const answer = await overCapChunked(server, path, BODY_LIMITS.form, { ...form, origin, cookie });
      expect(statusOf(answer), path).toBe(413);
    }
  });

  it("M3 OAuth endpoints (Next): token, revoke, register and POST authorize are 413 at 64 KiB while it arrives", async () => {
    for (const [path, type] of [
      ["/oauth/token", "application/x-www-form-urlencoded"],
      ["/oauth/revoke", "application/x-www-form-urlencoded"],
      ["/oauth/register", "application/json"],
      ["/oauth/authorize", "application/x-www-form-urlencoded"],
    ] as const) {
      const answer = await overCapChunked(server, path, BODY_LIMITS.oauth, { "content-type": type });
      expect(statusOf(answer), path).toBe(413);
      expect(JSON.parse(bodyOf(answer)), path).toMatchObject({ error: "invalid_request" });
    }
  });
});
