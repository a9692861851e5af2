import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { dbReady, queryRows } from "@/server/db/client";
import { env, poolerInUse } from "@/server/env";
import { createMerchant } from "@/server/storefronts/testing";
import { type ProductionServer, startProductionServer } from "@/server/testing/production-server";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { createTestEndpoint, type Receiver, setTestEnv, startReceiver } from "@/server/webhooks/testing";
import { JOB_NAMES } from "@/server/wiring/jobs";

/**
 * Several hosts on one database (docs/operations.md, "Several machines" and "Poolers"): two production starts,
 * each with its own port and DATA_DIR (two "hosts"), on one PostgreSQL database, their pools through PgBouncer in
 * transaction mode (the PostgreSQL pass's DATABASE_URL) and their sessions direct (DIRECT_DATABASE_URL).
 */
const JOBS_PERIOD_SECONDS = 3;

type View = { status: number; text: string; startedAt: number };

async function view(url: string): Promise<View> {
  const startedAt = performance.now();
  const res = await fetch(url, { headers: { connection: "close" } });
  return { status: res.status, text: await res.text(), startedAt };
}

/**
 * Views `url` until `seen` holds and returns how long after `since` the first view that showed it was asked for
 * (the moment the change had reached that host; the render that follows is not propagation).
 */
async function propagation(url: string, since: number, seen: (v: View) => boolean): Promise<number> {
  const deadline = since + 30_000;
  for (;;) {
    const v = await view(url);
    if (seen(v)) return Math.max(0, v.startedAt - since);
    if (performance.now() > deadline) throw new Error(`not seen within 30 s: ${v.status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

type JobLine = { job: string; host: string; period: string };

function jobLines(output: string): JobLine[] {
  const lines: JobLine[] = [];
  for (const line of output.split("\n")) {
    if (!line.includes('"scheduled job ran"')) continue;
    try {
      const entry = JSON.parse(line) as Partial<JobLine>;
      if (entry.job && entry.host && entry.period)
        lines.push({ job: entry.job, host: entry.host, period: entry.period });
    } catch {
      // a line cut by the pipe: not one of ours
    }
  }
  return lines;
}

describe.skipIf(testDatabaseKind() !== "postgres")("two hosts on one database through PgBouncer", () => {
  let a: ProductionServer;
  let b: ProductionServer;
  let receiver: Receiver;
  const dataDirs: string[] = [];
  const secretsKey = randomBytes(32).toString("hex");
  const metricsToken = randomBytes(16).toString("hex");

  beforeAll(async () => {
    // One key on every host (docs/operations.md, "Several machines"), and in this process, which makes endpoints.
    setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1", SECRETS_KEY: secretsKey });
    receiver = await startReceiver();
    const host = () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "marea-host-"));
      dataDirs.push(dir);
      return startProductionServer({
        DATABASE_URL: env().DATABASE_URL,
        DIRECT_DATABASE_URL: env().DIRECT_DATABASE_URL,
        DATA_DIR: dir,
        SECRETS_KEY: secretsKey,
        UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
        JOBS_PERIOD_SECONDS: String(JOBS_PERIOD_SECONDS),
        METRICS_TOKEN: metricsToken,
        LOG_LEVEL: "info",
      });
    };
    [a, b] = await Promise.all([host(), host()]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await receiver?.close();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it("the pool goes through the pooler, the sessions do not (the PostgreSQL pass's setup)", () => {
    expect(poolerInUse(env().DATABASE_URL, env().DIRECT_DATABASE_URL)).toBe(true);
    expect(env().DATABASE_PREPARED_STATEMENTS).toBe("false");
  });

  it("a publish, a price change and an unpublish on host A show on host B's public page within 1 s", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const headers = { authorization: `Bearer ${merchant.userKey}`, "content-type": "application/json" };
    const slug = `mh-${randomBytes(4).toString("hex")}`;
    const created = await fetch(`${a.baseUrl}/v1/storefronts`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        name: "Two Hosts Bakery",
        slug,
        language: "en",
        currency: "MXN",
        products: [{ title: "Rye loaf", price: 111.11 }],
      }),
    }).then((r) => r.json() as Promise<{ storefront: { id: string }; products: Array<{ id: string }> }>);
    const storefrontId = created.storefront.id;
    const productId = created.products[0]?.id ?? "";
    const pageOnB = `${b.baseUrl}/s/${slug}`;
    const changeOnA = async (method: string, target: string, body?: unknown) => {
      const res = await fetch(`${a.baseUrl}/v1/storefronts/${storefrontId}${target}`, {
        method,
        headers,
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      return performance.now();
    };
    // B caches the page as it is: a 404 while unpublished (twice: the second view is served from B's cache).
    expect((await view(pageOnB)).status).toBe(404);
    expect((await view(pageOnB)).status).toBe(404);

    const published = await propagation(
      pageOnB,
      await changeOnA("POST", "/publish"),
      (v) => v.status === 200,
    );
    // Cached on B with the old price; then the price changes on A.
    expect((await view(pageOnB)).text).toContain("111.11");
    expect((await view(pageOnB)).text).toContain("111.11");
    const priced = await propagation(
      pageOnB,
      await changeOnA("PATCH", `/products/${productId}`, { price: 222.22 }),
      (v) => v.status === 200 && v.text.includes("222.22") && !v.text.includes("111.11"),
    );
    const unpublished = await propagation(
      pageOnB,
      await changeOnA("POST", "/unpublish"),
      (v) => v.status === 404,
    );
    console.log(
      `propagation A -> B (ms): publish ${published.toFixed(0)}, price ${priced.toFixed(0)}, unpublish ${unpublished.toFixed(0)}`,
    );
    // Without the relay, B would answer from its cache until the pages' 60 s revalidate passed.
    expect(published).toBeLessThan(1000);
    expect(priced).toBeLessThan(1000);
    expect(unpublished).toBeLessThan(1000);
  }, 120_000);

  it("every webhook event is delivered once, with one attempt, whichever host made it", async () => {
    const developer = await createDeveloper();
    const merchant = await createMerchant({ developerKey: developer.key });
    const hookPath = `/hosts-${randomBytes(3).toString("hex")}`;
    await createTestEndpoint(developer.key, {
      url: `http://127.0.0.1:${receiver.port}${hookPath}`,
      subscribedEvents: ["order.created"],
    });
    const headers = { authorization: `Bearer ${merchant.userKey}`, "content-type": "application/json" };
    const store = await fetch(`${a.baseUrl}/v1/storefronts`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        name: "Hosts Deli",
        language: "es",
        currency: "MXN",
        products: [{ title: "Torta", price: 50 }],
      }),
    }).then((r) => r.json() as Promise<{ storefront: { id: string }; products: Array<{ id: string }> }>);
    const orders = 30;
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: orders }, async (_, i) => {
        // As a partner does (docs/api.md, "Idempotency"): a 503 on a loaded machine (the pool's wait bound) is
        // sent again with the same Idempotency-Key, so each order still exists once.
        const idempotencyKey = `hosts-${hookPath}-${i}`;
        for (let attempt = 0; ; attempt++) {
          const r = await fetch(
            `${(i % 2 === 0 ? a : b).baseUrl}/v1/storefronts/${store.storefront.id}/orders`,
            {
              method: "POST",
              headers: { ...headers, "idempotency-key": idempotencyKey },
              body: JSON.stringify({
                items: [{ productId: store.products[0]?.id, amount: 1 }],
                customer: { name: `Client ${i}`, phone: "+525512345678" },
                paymentMethod: { name: "Efectivo" },
              }),
            },
          );
          await r.arrayBuffer();
          if (r.status !== 503 || attempt === 5) return r.status;
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }),
    );
    expect(answers.every((s) => s === 201)).toBe(true);
    const mine = () => receiver.requests.filter((r) => r.path === hookPath);
    await receiver.waitFor(() => new Set(mine().map((r) => r.eventId)).size === orders, 60_000);
    const allDeliveredMs = performance.now() - started;
    // Both hosts' workers keep running: a late duplicate would arrive now.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(mine()).toHaveLength(orders);
    const rows = await queryRows<{ status: string; attempt_count: number; attempts: number }>(
      await dbReady(),
      sql`select d.status, d.attempt_count, jsonb_array_length(d.attempts)::int as attempts
          from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
          where e.url = ${`http://127.0.0.1:${receiver.port}${hookPath}`}`,
    );
    expect(rows).toHaveLength(orders);
    for (const row of rows) expect(row).toEqual({ status: "delivered", attempt_count: 1, attempts: 1 });
    console.log(
      `${orders} orders alternating hosts: every event delivered once within ${allDeliveredMs.toFixed(0)} ms`,
    );
  }, 120_000);

  it("each scheduled job runs once per period across both hosts, logged with its host", async () => {
    // Both hosts look for due jobs every JOBS_PERIOD_SECONDS / 4; let several periods pass.
    const periodMs = JOBS_PERIOD_SECONDS * 1000;
    const firstPeriod = Math.floor(Date.now() / periodMs) * periodMs + periodMs;
    await new Promise((resolve) => setTimeout(resolve, firstPeriod - Date.now() + 4 * periodMs));
    const lastPeriod = Math.floor(Date.now() / periodMs) * periodMs - periodMs;
    const runs = [...jobLines(a.output()), ...jobLines(b.output())];
    const hosts = new Set(runs.map((r) => r.host));
    for (const job of JOB_NAMES) {
      const periods = runs
        .filter((r) => r.job === job)
        .map((r) => Date.parse(r.period))
        .filter((p) => p >= firstPeriod && p <= lastPeriod);
      // once per period: no period twice, none missed
      expect(new Set(periods).size, `${job} ran twice in one period`).toBe(periods.length);
      const expected = (lastPeriod - firstPeriod) / periodMs + 1;
      expect(periods.length, `${job}: ${periods.length} runs in ${expected} periods`).toBe(expected);
    }
    const perHost = [...hosts].map((h) => `${h}: ${runs.filter((r) => r.host === h).length}`);
    console.log(`scheduled job runs by host: ${perHost.join(", ")}`);
    // Two hosts, each named by hostname:pid.
    expect(hosts.size).toBeLessThanOrEqual(2);
    for (const h of hosts) expect(h).toMatch(/^.+:\d+$/);
  }, 120_000);

  it('each host\'s /metrics counts the requests that host served (docs/operations.md, "Metrics")', async () => {
    const merchant = await createMerchant();
    const me = (host: ProductionServer) =>
      fetch(`${host.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${merchant.userKey}` } }).then(
        (r) => {
          expect(r.status).toBe(200);
          return r.arrayBuffer();
        },
      );
    for (let i = 0; i < 3; i++) await me(a);
    for (let i = 0; i < 5; i++) await me(b);
    const served = async (host: ProductionServer) => {
      const res = await fetch(`${host.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${metricsToken}` },
      });
      expect(res.status).toBe(200);
      const line = (await res.text())
        .split("\n")
        .find(
          (l) =>
            l.startsWith("marea_http_requests_total{") &&
            l.includes('route="/v1/me"') &&
            l.includes('method="GET"') &&
            l.includes('status="200"'),
        );
      return Number(line?.slice(line.lastIndexOf(" ") + 1) ?? 0);
    };
    // Each host counts its own: the metrics are per process, summed by the operator's Prometheus.
    expect(await served(a)).toBe(3);
    expect(await served(b)).toBe(5);
  }, 60_000);
});
