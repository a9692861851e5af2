import { describe, expect, it } from "vitest";
import { CreateStorefrontInput } from "@/server/storefronts/schema";
import { createStorefront, deleteStorefront } from "@/server/storefronts/service";
import { createMerchant, productCountOf, setProductCount } from "@/server/storefronts/testing";
import { oauthContextFor, serviceContextFor, sessionContextFor } from "@/server/testing/context";
import { ProductManifest, UpdateProductInput } from "./schema";
import {
  createProduct,
  createProducts,
  deleteProduct,
  getProduct,
  listProducts,
  loadProducts,
  loadProductsByStorefront,
  planProductCreate,
  updateProduct,
} from "./service";

// Product services called directly (docs/architecture.md, "Services"): bare DTOs, the plan limit and the
// price rules hold for every door.

async function storefrontFor(ctx: Awaited<ReturnType<typeof serviceContextFor>>) {
  const created = await createStorefront(
    ctx,
    CreateStorefrontInput.parse({ name: "Tienda", currency: "MXN" }),
  );
  return created.storefront.id;
}

const manifest = (body: Record<string, unknown>) =>
  ProductManifest.parse({ title: "Concha", price: 12, ...body });

describe("product services", () => {
  it.each(["api_key", "session", "oauth"] as const)(
    "%s: create, read, change and delete a product",
    async (via) => {
      const merchant = await createMerchant();
      const ctx =
        via === "api_key"
          ? await serviceContextFor(merchant.userKey)
          : via === "session"
            ? await sessionContextFor(merchant.userId)
            : await oauthContextFor(merchant.userKey);
      const storefrontId = await storefrontFor(ctx);
      const product = await createProduct(ctx, { storefrontId, product: manifest({ stock: 4, sku: "C-1" }) });
      expect(product).toMatchObject({ title: "Concha", price: 12, stock: 4, sku: "C-1" });
      expect(await getProduct(ctx, { storefrontId, productId: product.id })).toEqual(product);
      const changed = await updateProduct(ctx, {
        storefrontId,
        productId: product.id,
        patch: UpdateProductInput.parse({ salePrice: 10 }),
      });
      expect(changed.salePrice).toBe(10);
      expect((await listProducts(ctx, { storefrontId, limit: 20 })).data.map((p) => p.id)).toEqual([
        product.id,
      ]);
      expect(await deleteProduct(ctx, { storefrontId, productId: product.id })).toEqual({
        id: product.id,
        deleted: true,
      });
      expect(await productCountOf(merchant.userId)).toBe(0);
    },
  );

  it("salePrice stays below price when only one of them changes", async () => {
    const merchant = await createMerchant();
    const ctx = await sessionContextFor(merchant.userId);
    const storefrontId = await storefrontFor(ctx);
    const product = await createProduct(ctx, { storefrontId, product: manifest({ salePrice: 10 }) });
    await expect(
      updateProduct(ctx, { storefrontId, productId: product.id, patch: { price: 9 } }),
    ).rejects.toMatchObject({ code: "invalid_request", options: { param: "price" } });
    expect((await getProduct(ctx, { storefrontId, productId: product.id })).price).toBe(12);
  });

  it("the plan limit: a single create is 402 plan_max_products_reached; a batch answers created and rejected items", async () => {
    const merchant = await createMerchant();
    const ctx = await serviceContextFor(merchant.userKey);
    const storefrontId = await storefrontFor(ctx);
    await setProductCount(merchant.userId, 1_999);
    const batch = await createProducts(ctx, {
      storefrontId,
      products: ["a", "b", "c"].map((title) => manifest({ title })),
    });
    expect(batch.products.map((p) => p.title)).toEqual(["a"]);
    // The service's rejection carries no HTTP: the code, the JSON path and what lifts the limit.
    expect(batch.rejected).toEqual(
      [1, 2].map((index) => ({
        index,
        code: "products_over_limit",
        param: `products[${index}]`,
        upgrade: {
          currentPlan: "FREE_NEW",
          requiredPlan: "PRO",
          upgradeUrl: "http://localhost:3000/dashboard/billing?plan=PRO",
        },
        detail: expect.objectContaining({ en: "The plan FREE_NEW allows 2000 products." }),
      })),
    );
    await expect(createProduct(ctx, { storefrontId, product: manifest({}) })).rejects.toMatchObject({
      code: "plan_max_products_reached",
      options: { upgrade: { currentPlan: "FREE_NEW", requiredPlan: "PRO" } },
    });
    expect(await productCountOf(merchant.userId)).toBe(2_000);
  });

  it("planProductCreate knows the product before its one statement runs, and the statement writes exactly it", async () => {
    const merchant = await createMerchant();
    const ctx = await serviceContextFor(merchant.userKey);
    const storefrontId = await storefrontFor(ctx);
    const plan = planProductCreate(ctx, { storefrontId, product: manifest({ price: 1.23456 }) });
    // Money is rounded as numeric(14,4) rounds it, before the write.
    expect(plan.product.price).toBe(1.2346);
    await plan.run();
    expect(await getProduct(ctx, { storefrontId, productId: plan.product.id })).toEqual(plan.product);
  });

  it("another account's storefront is not found, and nothing is created there", async () => {
    const owner = await createMerchant();
    const stranger = await createMerchant();
    const storefrontId = await storefrontFor(await serviceContextFor(owner.userKey));
    await expect(
      createProduct(await sessionContextFor(stranger.userId), { storefrontId, product: manifest({}) }),
    ).rejects.toMatchObject({ code: "storefront_not_found" });
    expect(await productCountOf(stranger.userId)).toBe(0);
    expect(await productCountOf(owner.userId)).toBe(0);
  });
});

describe("product reads by product id and in batches (the GraphQL door)", () => {
  it("get, update and delete by product id alone act on the caller's product; another account's is not found", async () => {
    const merchant = await createMerchant();
    const stranger = await createMerchant();
    const ctx = await serviceContextFor(merchant.userKey);
    const storefrontId = await storefrontFor(ctx);
    const product = await createProduct(ctx, { storefrontId, product: manifest({ price: 20 }) });
    expect(await getProduct(ctx, { productId: product.id })).toEqual(product);
    const changed = await updateProduct(ctx, {
      productId: product.id,
      patch: UpdateProductInput.parse({ salePrice: 15 }),
    });
    expect(changed.salePrice).toBe(15);
    const strangerCtx = await serviceContextFor(stranger.userKey);
    for (const attempt of [
      () => getProduct(strangerCtx, { productId: product.id }),
      () =>
        updateProduct(strangerCtx, {
          productId: product.id,
          patch: UpdateProductInput.parse({ title: "X" }),
        }),
      () => deleteProduct(strangerCtx, { productId: product.id }),
    ]) {
      await expect(attempt()).rejects.toMatchObject({
        code: "product_not_found",
        options: { param: "productId" },
      });
    }
    expect(await deleteProduct(ctx, { productId: product.id })).toEqual({ id: product.id, deleted: true });
    expect(await productCountOf(merchant.userId)).toBe(0);
  });

  it("loadProducts answers many ids in order: the product, 404, or 410 when its storefront was deleted", async () => {
    const merchant = await createMerchant({ plan: "PRO" });
    const ctx = await serviceContextFor(merchant.userKey);
    const kept = await storefrontFor(ctx);
    const doomed = await storefrontFor(ctx);
    const a = await createProduct(ctx, { storefrontId: kept, product: manifest({ title: "A" }) });
    const b = await createProduct(ctx, { storefrontId: doomed, product: manifest({ title: "B" }) });
    await deleteStorefront(ctx, { storefrontId: doomed });
    const loaded = await loadProducts(ctx, { productIds: [b.id, "prd_unknown", a.id] });
    expect(loaded[0]).toMatchObject({ code: "storefront_deleted" });
    expect(loaded[1]).toMatchObject({ code: "product_not_found", options: { param: "productId" } });
    expect(loaded[2]).toEqual(a);
  });

  it("loadProductsByStorefront pages each storefront's products by id in one call, with a category filter", async () => {
    const merchant = await createMerchant({ plan: "PRO" });
    const stranger = await createMerchant({ plan: "PRO" });
    const ctx = await serviceContextFor(merchant.userKey);
    const first = await storefrontFor(ctx);
    const second = await storefrontFor(ctx);
    const theirs = await storefrontFor(await serviceContextFor(stranger.userKey));
    await createProduct(await serviceContextFor(stranger.userKey), {
      storefrontId: theirs,
      product: manifest({}),
    });
    const made = (
      await createProducts(ctx, {
        storefrontId: first,
        products: [
          manifest({ title: "1", category: "Pan" }),
          manifest({ title: "2", category: "Café" }),
          manifest({ title: "3", category: "Pan" }),
        ],
      })
    ).products;
    const other = await createProduct(ctx, { storefrontId: second, product: manifest({ title: "4" }) });

    const pages = await loadProductsByStorefront(ctx, { storefrontIds: [second, theirs, first], limit: 2 });
    expect(pages[0]).toEqual({ data: [other], nextCursor: null });
    expect(pages[1]).toEqual({ data: [], nextCursor: null });
    expect(pages[2]?.data).toEqual(made.slice(0, 2));
    // The same pages, one storefront at a time, as /v1 lists them.
    expect(pages[2]).toEqual(await listProducts(ctx, { storefrontId: first, limit: 2 }));
    const [rest] = await loadProductsByStorefront(ctx, {
      storefrontIds: [first],
      limit: 2,
      cursor: pages[2]?.nextCursor ?? undefined,
    });
    expect(rest).toEqual({ data: [made[2]], nextCursor: null });
    const [bread] = await loadProductsByStorefront(ctx, {
      storefrontIds: [first],
      limit: 20,
      category: "Pan",
    });
    expect(bread?.data.map((p) => p.title)).toEqual(["1", "3"]);

    await deleteStorefront(ctx, { storefrontId: second });
    expect(await loadProductsByStorefront(ctx, { storefrontIds: [second], limit: 20 })).toEqual([
      { data: [], nextCursor: null },
    ]);
  });
});
