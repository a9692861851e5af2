import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { dbReady, queryRows } from "@/server/db/client";
import { env } from "@/server/env";
import { ErrorEnvelope } from "@/server/errors";
import { createMerchant, type Merchant } from "@/server/storefronts/testing";
import {
  PRODUCTION_START,
  type ProductionServer,
  startProductionServer,
} from "@/server/testing/production-server";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { directRoute } from "./direct";
import { MAX_BODY_BYTES } from "./pipeline";

// docs/operations.md, "Running": the production start serves /v1 and /healthz from the pipeline on node:http and
// every other path through Next, on one port. These tests start the real thing over the `.next` build.

/** A GET on a connection of its own (no keep-alive), so a cluster's primary hands each to the next worker. */
function getFresh(url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Raw bytes over one connection; everything the server sends back until it closes the connection (or `ms`). */
function raw(port: number, parts: Array<string | Buffer>, ms = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(received);
    }, ms);
    socket.on("data", (d) => {
      received += d.toString("latin1");
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      if (received) resolve(received);
      else reject(error);
    });
    for (const part of parts) socket.write(part);
  });
}

function envelopeOf(text: string) {
  return ErrorEnvelope.parse(JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4))).error;
}

describe("which paths skip Next", () => {
  it("/v1 and below, and GET/HEAD /healthz; everything else is Next's", () => {
    expect(directRoute("GET", "/v1/me")).toBe("v1");
    expect(directRoute("POST", "/v1")).toBe("v1");
    expect(directRoute("GET", "/v1?x=1")).toBe("v1");
    expect(directRoute("GET", "/v1/stor%ZZefronts")).toBe("v1");
    expect(directRoute("GET", "/healthz")).toBe("health");
    expect(directRoute("HEAD", "/healthz?probe=1")).toBe("health");
    expect(directRoute("POST", "/healthz")).toBeNull();
    for (const target of ["/v10", "/v1x", "//v1/me", "/api/graphql", "/mcp", "/s/x", "/", "http://h/v1/me"])
      expect(directRoute("GET", target)).toBeNull();
  });
});

describe("on the embedded database", () => {
  it("WEB_CONCURRENCY > 1 is refused with a clear error: PGlite is one process per folder", () => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, WEB_CONCURRENCY: "2", NODE_ENV: "production" };
    delete childEnv.DATABASE_URL;
    const result = spawnSync(process.execPath, PRODUCTION_START, {
      env: childEnv,
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("WEB_CONCURRENCY=2 needs DATABASE_URL");
  });

  it("one process serves /healthz, /v1 and pages (README's start: no DATABASE_URL)", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "marea-main-"));
    const server = await startProductionServer({
      DATABASE_URL: undefined,
      PGLITE_DIR: undefined,
      DATA_DIR: dataDir,
    });
    try {
      const health = await fetch(`${server.baseUrl}/healthz`);
      expect(await health.json()).toEqual({ ok: true, database: "up" });
      const me = await fetch(`${server.baseUrl}/v1/me`);
      expect(me.status).toBe(401);
      expect(ErrorEnvelope.parse(await me.json()).error.code).toBe("missing_authorization");
      const page = await fetch(`${server.baseUrl}/signin`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      await page.arrayBuffer();
      expect(await server.stop()).toBe(0);
    } finally {
      await server.stop("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe.skipIf(testDatabaseKind() !== "postgres")("one process on PostgreSQL", () => {
  let server: ProductionServer;
  let merchant: Merchant;
  const serverEnv = () => ({ DATABASE_URL: env().DATABASE_URL, DATA_DIR: env().DATA_DIR, WORKER: "off" });

  beforeAll(async () => {
    server = await startProductionServer(serverEnv());
    merchant = await createMerchant({ plan: "PRO", verified: true });
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
  });

  const storefrontCount = async () =>
    (
      await queryRows<{ n: number }>(
        await dbReady(),
        sql`select count(*)::int as n from storefronts where account_id = ${merchant.userId}`,
      )
    )[0]?.n;

  it("one port: /v1 answers in the envelope, /healthz from the pipeline, pages, GraphQL and the dashboard's proxy through Next", async () => {
    const me = await fetch(`${server.baseUrl}/v1/me`, {
      headers: { authorization: `Bearer ${merchant.userKey}` },
    });
    expect(me.status).toBe(200);
    expect(me.headers.get("x-request-id")).toMatch(/^req_/);
    await me.arrayBuffer();
    // Hostile paths stay the pipeline's (docs/api.md, "Hostile and malformed input").
    for (const [target, code] of [
      ["/v1/", "route_not_found"],
      ["/v1/stor%ZZefronts/x", "route_not_found"],
    ] as const) {
      const res = await fetch(`${server.baseUrl}${target}`, { redirect: "manual" });
      expect(res.status).toBe(404);
      expect(ErrorEnvelope.parse(await res.json()).error.code).toBe(code);
    }
    const health = await fetch(`${server.baseUrl}/healthz`);
    expect(health.headers.get("cache-control")).toBe("no-store");
    expect(await health.json()).toEqual({ ok: true, database: "up" });

    const page = await fetch(`${server.baseUrl}/signin`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<html");
    const graphql = await fetch(`${server.baseUrl}/api/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${merchant.userKey}` },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    expect(graphql.status).toBe(200);
    expect(await graphql.json()).toEqual({ data: { __typename: "Query" } });
    const dashboard = await fetch(`${server.baseUrl}/dashboard`, { redirect: "manual" });
    expect(dashboard.status).toBe(303);
    expect(dashboard.headers.get("location")).toContain("/signin?next=%2Fdashboard");
  });

  it("body limit: 1 MiB is read; 1 MiB + 1 byte is 413 payload_too_large, declared or chunked, and nothing is written", async () => {
    const before = await storefrontCount();
    const json = JSON.stringify({ name: "Exactly one MiB", language: "es", currency: "MXN" });
    const exact = json + " ".repeat(MAX_BODY_BYTES - json.length);
    const ok = await fetch(`${server.baseUrl}/v1/storefronts`, {
      method: "POST",
      headers: { authorization: `Bearer ${merchant.userKey}`, "content-type": "application/json" },
      body: exact,
    });
    expect(ok.status).toBe(201);
    await ok.arrayBuffer();

    const over = `${exact} `;
    const declared = await fetch(`${server.baseUrl}/v1/storefronts`, {
      method: "POST",
      headers: { authorization: `Bearer ${merchant.userKey}`, "content-type": "application/json" },
      body: over,
    });
    expect(declared.status).toBe(413);
    expect(ErrorEnvelope.parse(await declared.json()).error.code).toBe("payload_too_large");

    // Chunked (no Content-Length): the pipeline reads until it passes the limit, refuses, and the connection
    // closes after the answer.
    const bytes = Buffer.from(over);
    const half = bytes.length >> 1;
    const chunk = (b: Buffer) =>
      Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from("\r\n")]);
    const answer = await raw(server.port, [
      `POST /v1/storefronts HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${merchant.userKey}\r\n` +
        "content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n",
      chunk(bytes.subarray(0, half)),
      chunk(bytes.subarray(half)),
      "0\r\n\r\n",
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(envelopeOf(answer).code).toBe("payload_too_large");
    expect(await storefrontCount()).toBe((before ?? 0) + 1);
  });

  it("a client that hangs up mid-body: nothing is written, and the process goes on serving", async () => {
    const before = await storefrontCount();
    const body = JSON.stringify({ name: "Never finished", language: "es", currency: "MXN" });
    await raw(
      server.port,
      [
        `POST /v1/storefronts HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${merchant.userKey}\r\n` +
          `content-type: application/json\r\ncontent-length: ${body.length + 100}\r\n\r\n`,
        body,
      ],
      300,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await storefrontCount()).toBe(before);
    const health = await fetch(`${server.baseUrl}/healthz`);
    expect(health.status).toBe(200);
    await health.arrayBuffer();
  });

  it("graceful shutdown: SIGTERM stops accepting, the request in flight is answered (then its connection closes), the process exits 0", async () => {
    const stopping = await startProductionServer(serverEnv());
    const before = await storefrontCount();
    const body = Buffer.from(JSON.stringify({ name: "Drained", language: "es", currency: "MXN" }));
    const socket = connect(stopping.port, "127.0.0.1");
    let received = "";
    socket.on("data", (d) => {
      received += d.toString("latin1");
    });
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.write(
      `POST /v1/storefronts HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${merchant.userKey}\r\n` +
        `content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.subarray(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const exited = stopping.stop();
    // No new connection is accepted once the signal is handled.
    let refused = false;
    for (let i = 0; i < 50 && !refused; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      refused = await fetch(`${stopping.baseUrl}/healthz`).then(
        async (r) => {
          await r.arrayBuffer();
          return false;
        },
        () => true,
      );
    }
    expect(refused).toBe(true);
    // The request in flight finishes and is answered.
    socket.write(body.subarray(10));
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 201 /);
    expect(received.toLowerCase()).toContain("connection: close");
    expect(await exited).toBe(0);
    expect(await storefrontCount()).toBe((before ?? 0) + 1);
  }, 60_000);
});
