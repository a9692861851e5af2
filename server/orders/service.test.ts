import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dbReady } from "@/server/db/client";
import { getProduct } from "@/server/products/service";
import { publishStorefront } from "@/server/storefronts/service";
import { createMerchant } from "@/server/storefronts/testing";
import { contextWith, oauthContextFor, serviceContextFor, sessionContextFor } from "@/server/testing/context";
import { webhookEvents } from "@/server/webhooks/tables";
import { CreateOrderInput } from "./schema";
import {
  createOrder,
  getOrder,
  listAccountOrders,
  listOrders,
  loadOrders,
  loadOrdersByStorefront,
  payOrder,
  placePublicOrder,
  updateOrderStatus,
} from "./service";
import { orders } from "./tables";
import { createStorefrontWithProduct } from "./testing";

// Order services called directly (docs/api.md, "Orders"): the merchant's doors and the public page's order
// share one path, so prices, stock and events are the same whoever places the order.

const order = (productId: string, amount = 1, extra: Record<string, unknown> = {}) =>
  CreateOrderInput.parse({
    items: [{ productId, amount }],
    customer: { name: "Ana", phone: "+5215512345678" },
    paymentMethod: { name: "Efectivo" },
    ...extra,
  });

async function publishedStore(stock: number | null = null) {
  const merchant = await createMerchant({ plan: "PRO", verified: true });
  const { storefrontId, productId } = await createStorefrontWithProduct(
    merchant.userKey,
    { price: 30, salePrice: 25, stock },
    {
      pickup: true,
      delivery: { enabled: true, type: "distance", ranges: [{ fromKm: 0, toKm: 5, price: 20 }] },
    },
  );
  const ctx = await serviceContextFor(merchant.userKey);
  const published = await publishStorefront(ctx, { storefrontId });
  return { merchant, ctx, storefrontId, productId, slug: published.slug ?? "" };
}

describe("order services", () => {
  it.each(["api_key", "session", "oauth"] as const)("%s: place, read, move and pay an order", async (via) => {
    const { merchant, storefrontId, productId } = await publishedStore();
    const ctx =
      via === "api_key"
        ? await serviceContextFor(merchant.userKey)
        : via === "session"
          ? await sessionContextFor(merchant.userId)
          : await oauthContextFor(merchant.userKey);
    const placed = await createOrder(ctx, { storefrontId, order: order(productId, 2) });
    // Prices come from the catalog: the sale price, never a price sent by the caller.
    expect(placed).toMatchObject({
      subtotalPrice: 50,
      totalPrice: 50,
      orderStatus: "pending",
      paymentStatus: "pending",
    });
    expect(await getOrder(ctx, { orderId: placed.id })).toEqual(placed);
    const accepted = await updateOrderStatus(ctx, {
      orderId: placed.id,
      change: { orderStatus: "accepted" },
    });
    expect(accepted.orderStatus).toBe("accepted");
    const paid = await payOrder(ctx, { orderId: placed.id, paymentMethod: { name: "Tarjeta" } });
    expect(paid.paymentStatus).toBe("paid");
    expect((await listOrders(ctx, { storefrontId, limit: 20 })).data.map((o) => o.id)).toEqual([placed.id]);
  });

  it("a public order needs no actor: the owner comes from the storefront, events fire, the source is public", async () => {
    const { merchant, storefrontId, productId, slug } = await publishedStore(5);
    const visitor = await contextWith(null);
    const placed = await placePublicOrder(visitor, {
      slug,
      order: order(productId, 2, { fulfillment: { type: "delivery", distanceKm: 3 } }),
    });
    expect(placed).toMatchObject({
      storefrontId,
      userId: merchant.userId,
      deliveryPrice: 20,
      totalPrice: 70,
    });
    const db = await dbReady();
    const [row] = await db.select().from(orders).where(eq(orders.id, placed.id));
    expect(row?.source).toBe("public");
    const events = await db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.type, "order.created"), eq(webhookEvents.accountId, merchant.userId)));
    expect(events).toHaveLength(1);
    const ctx = await serviceContextFor(merchant.userKey);
    expect((await getProduct(ctx, { storefrontId, productId })).stock).toBe(3);
  });

  it("a public order on an unpublished or hidden storefront is storefront_not_found, and takes no stock", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const { storefrontId, productId } = await createStorefrontWithProduct(
      merchant.userKey,
      { stock: 1 },
      {
        slug: `draft-${Date.now()}`,
      },
    );
    const visitor = await contextWith(null);
    await expect(
      placePublicOrder(visitor, { slug: `draft-${Date.now()}`, order: order(productId) }),
    ).rejects.toMatchObject({ code: "storefront_not_found" });
    const ctx = await serviceContextFor(merchant.userKey);
    expect((await getProduct(ctx, { storefrontId, productId })).stock).toBe(1);
  });

  it("two public orders race for the last unit: one is placed, the other is told there is not enough stock", async () => {
    const { productId, slug } = await publishedStore(1);
    const attempts = await Promise.allSettled([
      placePublicOrder(await contextWith(null), { slug, order: order(productId) }),
      placePublicOrder(await contextWith(null), { slug, order: order(productId) }),
    ]);
    expect(attempts.filter((a) => a.status === "fulfilled")).toHaveLength(1);
    const refused = attempts.find((a) => a.status === "rejected");
    expect(refused).toMatchObject({
      reason: { code: "insufficient_stock", options: { param: "items[0].amount" } },
    });
  });

  it("another account's order is not found; an order of a product from another storefront is product_not_found", async () => {
    const first = await publishedStore();
    const second = await publishedStore();
    const placed = await createOrder(first.ctx, {
      storefrontId: first.storefrontId,
      order: order(first.productId),
    });
    await expect(getOrder(second.ctx, { orderId: placed.id })).rejects.toMatchObject({
      code: "order_not_found",
    });
    await expect(
      createOrder(first.ctx, { storefrontId: first.storefrontId, order: order(second.productId) }),
    ).rejects.toMatchObject({ code: "product_not_found", options: { param: "items[0].productId" } });
  });
});

describe("order reads across storefronts and in batches (the GraphQL door)", () => {
  async function twoStores() {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const ctx = await serviceContextFor(merchant.userKey);
    const one = await createStorefrontWithProduct(merchant.userKey, { price: 10 });
    const two = await createStorefrontWithProduct(merchant.userKey, { price: 20 });
    const place = (store: { storefrontId: string; productId: string }) =>
      createOrder(ctx, { storefrontId: store.storefrontId, order: order(store.productId) });
    const placed = [await place(one), await place(two), await place(one)];
    return { ctx, one, two, placed };
  }

  it("listAccountOrders lists the account's orders by id, of one storefront or one status, page by page", async () => {
    const { ctx, one, two, placed } = await twoStores();
    const stranger = await twoStores();
    const accepted = await updateOrderStatus(ctx, {
      orderId: placed[1]?.id ?? "",
      change: { orderStatus: "accepted" },
    });
    const all = await listAccountOrders(ctx, { limit: 2 });
    expect(all.data.map((o) => o.id)).toEqual([placed[0]?.id, placed[1]?.id]);
    const rest = await listAccountOrders(ctx, { limit: 2, cursor: all.nextCursor ?? undefined });
    expect(rest).toEqual({ data: [placed[2]], nextCursor: null });
    expect((await listAccountOrders(ctx, { storefrontId: one.storefrontId, limit: 20 })).data).toEqual(
      (await listOrders(ctx, { storefrontId: one.storefrontId, limit: 20 })).data,
    );
    expect(await listAccountOrders(ctx, { status: "accepted", limit: 20 })).toEqual({
      data: [accepted],
      nextCursor: null,
    });
    expect(
      (await listAccountOrders(ctx, { storefrontId: two.storefrontId, status: "pending", limit: 20 })).data,
    ).toEqual([]);
    await expect(
      listAccountOrders(ctx, { storefrontId: stranger.one.storefrontId, limit: 20 }),
    ).rejects.toMatchObject({ code: "storefront_not_found" });
  });

  it("loadOrders and loadOrdersByStorefront answer many ids in one call each, the caller's orders only", async () => {
    const { ctx, one, two, placed } = await twoStores();
    const stranger = await twoStores();
    const loaded = await loadOrders(ctx, { orderIds: [placed[2]?.id ?? "", stranger.placed[0]?.id ?? ""] });
    expect(loaded[0]).toEqual(placed[2]);
    expect(loaded[1]).toMatchObject({ code: "order_not_found", options: { param: "orderId" } });
    const pages = await loadOrdersByStorefront(ctx, {
      storefrontIds: [two.storefrontId, stranger.one.storefrontId, one.storefrontId],
      limit: 1,
    });
    expect(pages[0]).toEqual({ data: [placed[1]], nextCursor: null });
    expect(pages[1]).toEqual({ data: [], nextCursor: null });
    expect(pages[2]).toEqual(await listOrders(ctx, { storefrontId: one.storefrontId, limit: 1 }));
    const [next] = await loadOrdersByStorefront(ctx, {
      storefrontIds: [one.storefrontId],
      limit: 1,
      cursor: pages[2]?.nextCursor ?? undefined,
    });
    expect(next).toEqual({ data: [placed[2]], nextCursor: null });
  });
});
