import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { acceptCurrentTerms } from "@/server/accounts/cancellation";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { currentTerms } from "@/server/gate/terms";
import { decryptSecret } from "@/server/lib/secrets";
import { call } from "@/server/testing/api";
import { sessionContextFor } from "@/server/testing/context";
import { createEndpoint, listEndpoints } from "./endpoints";
import { type WebhookEndpointDto, WebhookEndpointWithSecretDto } from "./schema";
import { webhookEndpoints } from "./tables";
import { createTestEndpoint, setTestEnv } from "./testing";

setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: undefined });

const SPEC_FIELDS = [
  "endpointId",
  "scope",
  "url",
  "description",
  "enabled",
  "subscribedEvents",
  "signingSecretVersion",
  "createdAt",
  "updatedAt",
  "lastDeliveryAt",
  "lastDeliveryStatus",
  "consecutiveFailures",
].sort();

describe("POST /v1/webhook_endpoints", () => {
  let dev: Awaited<ReturnType<typeof createDeveloper>>;
  beforeAll(async () => {
    dev = await createDeveloper();
  });

  it("201 with every field of the endpoint object and a 64-hex signingSecret shown once", async () => {
    const res = await call("POST", "/v1/webhook_endpoints", {
      key: dev.key,
      body: {
        url: "https://hooks.example.com/marea",
        description: "prod",
        subscribedEvents: ["order.created"],
      },
    });
    expect(res.status).toBe(201);
    const body = WebhookEndpointWithSecretDto.parse(res.body);
    expect(Object.keys(res.body).sort()).toEqual([...SPEC_FIELDS, "signingSecret"].sort());
    expect(body).toMatchObject({
      scope: "developer",
      url: "https://hooks.example.com/marea",
      description: "prod",
      enabled: true,
      subscribedEvents: ["order.created"],
      signingSecretVersion: 1,
      lastDeliveryAt: null,
      lastDeliveryStatus: null,
      consecutiveFailures: 0,
    });
    expect(body.endpointId).toMatch(/^mk_we_[0-9a-f]{16}$/);
    expect(body.signingSecret).toMatch(/^[0-9a-f]{64}$/);

    // Secrets encrypted at rest: the column does not hold the secret, but decrypts to it.
    const db = await dbReady();
    const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, body.endpointId));
    expect(row?.secretCiphertext).not.toContain(body.signingSecret);
    expect(decryptSecret(row?.secretCiphertext ?? "")).toBe(body.signingSecret);

    const get = await call("GET", `/v1/webhook_endpoints/${body.endpointId}`, { key: dev.key });
    expect(get.status).toBe(200);
    expect(Object.keys(get.body).sort()).toEqual(SPEC_FIELDS);
    expect(get.text).not.toContain(body.signingSecret);
  });

  it("echoes the URL exactly as registered", async () => {
    const created = await createTestEndpoint(dev.key, { url: "https://Hooks.Example.com" });
    expect(created.url).toBe("https://Hooks.Example.com");
  });

  it("defaults: every event type, enabled, empty description", async () => {
    const created = await createTestEndpoint(dev.key, { url: "https://hooks.example.com/defaults" });
    expect(created.subscribedEvents).toEqual([
      "user.verified",
      "user.cancelled",
      "order.created",
      "order.status_updated",
      "order.paid",
    ]);
    expect(created).toMatchObject({ enabled: true, description: "" });
  });

  it("rejects an unknown event type and unknown fields with 400 invalid_request and param", async () => {
    const bad = await call("POST", "/v1/webhook_endpoints", {
      key: dev.key,
      body: { url: "https://hooks.example.com/x", subscribedEvents: ["order.deleted"] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: "invalid_request", param: "subscribedEvents[0]" } });
    const extra = await call("POST", "/v1/webhook_endpoints", {
      key: dev.key,
      body: { url: "https://hooks.example.com/x", signingSecret: "a".repeat(64) },
    });
    expect(extra.status).toBe(400);
    expect(extra.body).toMatchObject({ error: { param: "signingSecret" } });
  });

  it.each([
    ["http scheme", "http://hooks.example.com/"],
    ["localhost", "https://localhost/hook"],
    ["0.0.0.0", "https://0.0.0.0/hook"],
    ["metadata.google.internal", "https://metadata.google.internal/"],
    [".internal", "https://api.corp.internal/"],
    [".local", "https://printer.local/"],
    ["127.0.0.0/8", "https://127.0.0.2/"],
    ["10.0.0.0/8", "https://10.0.0.1/"],
    ["172.16.0.0/12", "https://172.20.1.1/"],
    ["192.168.0.0/16", "https://192.168.0.10/"],
    ["169.254.0.0/16", "https://169.254.169.254/"],
    ["fc00::/7", "https://[fd00::1]/"],
    ["fe80::/10", "https://[fe80::abcd]/"],
    ["IPv4-mapped IPv6", "https://[::ffff:10.0.0.1]/"],
    ["decimal IPv4", "https://3232235521/"],
    ["over 2048 characters", `https://hooks.example.com/${"a".repeat(2030)}`],
  ])('docs/webhooks.md, "URL rules": rejects %s with 400 invalid_webhook_url', async (_label, url) => {
    const res = await call("POST", "/v1/webhook_endpoints", { key: dev.key, body: { url } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: { type: "invalid_request", code: "invalid_webhook_url", param: "url" },
    });
  });

  it('docs/webhooks.md, "Endpoints": 16 endpoints per account, the 17th is 409 webhook_endpoint_limit_reached', async () => {
    const other = await createDeveloper();
    const results = await Promise.all(
      Array.from({ length: 18 }, (_, i) =>
        call("POST", "/v1/webhook_endpoints", {
          key: other.key,
          body: { url: `https://hooks.example.com/${i}` },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(16);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(2);
    for (const r of refused)
      expect(r.body).toMatchObject({ error: { type: "conflict", code: "webhook_endpoint_limit_reached" } });
  });
});

describe('scopes and ownership (docs/webhooks.md, "Endpoints")', () => {
  it("a user key gets 403 insufficient_scope with requiredScopes and heldScopes", async () => {
    const dev = await createDeveloper();
    const user = await bootstrapUser(dev.key);
    const res = await call("GET", "/v1/webhook_endpoints", { key: user.userKey });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      error: {
        code: "insufficient_scope",
        requiredScopes: ["developer:webhooks", "developer:bootstrap"],
        heldScopes: expect.arrayContaining(["catalog:read"]),
      },
    });
  });

  it("another account's endpoint is 404 webhook_endpoint_not_found on every operation", async () => {
    const owner = await createDeveloper();
    const stranger = await createDeveloper();
    const endpoint = await createTestEndpoint(owner.key, { url: "https://hooks.example.com/mine" });
    const path = `/v1/webhook_endpoints/${endpoint.endpointId}`;
    const attempts = [
      await call("GET", path, { key: stranger.key }),
      await call("POST", path, { key: stranger.key, body: { enabled: false } }),
      await call("DELETE", path, { key: stranger.key }),
      await call("POST", `${path}/rotate-secret`, { key: stranger.key }),
      await call("GET", `${path}/deliveries`, { key: stranger.key }),
      await call("POST", `${path}/test`, { key: stranger.key, body: { type: "order.created" } }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: { type: "not_found", code: "webhook_endpoint_not_found" } });
    }
    const list = await call<{ data: unknown[] }>("GET", "/v1/webhook_endpoints", { key: stranger.key });
    expect(list.body.data).toEqual([]);
    expect((await call("GET", path, { key: owner.key })).status).toBe(200);
  });

  it("a malformed id is 404, not 500", async () => {
    const dev = await createDeveloper();
    const res = await call("GET", "/v1/webhook_endpoints/not-an-id", { key: dev.key });
    expect(res.status).toBe(404);
  });
});

describe('GET /v1/webhook_endpoints (docs/api.md, "Lists")', () => {
  it("pages by id with limit and nextCursor; a bad cursor restarts at page one", async () => {
    const dev = await createDeveloper();
    const made = [];
    for (let i = 0; i < 5; i++)
      made.push(await createTestEndpoint(dev.key, { url: `https://h.example.com/${i}` }));
    const ids = made.map((m) => m.endpointId).sort();
    const first = await call<{ data: WebhookEndpointDto[]; nextCursor: string | null }>(
      "GET",
      "/v1/webhook_endpoints?limit=2",
      { key: dev.key },
    );
    expect(first.status).toBe(200);
    expect(first.body.data.map((e) => e.endpointId)).toEqual(ids.slice(0, 2));
    const second = await call<{ data: WebhookEndpointDto[]; nextCursor: string | null }>(
      "GET",
      `/v1/webhook_endpoints?limit=2&cursor=${first.body.nextCursor}`,
      { key: dev.key },
    );
    expect(second.body.data.map((e) => e.endpointId)).toEqual(ids.slice(2, 4));
    const third = await call<{ data: WebhookEndpointDto[]; nextCursor: string | null }>(
      "GET",
      `/v1/webhook_endpoints?limit=2&cursor=${second.body.nextCursor}`,
      { key: dev.key },
    );
    expect(third.body.data.map((e) => e.endpointId)).toEqual(ids.slice(4));
    expect(third.body.nextCursor).toBeNull();
    for (const e of first.body.data) expect(e).not.toHaveProperty("signingSecret");

    const garbage = await call<{ data: WebhookEndpointDto[] }>(
      "GET",
      "/v1/webhook_endpoints?limit=2&cursor=%%%",
      {
        key: dev.key,
      },
    );
    expect(garbage.status).toBe(200);
    expect(garbage.body.data.map((e) => e.endpointId)).toEqual(ids.slice(0, 2));
    expect((await call("GET", "/v1/webhook_endpoints?limit=101", { key: dev.key })).status).toBe(400);
  });
});

describe("POST /v1/webhook_endpoints/{id} (partial update)", () => {
  it("changes only present fields, returns no secret, keeps the secret", async () => {
    const dev = await createDeveloper();
    const created = await createTestEndpoint(dev.key, {
      url: "https://hooks.example.com/a",
      description: "first",
      subscribedEvents: ["user.verified"],
    });
    const res = await call<WebhookEndpointDto>("POST", `/v1/webhook_endpoints/${created.endpointId}`, {
      key: dev.key,
      body: { description: "second" },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(SPEC_FIELDS);
    expect(res.body).toMatchObject({
      url: "https://hooks.example.com/a",
      description: "second",
      subscribedEvents: ["user.verified"],
      enabled: true,
      signingSecretVersion: 1,
    });
    const more = await call<WebhookEndpointDto>("POST", `/v1/webhook_endpoints/${created.endpointId}`, {
      key: dev.key,
      body: {
        url: "https://hooks.example.com/b",
        enabled: false,
        subscribedEvents: ["order.paid", "order.paid"],
      },
    });
    expect(more.body).toMatchObject({
      url: "https://hooks.example.com/b",
      description: "second",
      enabled: false,
      subscribedEvents: ["order.paid"],
    });
  });

  it("cannot rotate or set the secret (400), and re-validates the URL", async () => {
    const dev = await createDeveloper();
    const created = await createTestEndpoint(dev.key, { url: "https://hooks.example.com/a" });
    const path = `/v1/webhook_endpoints/${created.endpointId}`;
    const secret = await call("POST", path, { key: dev.key, body: { signingSecret: "b".repeat(64) } });
    expect(secret.status).toBe(400);
    const version = await call("POST", path, { key: dev.key, body: { signingSecretVersion: 2 } });
    expect(version.status).toBe(400);
    const url = await call("POST", path, { key: dev.key, body: { url: "https://10.0.0.1/" } });
    expect(url.status).toBe(400);
    expect(url.body).toMatchObject({ error: { code: "invalid_webhook_url" } });
    const after = await call<WebhookEndpointDto>("GET", path, { key: dev.key });
    expect(after.body).toMatchObject({ url: "https://hooks.example.com/a", signingSecretVersion: 1 });
  });
});

describe("DELETE and rotate-secret", () => {
  it("DELETE answers {id, deleted: true} and the endpoint is gone for good", async () => {
    const dev = await createDeveloper();
    const created = await createTestEndpoint(dev.key, { url: "https://hooks.example.com/a" });
    const path = `/v1/webhook_endpoints/${created.endpointId}`;
    const res = await call("DELETE", path, { key: dev.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.endpointId, deleted: true });
    expect((await call("GET", path, { key: dev.key })).status).toBe(404);
    expect((await call("DELETE", path, { key: dev.key })).status).toBe(404);
  });

  it("rotate-secret returns a new secret and signingSecretVersion + 1", async () => {
    const dev = await createDeveloper();
    const created = await createTestEndpoint(dev.key, { url: "https://hooks.example.com/a" });
    const res = await call("POST", `/v1/webhook_endpoints/${created.endpointId}/rotate-secret`, {
      key: dev.key,
    });
    expect(res.status).toBe(200);
    const rotated = WebhookEndpointWithSecretDto.parse(res.body);
    expect(rotated.signingSecretVersion).toBe(2);
    expect(rotated.signingSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.signingSecret).not.toBe(created.signingSecret);
    const again = WebhookEndpointWithSecretDto.parse(
      (await call("POST", `/v1/webhook_endpoints/${created.endpointId}/rotate-secret`, { key: dev.key }))
        .body,
    );
    expect(again.signingSecretVersion).toBe(3);
  });
});

describe("merchant endpoints (service functions for the dashboard)", () => {
  it("order.* only, and invisible to the developer API", async () => {
    const dev = await createDeveloper();
    // The dashboard acts as the signed-in account, not as a developer key.
    // An operator-made account accepts the terms on its first dashboard sign-in.
    await acceptCurrentTerms(await sessionContextFor(dev.accountId), { version: currentTerms().version });
    const ctx = await sessionContextFor(dev.accountId);
    const merchant = await createEndpoint(ctx, {
      scope: "merchant",
      endpoint: { url: "https://shop.example.com/hook" },
    });
    expect(merchant.scope).toBe("merchant");
    expect(merchant.subscribedEvents).toEqual(["order.created", "order.status_updated", "order.paid"]);
    await expect(
      createEndpoint(ctx, {
        scope: "merchant",
        endpoint: { url: "https://shop.example.com/hook", subscribedEvents: ["user.verified"] },
      }),
    ).rejects.toMatchObject({ code: "invalid_request", options: { param: "subscribedEvents" } });
    expect((await listEndpoints(ctx, { scope: "merchant", limit: 20 })).data).toHaveLength(1);
    const api = await call<{ data: unknown[] }>("GET", "/v1/webhook_endpoints", { key: dev.key });
    expect(api.body.data).toEqual([]);
    expect((await call("GET", `/v1/webhook_endpoints/${merchant.endpointId}`, { key: dev.key })).status).toBe(
      404,
    );
  });
});
