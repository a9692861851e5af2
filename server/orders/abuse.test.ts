import { describe, expect, it } from "vitest";
import type { AppError } from "@/server/errors";
import { getProduct, updateProduct } from "@/server/products/service";
import { publishStorefront } from "@/server/storefronts/service";
import { createMerchant } from "@/server/storefronts/testing";
import { contextWith, serviceContextFor } from "@/server/testing/context";
import { CreateOrderInput, PublicOrderInput } from "./schema";
import { createOrder, placePublicOrder } from "./service";
import { createStorefrontWithProduct } from "./testing";

// The public page's abuse limits and rules (docs/api.md, "Public storefront"; docs/security.md, "Abuse limits and
// product decisions"), called on the service so they hold whatever door places the order.

const publicOrder = (items: Array<{ productId: string; amount: number }>) =>
  PublicOrderInput.parse({
    items,
    customer: { name: "Ana", phone: "+5215512345678" },
    paymentMethod: { name: "Efectivo" },
  });

async function publishedStore(stock: number | null = null) {
  const merchant = await createMerchant({ plan: "PRO", verified: true });
  const { storefrontId, productId } = await createStorefrontWithProduct(
    merchant.userKey,
    { price: 30, stock },
    { pickup: true },
  );
  const ctx = await serviceContextFor(merchant.userKey);
  const published = await publishStorefront(ctx, { storefrontId });
  return { merchant, ctx, storefrontId, productId, slug: published.slug ?? "" };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  return promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (error: AppError) => error,
  );
}

describe("M7: hidden products", () => {
  it("M7: a hidden product cannot be ordered from the public page (product_not_found), and its stock is untouched", async () => {
    const { ctx, storefrontId, productId, slug } = await publishedStore(5);
    await updateProduct(ctx, { storefrontId, productId, patch: { hide: true } });
    const error = await refusal(
      placePublicOrder(await contextWith(null), {
        slug,
        order: publicOrder([{ productId, amount: 2 }]),
        clientIp: null,
      }),
    );
    expect(error.code).toBe("product_not_found");
    expect(error.options.param).toBe("items[0].productId");
    expect((await getProduct(ctx, { storefrontId, productId })).stock).toBe(5);
  });

  it("M7: a hidden product sold out answers product_not_found on the page too (its title is never named)", async () => {
    const { ctx, storefrontId, productId, slug } = await publishedStore(0);
    await updateProduct(ctx, { storefrontId, productId, patch: { hide: true } });
    const error = await refusal(
      placePublicOrder(await contextWith(null), {
        slug,
        order: publicOrder([{ productId, amount: 1 }]),
        clientIp: null,
      }),
    );
    expect(error.code).toBe("product_not_found");
  });

  it("M7: the merchant's own /v1 (phone or counter) order may still take a hidden product", async () => {
    const { ctx, storefrontId, productId } = await publishedStore(5);
    await updateProduct(ctx, { storefrontId, productId, patch: { hide: true } });
    const placed = await createOrder(ctx, {
      storefrontId,
      order: CreateOrderInput.parse({
        items: [{ productId, amount: 2 }],
        customer: { name: "Ana", phone: "+5215512345678" },
        paymentMethod: { name: "Efectivo" },
      }),
    });
    expect(placed.items[0]?.productId).toBe(productId);
    expect((await getProduct(ctx, { storefrontId, productId })).stock).toBe(3);
  });
});
