import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { ErrorEnvelope } from "@/server/errors";
import { SCOPES } from "@/server/gate/scopes";
import { apiKeys } from "@/server/gate/tables";
import { createStorefrontWithProduct } from "@/server/orders/testing";
import { createSession } from "@/server/sessions/service";
import { createMerchant, createTestStorefront } from "@/server/storefronts/testing";
import { createTestEndpoint } from "@/server/webhooks/testing";
import { type GraphQLCall, gql, testYoga } from "./testing";

// The GraphQL door's authentication and authorization (docs/graphql.md, "Authentication"): the same keys, scopes,
// rate-limit bucket and headers as /v1, the dashboard session cookie with its Origin check, and another account's
// objects answered as not found.

describe("credentials", () => {
  it.each([
    ["POST", undefined],
    ["GET", "GET"],
  ] as const)(
    "no credentials (%s): HTTP 401 in /v1's envelope, before anything is parsed or counted",
    async (_, method) => {
      const res = await gql("{ me { keyId } }", { method, headers: { "accept-language": "es" } });
      expect(res.status).toBe(401);
      const { error } = ErrorEnvelope.parse(res.body);
      expect(error).toMatchObject({ code: "missing_authorization", type: "auth" });
      expect(error.message).toMatch(/clave de API/);
      expect(res.headers.get("x-request-id")).toBe(error.requestId);
      expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    },
  );

  it("an unknown key is 401 invalid_api_key and a revoked one 401 api_key_revoked, in the envelope", async () => {
    const unknown = await gql("{ me { keyId } }", { key: `mk_user_${"x".repeat(43)}` });
    expect(unknown.status).toBe(401);
    expect(ErrorEnvelope.parse(unknown.body).error.code).toBe("invalid_api_key");
    const merchant = await createMerchant();
    const db = await dbReady();
    await db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.accountId, merchant.userId));
    const revoked = await gql("{ me { keyId } }", { key: merchant.userKey });
    expect(revoked.status).toBe(401);
    expect(ErrorEnvelope.parse(revoked.body).error.code).toBe("api_key_revoked");
  });

  it("Authorization: Bearer and X-API-Key both work; every answer carries X-Request-Id and the key's X-RateLimit-*", async () => {
    const merchant = await createMerchant();
    for (const keyHeader of ["authorization", "x-api-key"] as const) {
      const sentAt = Date.now();
      const res = await gql<{ me: { keyId: string; rateLimit: { remainingMinute: number } } }>(
        "{ me { keyId type scopes rateLimit { rpm remainingMinute } } }",
        { key: merchant.userKey, keyHeader },
      );
      expect(res.status).toBe(200);
      expect(res.body.data?.me.keyId).toMatch(/^key_/);
      expect(res.headers.get("x-request-id")).toMatch(/^req_/);
      expect(res.headers.get("x-ratelimit-limit")).toBe("100000");
      expect(Number(res.headers.get("x-ratelimit-remaining"))).toBe(
        res.body.data?.me.rateLimit.remainingMinute,
      );
      // The minute the request was counted in ends after it was sent (checked against the clock after the answer,
      // a request counted in a minute's last milliseconds failed this).
      expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(sentAt / 1000);
    }
  });

  it("GraphQL and /v1 count in the same per-key bucket; over it, HTTP 429 in the envelope with Retry-After", async () => {
    const merchant = await createMerchant();
    const db = await dbReady();
    await db.update(apiKeys).set({ rpm: 2 }).where(eq(apiKeys.accountId, merchant.userId));
    const { call } = await import("@/server/testing/api");
    expect((await call("GET", "/v1/me", { key: merchant.userKey })).status).toBe(200);
    const second = await gql("{ me { keyId } }", { key: merchant.userKey });
    expect(second.status).toBe(200);
    expect(second.headers.get("x-ratelimit-remaining")).toBe("0");
    const third = await gql("{ me { keyId } }", { key: merchant.userKey });
    expect(third.status).toBe(429);
    const { error } = ErrorEnvelope.parse(third.body);
    expect(error).toMatchObject({ code: "rate_limit_exceeded", recoverable: true });
    expect(error.message).toContain("rpm_exceeded");
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(third.headers.get("x-ratelimit-limit")).toBe("2");
  });
});

describe("scopes and accounts", () => {
  it("a missing scope is an error entry with requiredScopes and heldScopes; other fields still answer", async () => {
    const merchant = await createMerchant();
    const res = await gql<{ me: { keyId: string } | null; webhookEndpoints: unknown }>(
      "{ me { keyId } webhookEndpoints { edges { node { id } } } }",
      { key: merchant.userKey },
    );
    expect(res.status).toBe(200);
    expect(res.body.data?.me?.keyId).toMatch(/^key_/);
    expect(res.body.data?.webhookEndpoints).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors?.[0]).toMatchObject({
      path: ["webhookEndpoints"],
      extensions: {
        code: "insufficient_scope",
        type: "auth",
        requiredScopes: [SCOPES.developerWebhooks, SCOPES.developerBootstrap],
        heldScopes: [SCOPES.catalogRead, SCOPES.catalogWrite, SCOPES.meVerify, SCOPES.meResendVerification],
      },
    });
  });

  it("bootstrapUser needs a developer key: a user key is refused with its scopes named", async () => {
    const merchant = await createMerchant();
    const res = await gql(`mutation { bootstrapUser(input: { email: "x@example.com" }) { userKey } }`, {
      key: merchant.userKey,
    });
    expect(res.body.data).toEqual({ bootstrapUser: null });
    expect(res.body.errors?.[0]?.extensions).toMatchObject({
      code: "insufficient_scope",
      requiredScopes: [SCOPES.developerBootstrap],
    });
  });

  it("another account's ids are null with the catalogue's not-found code, by every query and by node", async () => {
    const owner = await createMerchant({ plan: "PRO", verified: true });
    const stranger = await createMerchant({ plan: "PRO", verified: true });
    const { storefrontId, productId } = await createStorefrontWithProduct(owner.userKey);
    const order = await gql<{ createOrder: { id: string } }>(
      `mutation($s: ID!, $p: String!) { createOrder(storefrontId: $s, input: {
        items: [{ productId: $p, amount: 1 }], customer: { name: "Ana", phone: "5512345678" },
        paymentMethod: { name: "Cash" } }) { id } }`,
      { key: owner.userKey, variables: { s: storefrontId, p: productId } },
    );
    const orderId = order.body.data?.createOrder.id ?? "";
    const developer = await createDeveloper();
    const strangerDeveloper = await createDeveloper();
    const endpoint = await createTestEndpoint(developer.key, { url: "https://hooks.example.com/a" });

    const cases: Array<[string, string, string, GraphQLCall["key"]]> = [
      ["storefront", storefrontId, "storefront_not_found", stranger.userKey],
      ["product", productId, "product_not_found", stranger.userKey],
      ["order", orderId, "order_not_found", stranger.userKey],
      ["webhookEndpoint", endpoint.endpointId, "webhook_endpoint_not_found", strangerDeveloper.key],
    ];
    for (const [field, id, code, key] of cases) {
      const direct = await gql(`query($id: ID!) { ${field}(id: $id) { id } }`, { key, variables: { id } });
      expect(direct.body.data, field).toEqual({ [field]: null });
      expect(direct.body.errors?.[0]?.extensions.code, field).toBe(code);
      const node = await gql(`query($id: ID!) { node(id: $id) { id } }`, { key, variables: { id } });
      expect(node.body.data, field).toEqual({ node: null });
      expect(node.body.errors?.[0]?.extensions.code, field).toBe(code);
      const own = await gql(`query($id: ID!) { node(id: $id) { id } }`, {
        key: field === "webhookEndpoint" ? developer.key : owner.userKey,
        variables: { id },
      });
      expect(own.body.data, field).toEqual({ node: { id } });
    }
    const theirs = await createTestStorefront(stranger.userKey);
    const list = await gql<{ storefronts: { edges: Array<{ node: { id: string } }> } }>(
      "{ storefronts { edges { node { id } } } }",
      { key: owner.userKey },
    );
    expect(list.body.data?.storefronts.edges.map((e) => e.node.id)).toEqual([storefrontId]);
    expect(list.body.data?.storefronts.edges.map((e) => e.node.id)).not.toContain(theirs.id);
  });
});

describe("the dashboard session cookie", () => {
  // The real cookie: a session made by the sign-in service, resolved by the default door (server/graphql/session.ts).
  const sessionYoga = testYoga();
  async function sessionCookie(accountId: string): Promise<string> {
    const session = await createSession(await dbReady(), accountId, new Date());
    return `marea_session=${session.token}`;
  }
  const CREATE = `mutation { createStorefront(input: { name: "Sesión", currency: "MXN" }) { storefront { id } } }`;

  it("reads with the cookie alone; no rate-limit headers (a session has no key); `me` is a key's operation", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const storefront = await createTestStorefront(merchant.userKey);
    const cookie = await sessionCookie(merchant.userId);
    const res = await gql("{ storefronts { edges { node { id } } } }", {
      yoga: sessionYoga,
      headers: { cookie },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ storefronts: { edges: [{ node: { id: storefront.id } }] } });
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    const me = await gql("{ me { keyId } }", { yoga: sessionYoga, headers: { cookie } });
    expect(me.body.errors?.[0]?.extensions.code).toBe("insufficient_scope");
  });

  it("a mutation needs the dashboard's Origin: same origin passes; none or another site is refused and writes nothing", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const cookie = await sessionCookie(merchant.userId);
    const allowed = await gql<{ createStorefront: { storefront: { id: string } } }>(CREATE, {
      yoga: sessionYoga,
      headers: { cookie, origin: "http://localhost:3000" },
    });
    expect(allowed.body.errors).toBeUndefined();
    expect(allowed.body.data?.createStorefront.storefront.id).toMatch(/^stf_/);
    const sameSite = await gql(CREATE, {
      yoga: sessionYoga,
      headers: { cookie, "sec-fetch-site": "same-origin" },
    });
    expect(sameSite.body.errors).toBeUndefined();
    for (const headers of [
      { cookie } as Record<string, string>,
      { cookie, origin: "https://evil.example.com" },
      { cookie, origin: "null" },
    ]) {
      const refused = await gql(CREATE, { yoga: sessionYoga, headers });
      expect(refused.body.data).toBeUndefined();
      expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: "cross_site_request" });
    }
    const list = await gql<{ storefronts: { edges: unknown[] } }>(
      "{ storefronts { edges { node { id } } } }",
      {
        key: merchant.userKey,
      },
    );
    expect(list.body.data?.storefronts.edges).toHaveLength(2);
  });

  it("without a cookie that resolves, the session door is 401 like no credentials", async () => {
    const res = await gql("{ storefronts { edges { node { id } } } }", {
      yoga: sessionYoga,
      headers: { cookie: "marea_session=nothing" },
    });
    expect(res.status).toBe(401);
  });
});
