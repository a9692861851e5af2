import { createServer, request as httpRequest, type Server } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { env } from "@/server/env";
import { ErrorEnvelope } from "@/server/errors";
import {
  doorOf,
  metricsAuthorized,
  nextRoutePatterns,
  pathnameOf,
  routeOf,
} from "@/server/host/observability";
import { createMerchant, type Merchant } from "@/server/storefronts/testing";
import { freePort, type ProductionServer, startProductionServer } from "@/server/testing/production-server";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { emitEvent } from "@/server/webhooks/events";
import {
  createTestEndpoint,
  eventually,
  type Receiver,
  setTestEnv,
  startReceiver,
} from "@/server/webhooks/testing";
import { runJob } from "@/server/wiring/jobs";
import { metrics, metricsText } from "./metrics";

// docs/operations.md, "Observability": /metrics (off by default; METRICS_TOKEN on PORT, or METRICS_PORT), OTLP
// traces when OTEL_EXPORTER_OTLP_ENDPOINT is set, one access-log line per request. Against the production start.

type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
};

/** A real OTLP/HTTP receiver: collects every span POSTed to /v1/traces (JSON, gzip or not). */
async function startOtlpReceiver(): Promise<{ url: string; spans: OtlpSpan[]; close: () => Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      if (req.url === "/v1/traces" && String(req.headers["content-type"]).includes("json")) {
        const payload = JSON.parse(body.toString("utf8")) as {
          resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
        };
        for (const rs of payload.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function attribute(span: OtlpSpan, key: string): unknown {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
}

/** The value of one sample line (`name{labels} value`) of a scrape, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const ok = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (ok) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

/** A GET on a connection of its own, so a cluster's primary hands each to the next worker. */
function getFresh(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false, headers }, (res) => {
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

describe("request names: bounded labels", () => {
  it("the route label is a pattern, never a raw id or slug; the query string never reaches the path", () => {
    const next = nextRoutePatterns(".next");
    const patterns = {
      v1: (p: string) => (p.startsWith("/v1/storefronts/") ? "/v1/storefronts/{id}" : "unmatched"),
      next,
    };
    expect(routeOf("v1", "/v1/storefronts/stf_01ABC", patterns)).toBe("/v1/storefronts/{id}");
    expect(routeOf("trpc", "/api/trpc/a.b,c.d", patterns)).toBe("/api/trpc/[procedure]");
    expect(doorOf(null, "/_next/static/chunks/x.js")).toBe("static");
    expect(doorOf(null, "/oauth/token")).toBe("oauth");
    expect(doorOf(null, "/s/my-shop")).toBe("pages");
    expect(pathnameOf("/s/shop/orders/ord_1?t=secret")).toBe("/s/shop/orders/ord_1");
    expect(next("/_next/static/chunks/abc.js")).toBe("/_next/static");
    if (!next("/signin").startsWith("/")) return; // no build in this checkout: the pattern rules above still hold
    expect(next("/s/my-shop")).toBe("/s/[slug]");
    expect(next("/s/my-shop/orders/ord_01X")).toBe("/s/[slug]/orders/[orderId]");
    expect(next("/docs/api")).toBe("/docs/api");
    expect(next("/docs/webhooks")).toBe("/docs/[guide]");
    expect(next("/no/such/page")).toBe("unmatched");
  });

  it("METRICS_TOKEN: a bearer token compared over digests; anything else is refused", () => {
    const token = "m".repeat(32);
    expect(metricsAuthorized(`Bearer ${token}`, token)).toBe(true);
    expect(metricsAuthorized(`bearer ${token}`, token)).toBe(true);
    expect(metricsAuthorized(`Bearer ${token}x`, token)).toBe(false);
    expect(metricsAuthorized(`Bearer ${token.slice(1)}`, token)).toBe(false);
    expect(metricsAuthorized(token, token)).toBe(false);
    expect(metricsAuthorized(undefined, token)).toBe(false);
    expect(metricsAuthorized(undefined, undefined)).toBe(true);
  });
});

describe("job runs are counted and timed", () => {
  afterAll(() => setTestEnv({ METRICS_TOKEN: undefined }));

  it("a run of a scheduled job shows in marea_job_runs_total and marea_job_duration_seconds", async () => {
    setTestEnv({ METRICS_TOKEN: "j".repeat(32) });
    (globalThis as Record<symbol, unknown>)[Symbol.for("marea.metrics")] = undefined;
    expect(metrics()).not.toBeNull();
    const db = await dbReady();
    await runJob(db, "purge-idempotency-keys", new Date());
    await runJob(db, "purge-idempotency-keys", new Date());
    const text = await metricsText();
    expect(sample(text, "marea_job_runs_total", { job: "purge-idempotency-keys", outcome: "ok" })).toBe(2);
    expect(
      sample(text, "marea_job_duration_seconds_count", { job: "purge-idempotency-keys", outcome: "ok" }),
    ).toBe(2);
  });
});

describe.skipIf(testDatabaseKind() !== "postgres")(
  "one production server with METRICS_TOKEN and OTLP traces",
  () => {
    const token = "s3cr3t-metrics-token-0123456789";
    let server: ProductionServer;
    let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
    let hooks: Receiver;
    let merchant: Merchant;

    beforeAll(async () => {
      setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1" });
      otlp = await startOtlpReceiver();
      hooks = await startReceiver();
      server = await startProductionServer({
        DATABASE_URL: env().DATABASE_URL,
        DATA_DIR: env().DATA_DIR,
        LOG_LEVEL: "info",
        METRICS_TOKEN: token,
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_BSP_SCHEDULE_DELAY: "100",
        UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
        WEBHOOK_WORKER_POLL_MS: "200",
      });
      merchant = await createMerchant({ plan: "PRO", verified: true });
    }, 90_000);

    afterAll(async () => {
      await server?.stop();
      await otlp?.close();
      await hooks?.close();
    });

    it("/metrics needs the token (401 in the error envelope), and counts the requests served by door, route pattern and status", async () => {
      const me = await fetch(`${server.baseUrl}/v1/me`, {
        headers: { authorization: `Bearer ${merchant.userKey}` },
      });
      expect(me.status).toBe(200);
      await me.arrayBuffer();
      for (let i = 0; i < 3; i++) {
        const missing = await fetch(`${server.baseUrl}/v1/storefronts/stf_01NOSUCHSTOREFRONT${i}`, {
          headers: { authorization: `Bearer ${merchant.userKey}` },
        });
        expect(missing.status).toBe(404);
        await missing.arrayBuffer();
      }
      const page = await fetch(`${server.baseUrl}/s/no-such-shop-${Date.now()}`);
      await page.arrayBuffer();

      const anonymous = await fetch(`${server.baseUrl}/metrics`);
      expect(anonymous.status).toBe(401);
      expect(ErrorEnvelope.parse(await anonymous.json()).error.code).toBe("missing_authorization");
      const wrong = await fetch(`${server.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${token}x` },
      });
      expect(wrong.status).toBe(401);
      expect(ErrorEnvelope.parse(await wrong.json()).error.code).toBe("invalid_api_key");

      const scrape = await fetch(`${server.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(scrape.status).toBe(200);
      expect(scrape.headers.get("content-type")).toContain("text/plain");
      const text = await scrape.text();
      const requests = "marea_http_requests_total";
      expect(sample(text, requests, { door: "v1", route: "/v1/me", method: "GET", status: "200" })).toBe(1);
      expect(
        sample(text, requests, { door: "v1", route: "/v1/storefronts/{storefrontId}", status: "404" }),
      ).toBe(3);
      expect(sample(text, requests, { door: "pages", route: "/s/[slug]" })).toBe(1);
      expect(
        sample(text, requests, { door: "health", route: "/healthz", status: "200" }),
      ).toBeGreaterThanOrEqual(1);
      expect(
        sample(text, "marea_http_request_duration_seconds_count", { route: "/v1/me", status: "200" }),
      ).toBe(1);
      // Bounded labels: no raw id, slug or query string in any series.
      expect(text).not.toContain("stf_01NOSUCH");
      expect(text).not.toContain("no-such-shop");
      expect(sample(text, "marea_db_pool_max", {})).toBe(10);
      expect(sample(text, "marea_db_pool_waiters", {})).toBe(0);
      expect(sample(text, "marea_webhook_queue_open", {})).toBeGreaterThanOrEqual(0);
      expect(sample(text, "marea_webhook_queue_oldest_due_age_seconds", {})).toBeGreaterThanOrEqual(0);
      expect(text).toContain("process_cpu_seconds_total");
    });

    it("access log: one JSON line per request on stdout with the answer's request id, the path without its query, no secrets", async () => {
      const secret = `tok${Date.now()}`;
      // An unknown query parameter is refused (400): the line still has the path only.
      const me = await fetch(`${server.baseUrl}/v1/me?access_token=${secret}`, {
        headers: { authorization: `Bearer ${merchant.userKey}` },
      });
      await me.arrayBuffer();
      const requestId = me.headers.get("x-request-id");
      expect(requestId).toMatch(/^req_/);
      const page = await fetch(`${server.baseUrl}/signin?t=${secret}`);
      await page.arrayBuffer();
      const pageId = page.headers.get("x-request-id");
      expect(pageId).toMatch(/^req_/);
      const lines = await eventually(async () => {
        const found = server
          .output()
          .split("\n")
          .filter((l) => l.startsWith("{") && l.includes('"msg":"request"'))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        return found.some((l) => l.request_id === pageId) ? found : undefined;
      });
      const line = lines.find((l) => l.request_id === requestId);
      expect(line).toMatchObject({
        level: "info",
        method: "GET",
        path: "/v1/me",
        door: "v1",
        route: "/v1/me",
        status: 400,
      });
      expect(typeof line?.duration_ms).toBe("number");
      expect(lines.find((l) => l.request_id === pageId)).toMatchObject({
        path: "/signin",
        door: "pages",
        status: 200,
      });
      expect(lines.filter((l) => l.request_id === requestId)).toHaveLength(1);
      expect(server.output()).not.toContain(secret);
      expect(server.output()).not.toContain(merchant.userKey);
    });

    it("traces: the door's span, its database statements as children, and each webhook delivery attempt reach the OTLP receiver", async () => {
      const me = await fetch(`${server.baseUrl}/v1/me`, {
        headers: { authorization: `Bearer ${merchant.userKey}` },
      });
      await me.arrayBuffer();
      const requestId = me.headers.get("x-request-id");
      const door = await eventually(
        async () =>
          otlp.spans.find((s) => s.name === "GET /v1/me" && attribute(s, "marea.request_id") === requestId),
        15_000,
      );
      expect(door.kind).toBe(2); // SERVER
      expect(attribute(door, "http.route")).toBe("/v1/me");
      expect(attribute(door, "http.response.status_code")).toBe(200);
      // Every statement the call made is in the same trace, under the door's span.
      const statements = await eventually(async () => {
        const found = otlp.spans.filter((s) => s.traceId === door.traceId && s.name.startsWith("db "));
        return found.length > 0 ? found : undefined;
      }, 15_000);
      const inTrace = new Map(otlp.spans.filter((s) => s.traceId === door.traceId).map((s) => [s.spanId, s]));
      for (const statement of statements) {
        expect(attribute(statement, "db.system.name")).toBe("postgresql");
        let parent = statement.parentSpanId ? inTrace.get(statement.parentSpanId) : undefined;
        while (parent && parent !== door && parent.parentSpanId) parent = inTrace.get(parent.parentSpanId);
        expect(parent?.spanId).toBe(door.spanId);
      }

      // A webhook delivery: one attempt span, and the attempt counted by outcome.
      const dev = await createDeveloper();
      const path = `/otel-${Math.random().toString(36).slice(2, 8)}`;
      await createTestEndpoint(dev.key, {
        url: `http://127.0.0.1:${hooks.port}${path}`,
        subscribedEvents: ["user.verified"],
      });
      const user = await bootstrapUser(dev.key);
      const event = await inTransaction(await dbReady(), (tx) =>
        emitEvent(
          tx,
          {
            type: "user.verified",
            accountId: user.userId,
            data: { userId: user.userId, developerKeyId: dev.keyId, verifiedAt: new Date().toISOString() },
          },
          new Date(),
        ),
      );
      await hooks.waitFor(() => hooks.requests.some((r) => r.path === path), 30_000);
      const attempt = await eventually(
        async () =>
          otlp.spans.find(
            (s) =>
              s.name === "webhook attempt" &&
              attribute(s, "marea.event_type") === "user.verified" &&
              attribute(s, "marea.outcome") === "success",
          ),
        15_000,
      );
      expect(attribute(attempt, "http.response.status_code")).toBe(200);
      expect(event.eventId).toBeTruthy();
      const text = await (
        await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } })
      ).text();
      expect(sample(text, "marea_webhook_attempts_total", { outcome: "success" })).toBeGreaterThanOrEqual(1);
      expect(
        sample(text, "marea_webhook_attempt_duration_seconds_count", { outcome: "success" }),
      ).toBeGreaterThanOrEqual(1);
    }, 60_000);
  },
);

describe.skipIf(testDatabaseKind() !== "postgres")("WEB_CONCURRENCY=2 with METRICS_PORT", () => {
  let server: ProductionServer;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    server = await startProductionServer({
      DATABASE_URL: env().DATABASE_URL,
      DATA_DIR: env().DATA_DIR,
      WORKER: "off",
      WEB_CONCURRENCY: "2",
      METRICS_PORT: String(metricsPort),
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("the metrics port answers the sum of both processes; PORT has no /metrics", async () => {
    // Both processes up and counted: their pools' sizes add up.
    const before = await eventually(async () => {
      const scrape = await getFresh(`http://127.0.0.1:${metricsPort}/metrics`);
      return scrape.status === 200 && sample(scrape.text, "marea_db_pool_max", {}) === 20
        ? scrape
        : undefined;
    }, 60_000);
    const served = (text: string) =>
      sample(text, "marea_http_requests_total", { door: "health", route: "/healthz", status: "200" }) ?? 0;
    const start = served(before.text);
    for (let i = 0; i < 20; i++) expect((await getFresh(`${server.baseUrl}/healthz`)).status).toBe(200);
    const after = await getFresh(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(served(after.text) - start).toBe(20);
    expect((await getFresh(`${server.baseUrl}/metrics`)).status).toBe(404);
    expect((await getFresh(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
  }, 60_000);
});
