import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { describe, expect, it } from "vitest";
import { env } from "@/server/env";
import { type AppError, isAppError } from "@/server/errors";
import { signedInSession } from "@/server/sessions/testing";
import { createMerchant, createTestStorefront, setProductCount } from "@/server/storefronts/testing";
import { sessionContextFor } from "@/server/testing/context";
import { createTrpcContextFromRequest } from "@/server/trpc/context";
import { appRouter, createCaller } from "@/server/wiring/trpc";

// The dashboard's product procedures (docs/ui.md, "Products") through the tRPC caller on a real database: the
// same services, rules and error codes as /v1.

async function merchantCaller(options: { plan?: "FREE_NEW" | "PRO" } = {}) {
  const merchant = await createMerchant({ verified: true, plan: options.plan });
  const storefront = await createTestStorefront(merchant.userKey, {
    categories: [
      { name: "Pan dulce", position: 2 },
      { name: "Bebidas", position: 1 },
    ],
  });
  // Same origin: the caller may mutate, as the browser's calls through /api/trpc do.
  const caller = createCaller({ service: await sessionContextFor(merchant.userId), sameOrigin: true });
  return { merchant, storefrontId: storefront.id, caller };
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (!isAppError(cause)) throw new Error(`expected an AppError, got ${String(error)}`);
  return cause;
}

const manifest = (n: number, extra: Record<string, unknown> = {}) => ({
  title: `Concha ${n}`,
  price: 10 + n,
  ...extra,
});

describe("products over tRPC", () => {
  it("table: by position (unset last), search by title or SKU, category filter, cursor pagination", async () => {
    const { storefrontId, caller } = await merchantCaller();
    await caller.products.importBatch({
      storefrontId,
      products: [
        manifest(1, { position: 3, sku: "PAN-001", category: "Pan dulce" }),
        manifest(2, { position: 1, sku: "CAF-002", category: "Bebidas", title: "Café de olla" }),
        manifest(3, { sku: "PAN-003", category: "Pan dulce" }),
        manifest(4, { position: 2, category: "Salados", title: "Bolillo 50%_off" }),
      ],
    });
    const first = await caller.products.table({ storefrontId, limit: 2 });
    expect(first.data.map((p) => p.title)).toEqual(["Café de olla", "Bolillo 50%_off"]);
    expect(first.nextCursor).not.toBeNull();
    const second = await caller.products.table({ storefrontId, limit: 2, cursor: first.nextCursor ?? "" });
    expect(second.data.map((p) => p.title)).toEqual(["Concha 1", "Concha 3"]);
    expect(second.nextCursor).toBeNull();

    expect((await caller.products.table({ storefrontId, q: "pan-00" })).data.map((p) => p.sku)).toEqual([
      "PAN-001",
      "PAN-003",
    ]);
    expect((await caller.products.table({ storefrontId, q: "CAFÉ" })).data).toHaveLength(1);
    // LIKE's wildcards are taken literally.
    expect((await caller.products.table({ storefrontId, q: "%_" })).data.map((p) => p.title)).toEqual([
      "Bolillo 50%_off",
    ]);
    const bebidas = await caller.products.table({ storefrontId, category: "Bebidas" });
    expect(bebidas.data.map((p) => p.sku)).toEqual(["CAF-002"]);
    // An unreadable cursor restarts at page one, as every list does (docs/api.md, "Lists").
    expect((await caller.products.table({ storefrontId, limit: 1, cursor: "garbage" })).data[0]?.title).toBe(
      "Café de olla",
    );
  });

  it("catalog: the storefront's categories in order, then those only on products; usage against the plan limit", async () => {
    const { merchant, storefrontId, caller } = await merchantCaller();
    await caller.products.create({ storefrontId, product: manifest(1, { category: "Temporada" }) });
    await setProductCount(merchant.userId, 1_990);
    const catalog = await caller.products.catalog({ storefrontId });
    expect(catalog.categories).toEqual(["Bebidas", "Pan dulce", "Temporada"]);
    expect(catalog.productCount).toBe(1);
    expect(catalog.usage).toEqual({ used: 1_990, limit: 2_000, plan: "FREE_NEW" });
    expect(catalog.storefront).toMatchObject({ id: storefrontId, currency: "MXN" });
  });

  it("import: a batch past the 2,000-product limit creates what fits and rejects the rest, each with products_over_limit", async () => {
    const { merchant, storefrontId, caller } = await merchantCaller();
    await setProductCount(merchant.userId, 1_997);
    const result = await caller.products.importBatch({
      storefrontId,
      products: [1, 2, 3, 4, 5].map((n) => manifest(n)),
    });
    expect(result.products.map((p) => p.title)).toEqual(["Concha 1", "Concha 2", "Concha 3"]);
    expect(result.rejected.map((r) => r.index)).toEqual([3, 4]);
    expect(result.rejected[0]?.error).toMatchObject({
      code: "products_over_limit",
      param: "products[3]",
      upgrade: { currentPlan: "FREE_NEW", requiredPlan: "PRO" },
    });
    expect(result.rejected[0]?.error.message).toContain("2000");
  });

  it("salePrice must be below price: invalid_request with param salePrice, nothing saved", async () => {
    const { storefrontId, caller } = await merchantCaller();
    const product = await caller.products.create({ storefrontId, product: manifest(1, { price: 20 }) });
    const error = await rejection(
      caller.products.update({ storefrontId, productId: product.id, patch: { salePrice: 25 } }),
    );
    expect(error.code).toBe("invalid_request");
    expect(error.options.param).toBe("salePrice");
    expect((await caller.products.get({ storefrontId, productId: product.id })).salePrice).toBeNull();
    const groups = await rejection(
      caller.products.create({
        storefrontId,
        product: manifest(2, {
          extraProductsCategory: [
            { title: "Relleno", obligatory: true, multipleOption: false, minOptions: 2, maxOptions: 1 },
          ],
        }),
      }),
    );
    expect(groups.options.param).toBe("product.extraProductsCategory[0].minOptions");
  });

  it("another account's storefront and product are not found (404 with param), never changed", async () => {
    const owner = await merchantCaller();
    const product = await owner.caller.products.create({
      storefrontId: owner.storefrontId,
      product: manifest(1),
    });
    const stranger = await merchantCaller();
    const ref = { storefrontId: owner.storefrontId, productId: product.id };
    for (const call of [
      () => stranger.caller.products.table({ storefrontId: owner.storefrontId }),
      () => stranger.caller.products.catalog({ storefrontId: owner.storefrontId }),
      () => stranger.caller.products.create({ storefrontId: owner.storefrontId, product: manifest(2) }),
      () =>
        stranger.caller.products.importBatch({ storefrontId: owner.storefrontId, products: [manifest(3)] }),
    ]) {
      const error = await rejection(call());
      expect(error.code).toBe("storefront_not_found");
      expect(error.options.param).toBe("storefrontId");
    }
    // The stranger's own storefront with the owner's product id: product_not_found.
    const foreign = { storefrontId: stranger.storefrontId, productId: product.id };
    for (const call of [
      () => stranger.caller.products.get(foreign),
      () => stranger.caller.products.update({ ...foreign, patch: { price: 1 } }),
      () => stranger.caller.products.delete(foreign),
    ]) {
      const error = await rejection(call());
      expect(error.code).toBe("product_not_found");
      expect(error.options.param).toBe("productId");
    }
    expect(await owner.caller.products.get(ref)).toMatchObject({ price: 11 });
  });

  it("over HTTP: a foreign product is 404 with the catalogue error object and its param", async () => {
    const owner = await merchantCaller();
    const product = await owner.caller.products.create({
      storefrontId: owner.storefrontId,
      product: manifest(1),
    });
    const stranger = await createMerchant({ verified: true });
    const session = await signedInSession(stranger.email);
    const origin = new URL(env().APP_URL).origin;
    const request = new Request(`${origin}/api/trpc/products.update`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        cookie: `marea_session=${session.session.token}`,
        origin,
      },
      body: JSON.stringify({ storefrontId: owner.storefrontId, productId: product.id, patch: { price: 1 } }),
    });
    const response = await fetchRequestHandler({
      endpoint: "/api/trpc",
      req: request,
      router: appRouter,
      createContext: () => createTrpcContextFromRequest(request),
    });
    expect(response.status).toBe(404);
    const body = await response.json();
    expect(body.error.data.error).toMatchObject({
      code: "storefront_not_found",
      type: "not_found",
      param: "storefrontId",
    });
  });
});
