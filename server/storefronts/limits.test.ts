import { describe, expect, it } from "vitest";
import { call } from "@/server/testing/api";
import type { StorefrontDto } from "./schema";
import { createMerchant, createTestStorefront, productCountOf, setProductCount } from "./testing";

type PlanError = {
  error: {
    type: string;
    code: string;
    param: string | null;
    requestId: string;
    upgrade: { currentPlan: string; requiredPlan: string; upgradeUrl: string } | null;
  };
};

const UPGRADE_URL = expect.stringMatching(/\/dashboard\/billing\?plan=PRO$/);

describe('storefronts per plan: FREE_NEW 1, FREE_OLD 3, PRO 10 (docs/api.md, "Plan limits")', () => {
  it.each([
    ["FREE_NEW", 1],
    ["FREE_OLD", 3],
    ["PRO", 10],
  ] as const)("%s allows %i, then 402 plan_max_storefronts_reached with upgrade", async (plan, limit) => {
    const merchant = await createMerchant({ plan });
    for (let i = 0; i < limit; i++) await createTestStorefront(merchant.userKey, { name: `S${i}` });
    const over = await call<PlanError>("POST", "/v1/storefronts", {
      key: merchant.userKey,
      body: { name: "One too many", currency: "MXN" },
    });
    expect(over.status).toBe(402);
    expect(over.body.error).toMatchObject({
      type: "plan_limit",
      code: "plan_max_storefronts_reached",
      upgrade: { currentPlan: plan, requiredPlan: "PRO", upgradeUrl: UPGRADE_URL },
    });
  });

  it("a deleted storefront frees its slot", async () => {
    const merchant = await createMerchant();
    const s = await createTestStorefront(merchant.userKey);
    await call("DELETE", `/v1/storefronts/${s.id}`, { key: merchant.userKey });
    await createTestStorefront(merchant.userKey);
  });

  it("concurrent creates never pass the storefront limit", async () => {
    const merchant = await createMerchant({ plan: "FREE_OLD" });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call("POST", "/v1/storefronts", { key: merchant.userKey, body: { name: `R${i}`, currency: "MXN" } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 402)).toHaveLength(3);
  });
});

describe('products per plan: 2,000 before the paywall (docs/api.md, "Plan limits")', () => {
  it("a single create over the limit is 402 plan_max_products_reached with upgrade, and nothing is created", async () => {
    const merchant = await createMerchant();
    const s = await createTestStorefront(merchant.userKey);
    await setProductCount(merchant.userId, 1_999);
    const last = await call("POST", `/v1/storefronts/${s.id}/products`, {
      key: merchant.userKey,
      body: { title: "2000th", price: 1 },
    });
    expect(last.status).toBe(201);
    const over = await call<PlanError>("POST", `/v1/storefronts/${s.id}/products`, {
      key: merchant.userKey,
      body: { title: "2001st", price: 1 },
    });
    expect(over.status).toBe(402);
    expect(over.body.error).toMatchObject({
      type: "plan_limit",
      code: "plan_max_products_reached",
      upgrade: { currentPlan: "FREE_NEW", requiredPlan: "PRO", upgradeUrl: UPGRADE_URL },
    });
    expect(await productCountOf(merchant.userId)).toBe(2_000);
    const listed = await call<{ data: Array<{ title: string }> }>("GET", `/v1/storefronts/${s.id}/products`, {
      key: merchant.userKey,
    });
    expect(listed.body.data.map((p) => p.title)).toEqual(["2000th"]);
  });

  it("two concurrent creates at 1,999 never make 2,001", async () => {
    const merchant = await createMerchant();
    const s = await createTestStorefront(merchant.userKey);
    await setProductCount(merchant.userId, 1_999);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call("POST", `/v1/storefronts/${s.id}/products`, {
          key: merchant.userKey,
          body: { title: `racer ${i}`, price: 1 },
          // Half of them inside the idempotency transaction, half without.
          headers: i % 2 === 0 ? { "idempotency-key": `race-${i}` } : {},
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 402)).toHaveLength(7);
    expect(await productCountOf(merchant.userId)).toBe(2_000);
    const listed = await call<{ data: unknown[] }>("GET", `/v1/storefronts/${s.id}/products`, {
      key: merchant.userKey,
    });
    expect(listed.body.data).toHaveLength(1);
  });

  it("PRO allows 10,000", async () => {
    const merchant = await createMerchant({ plan: "PRO" });
    const s = await createTestStorefront(merchant.userKey);
    await setProductCount(merchant.userId, 5_000);
    const ok = await call("POST", `/v1/storefronts/${s.id}/products`, {
      key: merchant.userKey,
      body: { title: "x", price: 1 },
    });
    expect(ok.status).toBe(201);
    await setProductCount(merchant.userId, 10_000);
    const over = await call<PlanError>("POST", `/v1/storefronts/${s.id}/products`, {
      key: merchant.userKey,
      body: { title: "y", price: 1 },
    });
    expect(over.body.error.upgrade?.currentPlan).toBe("PRO");
  });

  it("a manifest past the limit answers 207 with the created products and products_over_limit rejections", async () => {
    const merchant = await createMerchant();
    await setProductCount(merchant.userId, 1_998);
    const result = await call<{
      storefront: StorefrontDto;
      products: Array<{ title: string }>;
      rejected: Array<{ index: number; error: PlanError["error"] }>;
    }>("POST", "/v1/storefronts", {
      key: merchant.userKey,
      body: {
        name: "Manifest",
        currency: "MXN",
        products: ["a", "b", "c", "d", "e"].map((title) => ({ title, price: 1 })),
      },
    });
    expect(result.status).toBe(207);
    expect(result.body.storefront.id).toMatch(/^stf_/);
    expect(result.body.products.map((p) => p.title)).toEqual(["a", "b"]);
    expect(result.body.rejected.map((r) => r.index)).toEqual([2, 3, 4]);
    expect(result.body.rejected[0]?.error).toMatchObject({
      type: "plan_limit",
      code: "products_over_limit",
      param: "products[2]",
      requestId: result.headers.get("x-request-id"),
      upgrade: { currentPlan: "FREE_NEW", requiredPlan: "PRO", upgradeUrl: UPGRADE_URL },
    });
    expect(Object.keys(result.body.rejected[0]?.error ?? {})).toEqual(
      expect.arrayContaining(["message", "doc", "recoverable", "retryAfterMs", "nextActions"]),
    );
    expect(await productCountOf(merchant.userId)).toBe(2_000);
  });

  it("the batch endpoint answers 201 when all fit and 207 with rejections past the limit", async () => {
    const merchant = await createMerchant();
    const s = await createTestStorefront(merchant.userKey);
    const products = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `p${i}`, price: i }));
    const all = await call<{ products: Array<{ title: string }>; rejected?: unknown }>(
      "POST",
      `/v1/storefronts/${s.id}/products/batch`,
      { key: merchant.userKey, body: { products: products(3) } },
    );
    expect(all.status).toBe(201);
    expect(all.body.products.map((p) => p.title)).toEqual(["p0", "p1", "p2"]);
    expect(all.body.rejected).toBeUndefined();
    await setProductCount(merchant.userId, 1_999);
    const partial = await call<{
      products: unknown[];
      rejected: Array<{ index: number; error: { code: string } }>;
    }>("POST", `/v1/storefronts/${s.id}/products/batch`, {
      key: merchant.userKey,
      body: { products: products(3) },
    });
    expect(partial.status).toBe(207);
    expect(partial.body.products).toHaveLength(1);
    expect(partial.body.rejected.map((r) => [r.index, r.error.code])).toEqual([
      [1, "products_over_limit"],
      [2, "products_over_limit"],
    ]);
    expect(await productCountOf(merchant.userId)).toBe(2_000);
  });

  it("deleting products and storefronts gives their slots back", async () => {
    const merchant = await createMerchant({ plan: "FREE_OLD" });
    const a = await createTestStorefront(merchant.userKey, {
      products: [
        { title: "1", price: 1 },
        { title: "2", price: 1 },
      ],
    });
    const b = await createTestStorefront(merchant.userKey, { products: [{ title: "3", price: 1 }] });
    expect(await productCountOf(merchant.userId)).toBe(3);
    const listed = await call<{ data: Array<{ id: string }> }>("GET", `/v1/storefronts/${b.id}/products`, {
      key: merchant.userKey,
    });
    await call("DELETE", `/v1/storefronts/${b.id}/products/${listed.body.data[0]?.id}`, {
      key: merchant.userKey,
    });
    expect(await productCountOf(merchant.userId)).toBe(2);
    await call("DELETE", `/v1/storefronts/${a.id}`, { key: merchant.userKey });
    expect(await productCountOf(merchant.userId)).toBe(0);
  });

  it("a product create racing a storefront delete is counted exactly once or not at all", async () => {
    const merchant = await createMerchant();
    const s = await createTestStorefront(merchant.userKey);
    const creates = Array.from({ length: 6 }, (_, i) =>
      call("POST", `/v1/storefronts/${s.id}/products`, {
        key: merchant.userKey,
        body: { title: `${i}`, price: 1 },
      }),
    );
    const deletion = call("DELETE", `/v1/storefronts/${s.id}`, { key: merchant.userKey });
    const results = await Promise.all([...creates, deletion]);
    expect(results.at(-1)?.status).toBe(200);
    for (const r of results.slice(0, -1)) expect([201, 410]).toContain(r.status);
    expect(await productCountOf(merchant.userId)).toBe(0);
  });
});
