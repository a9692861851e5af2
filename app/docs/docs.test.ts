import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { env } from "@/server/env";
import { ERROR_CATALOGUE, type ErrorCode, ErrorEnvelope } from "@/server/errors";
import { type ProductionServer, startProductionServer } from "@/server/testing/production-server";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { EVENT_TYPES } from "@/server/webhooks/schema";

// /docs served by the app (docs/ui.md, "Developer documentation"; docs/api.md, "Errors"), on the production start:
// every `doc` link of real /v1 errors answers 200 at a page that names its code, the reference covers the whole
// catalogue, and every link between the docs pages (and its #fragment) resolves.

let server: ProductionServer;
const pages = new Map<string, { status: number; html: string }>();

async function page(path: string): Promise<{ status: number; html: string }> {
  const cached = pages.get(path);
  if (cached) return cached;
  const res = await fetch(`${server.baseUrl}${path}`, { headers: { "accept-language": "en" } });
  const result = { status: res.status, html: await res.text() };
  pages.set(path, result);
  return result;
}

/** Text as React writes it into HTML. */
function escaped(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#x27;");
}

function hasId(html: string, id: string): boolean {
  return html.includes(`id="${id}"`);
}

describe.skipIf(testDatabaseKind() !== "postgres")("/docs on the production start", () => {
  beforeAll(async () => {
    server = await startProductionServer({
      DATABASE_URL: env().DATABASE_URL,
      DATA_DIR: env().DATA_DIR,
      WORKER: "off",
    });
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("every doc link emitted by the /v1 error cases answers 200 at the error reference, naming its code", async () => {
    const developer = await createDeveloper();
    const user = await bootstrapUser(developer.key);
    const cases: Array<{ code: ErrorCode; method: string; path: string; key?: string; body?: string }> = [
      { code: "route_not_found", method: "GET", path: "/v1/nope" },
      { code: "method_not_allowed", method: "PUT", path: "/v1/me" },
      { code: "missing_authorization", method: "GET", path: "/v1/me" },
      { code: "invalid_api_key", method: "GET", path: "/v1/me", key: "mk_user_not_a_key" },
      { code: "invalid_json", method: "POST", path: "/v1/storefronts", key: user.userKey, body: "{" },
      { code: "invalid_request", method: "POST", path: "/v1/storefronts", key: user.userKey, body: "{}" },
      {
        code: "payload_too_large",
        method: "POST",
        path: "/v1/storefronts",
        key: user.userKey,
        body: `"${"x".repeat(1_100_000)}"`,
      },
      {
        code: "insufficient_scope",
        method: "POST",
        path: "/v1/users",
        key: user.userKey,
        body: '{"email":"a@example.com"}',
      },
      {
        code: "storefront_not_found",
        method: "GET",
        path: "/v1/storefronts/stf_00000000000000000000000000",
        key: user.userKey,
      },
      {
        code: "order_not_found",
        method: "GET",
        path: "/v1/orders/ord_00000000000000000000000000",
        key: user.userKey,
      },
      {
        code: "webhook_endpoint_not_found",
        method: "GET",
        path: "/v1/webhook_endpoints/mk_we_0000000000000000",
        key: developer.key,
      },
      {
        code: "invalid_webhook_url",
        method: "POST",
        path: "/v1/webhook_endpoints",
        key: developer.key,
        body: '{"url":"https://localhost/hook"}',
      },
      {
        code: "invalid_verification_code",
        method: "POST",
        path: "/v1/me/verify",
        key: user.userKey,
        body: '{"code":"000000"}',
      },
      {
        code: "email_not_verified",
        method: "POST",
        path: "/v1/storefronts/stf_00000000000000000000000000/publish",
        key: user.userKey,
      },
    ];
    const links = new Map<string, ErrorCode>();
    for (const c of cases) {
      const res = await fetch(`${server.baseUrl}${c.path}`, {
        method: c.method,
        headers: {
          ...(c.key ? { authorization: `Bearer ${c.key}` } : {}),
          ...(c.body !== undefined ? { "content-type": "application/json" } : {}),
        },
        body: c.body,
      });
      const { error } = ErrorEnvelope.parse(await res.json());
      // A case may meet an earlier gate of the pipeline; whichever code it answers, its link must resolve.
      links.set(error.doc, error.code as ErrorCode);
      expect(error.doc).toBe(`${server.baseUrl}/docs/errors#${error.code}`);
    }
    expect(new Set(links.values()).size).toBeGreaterThanOrEqual(cases.length - 2);
    for (const [doc, code] of links) {
      const url = new URL(doc);
      const res = await fetch(url);
      const html = await res.text();
      expect(res.status, doc).toBe(200);
      expect(hasId(html, url.hash.slice(1)), doc).toBe(true);
      expect(html, doc).toContain(`>${code}</h3>`);
    }
  });

  it("the error reference has a section for every code of the catalogue: type, status and message", async () => {
    const { status, html } = await page("/docs/errors");
    expect(status).toBe(200);
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      expect(hasId(html, code), code).toBe(true);
      const section = html.slice(
        html.indexOf(`id="${code}"`),
        html.indexOf("</article>", html.indexOf(`id="${code}"`)),
      );
      expect(section, code).toContain(`<code>${entry.type}</code>`);
      expect(section, code).toContain(`<dd>${entry.status}</dd>`);
      expect(section, code).toContain(escaped(entry.messages.en));
    }
  });

  it("the reference and catalog pages and every guide answer 200; an unknown guide 404", async () => {
    for (const path of [
      "/docs",
      "/docs/api",
      "/docs/events",
      "/docs/errors",
      "/docs/api/guide",
      "/docs/webhooks",
      "/docs/graphql",
      "/docs/mcp",
      "/docs/operations",
    ]) {
      const { status, html } = await page(path);
      expect(status, path).toBe(200);
      expect(html, path).toMatch(/<h1[^>]*>/);
    }
    expect((await page("/docs/nope")).status).toBe(404);
    const schema = await fetch(`${server.baseUrl}/docs/schema.graphql`);
    expect(schema.status).toBe(200);
    expect(await schema.text()).toContain("type Query");
  });

  it("the event catalog has each type's section, example and schema; the API reference each operation", async () => {
    const events = (await page("/docs/events")).html;
    for (const type of EVENT_TYPES) {
      expect(hasId(events, type), type).toBe(true);
      expect(events).toContain(`&quot;type&quot;: &quot;${type}&quot;`);
    }
    for (const language of ["Node.js", "Python", "PHP", "Go"]) expect(events).toContain(`In ${language}`);
    const api = (await page("/docs/api")).html;
    const doc = (await (await fetch(`${server.baseUrl}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    for (const item of Object.values(doc.paths)) {
      for (const operation of Object.values(item))
        expect(hasId(api, `op-${operation.operationId}`)).toBe(true);
    }
  });

  it("every link between the docs pages resolves, #fragments included", async () => {
    const queue = ["/docs"];
    const seen = new Set(queue);
    const broken: string[] = [];
    while (queue.length > 0) {
      const from = queue.shift() as string;
      const { html } = await page(from);
      for (const [, href] of html.matchAll(/href="([^"]+)"/g)) {
        if (!href) continue;
        const target = href.startsWith("#") ? `${from}${href}` : href;
        if (!target.startsWith("/docs")) continue;
        const [path = "", fragment] = target.split("#");
        const linked = await page(path);
        if (linked.status !== 200) broken.push(`${from} -> ${href} (${linked.status})`);
        else if (fragment && !hasId(linked.html, decodeURIComponent(fragment)))
          broken.push(`${from} -> ${href} (no #${fragment})`);
        if (!seen.has(path) && !path.endsWith(".graphql")) {
          seen.add(path);
          queue.push(path);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(seen.size).toBeGreaterThanOrEqual(9);
  }, 60_000);

  it("pages are readable in es and pt: the reference's texts and the catalogue's messages in that language", async () => {
    const es = await (
      await fetch(`${server.baseUrl}/docs/errors`, { headers: { "accept-language": "es" } })
    ).text();
    expect(es).toContain("Referencia de errores");
    expect(es).toContain(escaped(ERROR_CATALOGUE.storefront_not_found.messages.es));
    expect(es).toContain('lang="es"');
    const pt = await (
      await fetch(`${server.baseUrl}/docs/webhooks`, { headers: { "accept-language": "pt" } })
    ).text();
    expect(pt).toContain("Este guia está escrito em inglês.");
  });
});
