import { describe, expect, it } from "vitest";
import { CreateStorefrontInput } from "@/server/storefronts/schema";
import { createStorefront } from "@/server/storefronts/service";
import { createMerchant, productCountOf, setProductCount } from "@/server/storefronts/testing";
import { oauthContextFor, serviceContextFor, sessionContextFor } from "@/server/testing/context";
import { ProductManifest, UpdateProductInput } from "./schema";
import {
  createProduct,
  createProducts,
  deleteProduct,
  getProduct,
  listProducts,
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
