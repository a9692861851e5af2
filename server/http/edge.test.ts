import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env } from "@/server/env";
import { createMerchant } from "@/server/storefronts/testing";
import { type ProductionServer, startProductionServer } from "@/server/testing/production-server";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { inlineScriptHashes } from "./page-script-hashes";
import { PEER_HEADER } from "./peer";

// docs/security.md: what the production start (server/host/main.ts) does on every request before any handler:
// the client address of the per-IP limits, the security headers, /dev/mail and the Host names pages answer
// for. These tests run the real production start over the `.next` build, reached directly and through a real
// loopback "proxy" (a node:http forwarder that sets X-Forwarded-For as a load balancer would).

/** What the forwarder does to X-Forwarded-For: the client it stands for, or an exact value (garbage included). */
type ForwardAs = { client: string } | { exactly: string };

type Proxy = { port: number; close: () => Promise<void> };

/**
 * A reverse proxy on loopback in front of `target`: every request is forwarded with its method, path, headers and
 * body; X-Forwarded-For is the incoming value with the client appended (as nginx's `$proxy_add_x_forwarded_for`),
 * or exactly the value the test chose. The client comes from the `x-test-client` header, which is dropped.
 */
async function startProxy(target: number): Promise<Proxy> {
  const server: Server = createServer((req, res) => {
    const headers: IncomingHttpHeaders = { ...req.headers };
    const mode = JSON.parse(String(headers["x-test-forward"] ?? "{}")) as Partial<ForwardAs> &
      Record<string, string>;
    delete headers["x-test-forward"];
    delete headers.connection;
    if (mode.exactly !== undefined) headers["x-forwarded-for"] = mode.exactly;
    else if (mode.client !== undefined)
      headers["x-forwarded-for"] = headers["x-forwarded-for"]
        ? `${headers["x-forwarded-for"]}, ${mode.client}`
        : mode.client;
    const upstream = httpRequest(
      { host: "127.0.0.1", port: target, method: req.method, path: req.url, headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      res.statusCode = 502;
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A checkout body that passes validation; the store does not exist, so each counted order answers 404. */
const ORDER = JSON.stringify({
  items: [{ productId: "prd_nobody", amount: 1 }],
  customer: { name: "Ana", phone: "+5215512345678" },
  paymentMethod: { name: "Efectivo" },
});

async function postOrder(
  base: string,
  origin: string,
  options: { headers?: Record<string, string>; via?: ForwardAs } = {},
): Promise<number> {
  const res = await fetch(`${base}/s/no-such-store-${Date.now()}/orders`, {
    method: "POST",
    headers: {
      origin,
      "content-type": "application/json",
      ...(options.via ? { "x-test-forward": JSON.stringify(options.via) } : {}),
      ...options.headers,
    },
    body: ORDER,
  });
  await res.arrayBuffer();
  return res.status;
}

/** Waits for a fresh minute when less than `needMs` of this one is left: the order limit is 10 a minute. */
async function freshMinuteFor(needMs: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

const serverEnv = () => ({ DATABASE_URL: env().DATABASE_URL, DATA_DIR: env().DATA_DIR, WORKER: "off" });

describe.skipIf(testDatabaseKind() !== "postgres")("the production start's edge (docs/security.md)", () => {
  let plain: ProductionServer;
  let trusting: ProductionServer;
  let plainProxy: Proxy;
  let trustingProxy: Proxy;

  beforeAll(async () => {
    [plain, trusting] = await Promise.all([
      startProductionServer({ ...serverEnv(), SMTP_URL: undefined, DEV_MAIL: undefined }),
      startProductionServer({ ...serverEnv(), TRUSTED_PROXIES: "127.0.0.1, ::1" }),
    ]);
    [plainProxy, trustingProxy] = await Promise.all([startProxy(plain.port), startProxy(trusting.port)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([plainProxy?.close(), trustingProxy?.close()]);
    await Promise.all([plain?.stop(), trusting?.stop()]);
  });

  it("M1: without TRUSTED_PROXIES every request counts on the socket's peer, whatever it says: rotated, garbage, empty or forged addresses share one bucket", async () => {
    await freshMinuteFor(20_000);
    const proxied = `http://127.0.0.1:${plainProxy.port}`;
    const attempts: Array<() => Promise<number>> = [
      () => postOrder(plain.baseUrl, plain.baseUrl, { headers: { "x-forwarded-for": "203.0.113.1" } }),
      () => postOrder(plain.baseUrl, plain.baseUrl, { headers: { "x-forwarded-for": "203.0.113.2" } }),
      () => postOrder(plain.baseUrl, plain.baseUrl, { headers: { "x-forwarded-for": "x" } }),
      () => postOrder(plain.baseUrl, plain.baseUrl, { headers: { "x-forwarded-for": "" } }),
      () => postOrder(plain.baseUrl, plain.baseUrl, { headers: { "x-real-ip": "203.0.113.3" } }),
      () => postOrder(plain.baseUrl, plain.baseUrl, { headers: { [PEER_HEADER]: "203.0.113.4" } }),
      () => postOrder(proxied, plain.baseUrl, { via: { client: "198.51.100.1" } }),
      () => postOrder(proxied, plain.baseUrl, { via: { client: "198.51.100.2" } }),
      () => postOrder(proxied, plain.baseUrl, { via: { exactly: "garbage" } }),
      () => postOrder(proxied, plain.baseUrl, { via: { exactly: "" } }),
    ];
    const statuses: number[] = [];
    for (const attempt of attempts) statuses.push(await attempt());
    expect(statuses).toEqual(Array(10).fill(404));
    // The 11th, under yet another address, is over the 10 a minute of the one bucket all of them share.
    expect(
      await postOrder(plain.baseUrl, plain.baseUrl, { headers: { "x-forwarded-for": "203.0.113.99" } }),
    ).toBe(429);
  });

  it("M1: with TRUSTED_PROXIES the proxy's X-Forwarded-For is believed: each client has its own bucket, and what a client prepends changes nothing", async () => {
    await freshMinuteFor(20_000);
    const proxied = `http://127.0.0.1:${trustingProxy.port}`;
    const origin = trusting.baseUrl;
    const client = `198.51.100.${10 + (Math.floor(Date.now() / 60_000) % 200)}`;
    for (let i = 0; i < 10; i++)
      expect(
        await postOrder(proxied, origin, {
          // The client's own header (a forged address each time) is kept, the proxy appends the real one.
          headers: { "x-forwarded-for": `203.0.113.${i + 1}` },
          via: { client },
        }),
      ).toBe(404);
    expect(await postOrder(proxied, origin, { via: { client } })).toBe(429);
    // Another client of the same proxy is not affected.
    expect(await postOrder(proxied, origin, { via: { client: "198.51.100.251" } })).not.toBe(429);
  });

  it("M1: with TRUSTED_PROXIES, garbage and empty X-Forwarded-For values count in ONE shared `unknown` bucket, never in none", async () => {
    await freshMinuteFor(20_000);
    const proxied = `http://127.0.0.1:${trustingProxy.port}`;
    const values = [
      "x",
      "",
      " ",
      "not-an-ip",
      "1.2.3.4.5",
      "203.0.113.9,",
      "unknown",
      "::g",
      "999.1.1.1",
      "a, b",
    ];
    for (const exactly of values)
      expect(await postOrder(proxied, trusting.baseUrl, { via: { exactly } }), JSON.stringify(exactly)).toBe(
        404,
      );
    expect(await postOrder(proxied, trusting.baseUrl, { via: { exactly: "?" } })).toBe(429);
  });

  it("M5: every answer, the direct node:http handlers' included, carries nosniff, a referrer policy, DENY framing and frame-ancestors 'none'", async () => {
    const answers = await Promise.all(
      [
        ["GET", "/v1/me"],
        ["GET", "/healthz"],
        ["POST", "/api/graphql"],
        ["POST", "/mcp"],
        ["GET", "/api/trpc/accounts.listKeys"],
        ["GET", "/v1/openapi.json"],
        ["GET", "/signin"],
        ["GET", "/no-such-page"],
        ["POST", "/signin/email"],
      ].map(async ([method, path]) => {
        const res = await fetch(`${plain.baseUrl}${path}`, {
          method,
          redirect: "manual",
          headers: { "content-type": "application/json" },
          ...(method === "POST" ? { body: "{}" } : {}),
        });
        await res.arrayBuffer();
        return { path, headers: res.headers };
      }),
    );
    for (const { path, headers } of answers) {
      expect(headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(headers.get("referrer-policy"), path).toBe("strict-origin-when-cross-origin");
      expect(headers.get("x-frame-options"), path).toBe("DENY");
      expect(headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
      // APP_URL is http here: no HSTS (server/http/security-headers.test.ts covers https).
      expect(headers.get("strict-transport-security"), path).toBeNull();
    }
  });

  it("M5: a dynamic page gets a fresh nonce that Next puts on each of its scripts, with 'strict-dynamic'", async () => {
    const pages = await Promise.all(
      [1, 2].map(async () => {
        const res = await fetch(`${plain.baseUrl}/signin`, {
          headers: { "content-security-policy": "script-src 'nonce-chosen'" },
        });
        return { policy: res.headers.get("content-security-policy") ?? "", html: await res.text() };
      }),
    );
    const nonces = pages.map((p) => p.policy.match(/'nonce-([^']+)'/)?.[1]);
    expect(nonces[0]).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(nonces[0]).not.toBe(nonces[1]);
    // A nonce a client sent is never the page's.
    expect(nonces).not.toContain("chosen");
    for (const [i, { policy, html }] of pages.entries()) {
      expect(policy).toContain("'strict-dynamic'");
      expect(policy).toMatch(
        /object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'/,
      );
      expect(policy).toMatch(/script-src [^;]*/);
      expect(policy.match(/script-src [^;]*/)?.[0]).not.toContain("unsafe-inline");
      const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1] ?? "");
      expect(scripts.length).toBeGreaterThan(0);
      for (const attributes of scripts.filter((a) => !/type="application\/ld\+json"/.test(a)))
        expect(attributes).toContain(`nonce="${nonces[i]}"`);
    }
  });

  it("M5: a cached public storefront page gets the hashes of its own inline scripts (no nonce, no private header), the same on every view", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const headers = { authorization: `Bearer ${merchant.userKey}`, "content-type": "application/json" };
    const created = (await (
      await fetch(`${plain.baseUrl}/v1/storefronts`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          name: "Hash Bakery",
          language: "es",
          currency: "MXN",
          products: [{ title: "Concha", price: 12 }],
        }),
      })
    ).json()) as { storefront: { id: string } };
    const published = (await (
      await fetch(`${plain.baseUrl}/v1/storefronts/${created.storefront.id}/publish`, {
        method: "POST",
        headers,
      })
    ).json()) as { storefront: { slug: string } };
    for (const path of [`/s/${published.storefront.slug}`, `/s/${published.storefront.slug}/checkout`]) {
      // The view that renders a page may carry a nonce (Next renders with the request's); every later one is served
      // from the cache with the hashes.
      await (await fetch(`${plain.baseUrl}${path}`)).arrayBuffer();
      const views = [];
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${plain.baseUrl}${path}`);
        views.push({ headers: res.headers, html: await res.text() });
      }
      for (const view of views) expect(view.headers.get("x-nextjs-cache"), path).toBe("HIT");
      for (const { headers: answer, html } of views) {
        const policy = answer.get("content-security-policy") ?? "";
        expect(policy, path).not.toContain("nonce-");
        expect(policy.match(/script-src [^;]*/)?.[0], path).not.toContain("unsafe-inline");
        expect(answer.get("x-marea-script-hashes"), path).toBeNull();
        const hashes = inlineScriptHashes(html);
        expect(hashes.length, path).toBeGreaterThan(2);
        for (const hash of hashes) expect(policy, path).toContain(hash);
      }
      expect(views[0]?.headers.get("content-security-policy")).toBe(
        views[1]?.headers.get("content-security-policy"),
      );
    }
  });

  it("M5: the order status page sends Referrer-Policy: no-referrer as a header", async () => {
    const res = await fetch(`${plain.baseUrl}/s/any-store/orders/ord_nothing?t=x`);
    await res.arrayBuffer();
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  });

  it("H1: /dev/mail (no SMTP_URL, listening on loopback) answers this machine only: never through a proxy, never under a foreign Host", async () => {
    const direct = await fetch(`${plain.baseUrl}/dev/mail`);
    expect(direct.status).toBe(200);
    expect(await direct.text()).toContain("Development mail outbox");
    const home = await (await fetch(`${plain.baseUrl}/`)).text();
    expect(home).toContain('href="/dev/mail"');
    // Relayed by a proxy on this machine for a client elsewhere: the peer is loopback, the request is not local.
    const proxied = await fetch(`http://127.0.0.1:${plainProxy.port}/dev/mail`, {
      headers: { "x-test-forward": JSON.stringify({ client: "198.51.100.7" }) },
    });
    expect(proxied.status).toBe(404);
    expect(await proxied.text()).not.toContain("Development mail outbox");
    const proxiedHome = await fetch(`http://127.0.0.1:${plainProxy.port}/`, {
      headers: { "x-test-forward": JSON.stringify({ client: "198.51.100.7" }) },
    });
    expect(await proxiedHome.text()).not.toContain('href="/dev/mail"');
    // A forged peer header changes nothing (the production start replaces it).
    const forged = await fetch(`http://127.0.0.1:${plainProxy.port}/dev/mail`, {
      headers: { [PEER_HEADER]: "127.0.0.1", "x-test-forward": JSON.stringify({ client: "198.51.100.7" }) },
    });
    expect(forged.status).toBe(404);
    await forged.arrayBuffer();
  });

  it("S3: a page asked for under a Host name that is not this service's is 421 (DNS rebinding); loopback names from this machine pass", async () => {
    for (const host of ["evil.example", `evil.example:${plain.port}`, "127.0.0.1.evil.example", "[::2]"]) {
      const answer = await rawGet(plain.port, "/dev/mail", host);
      expect(answer, host).toMatch(/^HTTP\/1\.1 421 /);
      expect(answer, host).not.toContain("Development mail outbox");
    }
    for (const host of [`127.0.0.1:${plain.port}`, `localhost:${plain.port}`, "localhost"])
      expect(await rawGet(plain.port, "/signin", host), host).toMatch(/^HTTP\/1\.1 200 /);
    // The API's doors are not pages: a load balancer's health check may use any name.
    expect(await rawGet(plain.port, "/healthz", "10.0.0.5")).toMatch(/^HTTP\/1\.1 200 /);
  });
});

/** A GET with an arbitrary Host header (fetch always sends the URL's). */
function rawGet(port: number, path: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, headers: { host }, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve(`HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n\r\n${body}`));
    });
    req.on("error", reject);
    req.end();
  });
}

describe.skipIf(testDatabaseKind() !== "postgres")(
  "H1: the production start without SMTP_URL, reachable from elsewhere",
  () => {
    let exposed: ProductionServer;

    beforeAll(async () => {
      exposed = await startProductionServer({
        ...serverEnv(),
        HOST: "0.0.0.0",
        SMTP_URL: undefined,
        DEV_MAIL: undefined,
      });
    }, 120_000);

    afterAll(async () => {
      await exposed?.stop();
    });

    it("H1: listening on every interface without SMTP_URL or DEV_MAIL, /dev/mail is never served (not even to this machine) and the start says so loudly", async () => {
      const res = await fetch(`${exposed.baseUrl}/dev/mail`);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain("Development mail outbox");
      expect(await (await fetch(`${exposed.baseUrl}/`)).text()).not.toContain('href="/dev/mail"');
      expect(exposed.output()).toContain("SMTP_URL is not set and /dev/mail is off");
    });
  },
);
