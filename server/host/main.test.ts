import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { dbReady, queryRows } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { env } from "@/server/env";
import { ErrorEnvelope } from "@/server/errors";
import { MAX_BODY_BYTES } from "@/server/http/pipeline";
import { createMerchant, type Merchant } from "@/server/storefronts/testing";
import {
  PRODUCTION_START,
  type ProductionServer,
  startProductionServer,
} from "@/server/testing/production-server";
import { rawExchange } from "@/server/testing/raw-http";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { emitEvent } from "@/server/webhooks/events";
import {
  createTestEndpoint,
  eventually,
  type Receiver,
  setTestEnv,
  startReceiver,
} from "@/server/webhooks/testing";
import { directRoute } from "./fast-doors";

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

function envelopeOf(text: string) {
  return ErrorEnvelope.parse(JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4))).error;
}

describe("which paths skip Next", () => {
  it("/v1 and below; /healthz, /api/graphql, /mcp and /api/trpc with their routes' methods; everything else is Next's", () => {
    expect(directRoute("GET", "/v1/me")).toBe("v1");
    expect(directRoute("POST", "/v1")).toBe("v1");
    expect(directRoute("GET", "/v1?x=1")).toBe("v1");
    expect(directRoute("GET", "/v1/stor%ZZefronts")).toBe("v1");
    expect(directRoute("GET", "/healthz")).toBe("health");
    expect(directRoute("HEAD", "/healthz?probe=1")).toBe("health");
    expect(directRoute("POST", "/healthz")).toBeNull();
    expect(directRoute("POST", "/api/graphql")).toBe("graphql");
    expect(directRoute("GET", "/api/graphql?query=%7Bme%7D")).toBe("graphql");
    expect(directRoute("OPTIONS", "/api/graphql")).toBeNull();
    expect(directRoute("POST", "/mcp")).toBe("mcp");
    expect(directRoute("DELETE", "/mcp")).toBe("mcp");
    expect(directRoute("PUT", "/mcp")).toBeNull();
    expect(directRoute("GET", "/api/trpc/webhooks.listDeliveries?input=%7B%7D")).toBe("trpc");
    expect(directRoute("POST", "/api/trpc/accounts.createKey,accounts.listKeys?batch=1")).toBe("trpc");
    expect(directRoute("DELETE", "/api/trpc/accounts.listKeys")).toBeNull();
    for (const target of [
      "/v10",
      "/v1x",
      "//v1/me",
      "/api/graphql/",
      "/api/trpc",
      "/api/trpcx/a",
      "/api/graphqlx",
      "/mcp/",
      "/mcpx",
      "/s/x",
      "/",
      "http://h/v1/me",
    ])
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

  // In the PGlite pass only (CI runs both): it opens a fresh embedded database, about 20 s here.
  it.skipIf(testDatabaseKind() !== "pglite")(
    "one process serves /healthz, /v1 and pages (README's start: no DATABASE_URL)",
    async () => {
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
    },
    90_000,
  );
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
    const answer = await rawExchange(
      server.port,
      [
        `POST /v1/storefronts HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${merchant.userKey}\r\n` +
          "content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n",
        chunk(bytes.subarray(0, half)),
        chunk(bytes.subarray(half)),
        "0\r\n\r\n",
      ],
      10_000,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(envelopeOf(answer).code).toBe("payload_too_large");
    expect(await storefrontCount()).toBe((before ?? 0) + 1);
  });

  it("a client that hangs up mid-body: nothing is written, and the process goes on serving", async () => {
    const before = await storefrontCount();
    const body = JSON.stringify({ name: "Never finished", language: "es", currency: "MXN" });
    await rawExchange(
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

/** The pids of this process group's processes named `name` (Linux /proc). */
function processesNamed(name: string, group: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (comm === name && Number(fields[2]) === group) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

// docs/operations.md, "Several processes": WEB_CONCURRENCY workers share the port on one PostgreSQL database;
// rate limits, idempotency and webhook claims stay exact across them, and public pages see every change.
describe.skipIf(testDatabaseKind() !== "postgres")("WEB_CONCURRENCY=2 on PostgreSQL (node:cluster)", () => {
  let server: ProductionServer;
  let receiver: Receiver;

  beforeAll(async () => {
    setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1" });
    receiver = await startReceiver();
    server = await startProductionServer({
      DATABASE_URL: env().DATABASE_URL,
      DATA_DIR: env().DATA_DIR,
      WEB_CONCURRENCY: "2",
      UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
      WEBHOOK_WORKER_POLL_MS: "200",
    });
    // Both workers listening: the primary hands connections only to those.
    await eventually(async () => processesNamed("marea-server", server.pid).length === 2, 60_000);
    await eventually(async () => {
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => getFresh(`${server.baseUrl}/healthz`)),
      );
      return answers.every((a) => a.status === 200);
    }, 60_000);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it("one primary and two server processes share the port", () => {
    expect(processesNamed("marea-primary", server.pid)).toEqual([server.pid]);
    expect(processesNamed("marea-server", server.pid)).toHaveLength(2);
  });

  it("rate limits stay exact: 100 concurrent requests for a key of 60 a minute admit exactly 60", async () => {
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 50));
    const dev = await createDeveloper({ rpm: 60 });
    const statuses = await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(`${server.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${dev.key}` } }).then(
          async (r) => {
            await r.arrayBuffer();
            return r.status;
          },
        ),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
  });

  it("idempotency stays exact: 20 concurrent creates with one Idempotency-Key make one storefront", async () => {
    const merchant = await createMerchant();
    const body = JSON.stringify({ name: "Once only", language: "es", currency: "MXN" });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${server.baseUrl}/v1/storefronts`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${merchant.userKey}`,
            "content-type": "application/json",
            "idempotency-key": "cluster-once",
          },
          body,
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> })),
      ),
    );
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status).toBe(409);
      expect(ErrorEnvelope.parse(a.body).error.code).toBe("idempotency_request_in_progress");
    }
    const ids = new Set(created.map((a) => (a.body.storefront as { id: string }).id));
    expect(ids.size).toBe(1);
    const rows = await queryRows<{ n: number }>(
      await dbReady(),
      sql`select count(*)::int as n from storefronts where account_id = ${merchant.userId}`,
    );
    expect(rows[0]?.n).toBe(1);
  });

  it("webhook claims stay exact: 300 events, both processes' workers running, each delivered once", async () => {
    const dev = await createDeveloper();
    const user = await bootstrapUser(dev.key);
    const hookPath = `/cluster-${Math.random().toString(36).slice(2, 8)}`;
    await createTestEndpoint(dev.key, {
      url: `http://127.0.0.1:${receiver.port}${hookPath}`,
      subscribedEvents: ["user.verified"],
    });
    const db = await dbReady();
    const ids: string[] = [];
    for (let start = 0; start < 300; start += 100) {
      await inTransaction(db, async (tx) => {
        for (let i = start; i < start + 100; i++) {
          const event = await emitEvent(
            tx,
            {
              type: "user.verified",
              accountId: user.userId,
              data: { userId: user.userId, developerKeyId: dev.keyId, verifiedAt: new Date().toISOString() },
            },
            new Date(),
          );
          ids.push(event.eventId);
        }
      });
    }
    const mine = () => receiver.requests.filter((r) => r.path === hookPath);
    await receiver.waitFor(() => new Set(mine().map((r) => r.eventId)).size === 300, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mine()).toHaveLength(300);
    expect(new Set(mine().map((r) => r.eventId))).toEqual(new Set(ids));
  }, 90_000);

  it("a storefront change made through one process expires the public page in the other at once", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const headers = { authorization: `Bearer ${merchant.userKey}`, "content-type": "application/json" };
    const created = await fetch(`${server.baseUrl}/v1/storefronts`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Before Bakery", language: "en", currency: "MXN" }),
    }).then((r) => r.json() as Promise<{ storefront: { id: string } }>);
    const published = await fetch(`${server.baseUrl}/v1/storefronts/${created.storefront.id}/publish`, {
      method: "POST",
      headers,
    }).then((r) => r.json() as Promise<{ storefront: { slug: string } }>);
    const page = `${server.baseUrl}/s/${published.storefront.slug}`;
    // Each worker renders and caches the page (connections alternate between them).
    for (const view of await Promise.all(Array.from({ length: 6 }, () => getFresh(page)))) {
      expect(view.status).toBe(200);
      expect(view.text).toContain("Before Bakery");
    }
    const patched = await fetch(`${server.baseUrl}/v1/storefronts/${created.storefront.id}`, {
      method: "PATCH",
      headers,
      body: JSON.stringify({ name: "After Bakery" }),
    });
    expect(patched.status).toBe(200);
    await patched.arrayBuffer();
    // Without the relay, the worker that did not make the change would serve "Before" for up to a minute.
    await eventually(async () => {
      const views = await Promise.all(Array.from({ length: 6 }, () => getFresh(page)));
      return views.every((v) => v.text.includes("After Bakery") && !v.text.includes("Before Bakery"));
    }, 3000);
  });
});
