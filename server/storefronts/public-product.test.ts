import { describe, expect, it } from "vitest";
import { newId } from "@/server/lib/ids";
import { createStorefrontWithProduct } from "@/server/orders/testing";
import { updateProduct } from "@/server/products/service";
import { contextWith, serviceContextFor } from "@/server/testing/context";
import { getPublishedProduct, publishStorefront, unpublishStorefront } from "./publish";
import { createMerchant } from "./testing";

// docs/api.md, "Public storefront": the product page reads one row, the product with its storefront.
async function publishedProduct() {
  const merchant = await createMerchant({ plan: "PRO", verified: true });
  const { storefrontId, productId } = await createStorefrontWithProduct(merchant.userKey, {
    title: "Concha",
  });
  const ctx = await serviceContextFor(merchant.userKey);
  const published = await publishStorefront(ctx, { storefrontId });
  return { ctx, storefrontId, productId, slug: published.slug ?? "" };
}

describe("L9: the public product page", () => {
  it("L9: a product of a published storefront comes with its storefront, in one lookup by id", async () => {
    const { productId, slug, storefrontId } = await publishedProduct();
    const found = await getPublishedProduct(await contextWith(null), { slug, productId });
    expect(found.product).toMatchObject({ id: productId, title: "Concha" });
    expect(found.storefront).toMatchObject({ id: storefrontId, slug });
  });

  it("L9: an unknown product id, a hidden product, another store's product or an unpublished store are 404 product_not_found", async () => {
    const visitor = await contextWith(null);
    const first = await publishedProduct();
    const second = await publishedProduct();
    const notFound = { code: "product_not_found", options: { param: "productId" } };
    await expect(
      getPublishedProduct(visitor, { slug: first.slug, productId: newId("prd") }),
    ).rejects.toMatchObject(notFound);
    await expect(
      getPublishedProduct(visitor, { slug: first.slug, productId: second.productId }),
    ).rejects.toMatchObject(notFound);
    await updateProduct(first.ctx, {
      storefrontId: first.storefrontId,
      productId: first.productId,
      patch: { hide: true },
    });
    await expect(
      getPublishedProduct(visitor, { slug: first.slug, productId: first.productId }),
    ).rejects.toMatchObject(notFound);
    await unpublishStorefront(second.ctx, { storefrontId: second.storefrontId });
    await expect(
      getPublishedProduct(visitor, { slug: second.slug, productId: second.productId }),
    ).rejects.toMatchObject(notFound);
  });
});
