import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dbReady } from "@/server/db/client";
import { type AppError, messageFor } from "@/server/errors";
import { sha256Hex } from "@/server/lib/crypto";
import { getProduct } from "@/server/products/service";
import { uniqueIp } from "@/server/sessions/testing";
import { EVERY_STOREFRONT, onStorefrontChanged, type StorefrontChange } from "@/server/storefronts/changes";
import { updateStorefrontSettings } from "@/server/storefronts/dashboard";
import { publishStorefront } from "@/server/storefronts/publish";
import { createMerchant } from "@/server/storefronts/testing";
import {
  asAdapter,
  contextWith,
  oauthContextFor,
  serviceContextFor,
  sessionContextFor,
} from "@/server/testing/context";
import { parseInput } from "@/server/validation";
import { webhookEvents } from "@/server/webhooks/tables";
import { payOrder, updateOrderStatus } from "./lifecycle";
import { createOrder, placePublicOrder } from "./place";
import { getPublicOrder, purgePublicOrderRateLimits } from "./public";
import { CreateOrderInput, PublicOrderInput } from "./schema";
import { getOrder, listAccountOrders, listOrders, loadOrders, loadOrdersByStorefront } from "./service";
import { orders } from "./tables";
import { createStorefrontWithProduct } from "./testing";

// Order services called directly (docs/api.md, "Orders"): the merchant's doors and the public page's order
// share one path, so prices, stock and events are the same whoever places the order.

const order = (productId: string, amount = 1, extra: Record<string, unknown> = {}) =>
  PublicOrderInput.parse({
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
    const { order: placed } = await placePublicOrder(visitor, {
      slug,
      order: order(productId, 2, { fulfillment: { type: "delivery", distanceKm: 3 } }),
      clientIp: uniqueIp(),
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
      placePublicOrder(visitor, {
        slug: `draft-${Date.now()}`,
        order: order(productId),
        clientIp: uniqueIp(),
      }),
    ).rejects.toMatchObject({ code: "storefront_not_found" });
    const ctx = await serviceContextFor(merchant.userKey);
    expect((await getProduct(ctx, { storefrontId, productId })).stock).toBe(1);
  });

  it("two public orders race for the last unit: one is placed, the other is told there is not enough stock", async () => {
    const { productId, slug } = await publishedStore(1);
    const attempts = await Promise.allSettled([
      placePublicOrder(await contextWith(null), { slug, order: order(productId), clientIp: uniqueIp() }),
      placePublicOrder(await contextWith(null), { slug, order: order(productId), clientIp: uniqueIp() }),
    ]);
    expect(attempts.filter((a) => a.status === "fulfilled")).toHaveLength(1);
    const refused = attempts.find((a) => a.status === "rejected");
    expect(refused).toMatchObject({
      reason: { code: "insufficient_stock", options: { param: "items[0].amount" } },
    });
    const reason = (refused as PromiseRejectedResult).reason as AppError;
    expect(messageFor(reason, "es")).toBe('"Taco al pastor" está agotado.');
    expect(messageFor(reason, "en")).toBe('"Taco al pastor" is sold out.');
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

// docs/api.md, "Options": every rule of option groups, enforced on the stored product whatever the door.
describe("options in orders", () => {
  const groups = [
    {
      title: "Size",
      obligatory: true,
      multipleOption: false,
      maxOptions: 1,
      minOptions: 1,
      extraProducts: [
        { title: "Small", price: 0, available: true },
        { title: "Large", price: 20, available: true },
      ],
    },
    {
      title: "Extras",
      obligatory: false,
      multipleOption: true,
      maxOptions: 2,
      minOptions: 0,
      extraProducts: [
        { title: "Cheese", price: 5, available: true, stock: 3 },
        { title: "Bacon", price: 8, available: false },
        { title: "Onion", price: 2, available: true },
      ],
    },
    {
      title: "Sauces",
      obligatory: false,
      multipleOption: true,
      maxOptions: 2,
      minOptions: 2,
      extraProducts: [
        { title: "Red", price: 0, available: true },
        { title: "Green", price: 0, available: true },
      ],
    },
  ];

  async function pizzeria() {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const { storefrontId, productId } = await createStorefrontWithProduct(
      merchant.userKey,
      { title: "Pizza", price: 100, stock: 10, extraProductsCategory: groups } as never,
      { pickup: true },
    );
    const ctx = await serviceContextFor(merchant.userKey);
    return { merchant, ctx, storefrontId, productId };
  }

  const line = (productId: string, amount: number, options: Array<[number, number]>) => ({
    productId,
    amount,
    options: options.map(([group, option]) => ({ group, option })),
  });
  const withLines = (...items: ReturnType<typeof line>[]) =>
    CreateOrderInput.parse({
      items,
      customer: { name: "Ana", phone: "+5215512345678" },
      paymentMethod: { name: "Efectivo" },
    });

  it("chosen options are priced into the line, kept on the order, and named in the webhook's item title", async () => {
    const { merchant, ctx, storefrontId, productId } = await pizzeria();
    const placed = await createOrder(ctx, {
      storefrontId,
      order: withLines(
        line(productId, 2, [
          [0, 1],
          [1, 0],
          [1, 2],
        ]),
      ),
    });
    expect(placed.items).toEqual([
      {
        productId,
        title: "Pizza",
        amount: 2,
        price: 127,
        options: [
          { group: 0, option: 1, groupTitle: "Size", title: "Large", price: 20 },
          { group: 1, option: 0, groupTitle: "Extras", title: "Cheese", price: 5 },
          { group: 1, option: 2, groupTitle: "Extras", title: "Onion", price: 2 },
        ],
      },
    ]);
    expect(placed.subtotalPrice).toBe(254);
    const [event] = await (await dbReady())
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.type, "order.created"), eq(webhookEvents.accountId, merchant.userId)));
    expect((event?.envelope as { data: { items: unknown } } | undefined)?.data.items).toEqual([
      { title: "Pizza (Large, Cheese, Onion)", amount: 2, price: 127 },
    ]);
    const product = await getProduct(ctx, { storefrontId, productId });
    expect(product.stock).toBe(8);
    expect(product.extraProductsCategory?.[1]?.extraProducts?.[0]?.stock).toBe(1);
  });

  it.each([
    ["a missing obligatory choice", [[1, 0]], "invalid_request", /"Size" is obligatory/],
    [
      "two options of a one-option group",
      [
        [0, 0],
        [0, 1],
      ],
      "invalid_request",
      /at most 1 of "Size"/,
    ],
    [
      "more than maxOptions",
      [
        [0, 0],
        [1, 0],
        [1, 1],
        [1, 2],
      ],
      "invalid_request",
      /./,
    ],
    [
      "fewer than minOptions once the group is used",
      [
        [0, 0],
        [2, 0],
      ],
      "invalid_request",
      /at least 2 of "Sauces"/,
    ],
    [
      "an unavailable option",
      [
        [0, 0],
        [1, 1],
      ],
      "invalid_request",
      /"Bacon" of "Extras" is not available/,
    ],
    ["an option that does not exist", [[0, 5]], "invalid_request", /no option 5 in group 0/],
    [
      "the same option twice",
      [
        [0, 0],
        [0, 0],
      ],
      "invalid_request",
      /chosen twice/,
    ],
    [
      "more of an option than its stock",
      [
        [0, 0],
        [1, 0],
      ],
      "insufficient_stock",
      /"Cheese" \(Pizza\): 3 left/,
    ],
  ] as const)(
    "refuses %s with param items[0].options, and takes no stock",
    async (_, options, code, detail) => {
      const { ctx, storefrontId, productId } = await pizzeria();
      const amount = code === "insufficient_stock" ? 4 : 1;
      const refusal = await createOrder(ctx, {
        storefrontId,
        order: withLines(line(productId, amount, options as unknown as Array<[number, number]>)),
      }).then(
        () => null,
        (error: { code: string; options: { param: string; detail: string } }) => error,
      );
      expect(refusal?.code).toBe(code);
      expect(refusal?.options.param).toBe("items[0].options");
      expect(refusal && messageFor(refusal as unknown as AppError, "en")).toMatch(detail);
      expect((await getProduct(ctx, { storefrontId, productId })).stock).toBe(10);
    },
  );

  it("lines of one product share its option stock: short, the line that went over is named", async () => {
    const { ctx, storefrontId, productId } = await pizzeria();
    await expect(
      createOrder(ctx, {
        storefrontId,
        order: withLines(
          line(productId, 2, [
            [0, 0],
            [1, 0],
          ]),
          line(productId, 2, [
            [0, 1],
            [1, 0],
          ]),
        ),
      }),
    ).rejects.toMatchObject({ code: "insufficient_stock", options: { param: "items[0].options" } });
    const placed = await createOrder(ctx, {
      storefrontId,
      order: withLines(
        line(productId, 2, [
          [0, 0],
          [1, 0],
        ]),
        line(productId, 1, [
          [0, 1],
          [1, 0],
        ]),
      ),
    });
    expect(placed.items.map((item) => item.price)).toEqual([105, 125]);
    const product = await getProduct(ctx, { storefrontId, productId });
    expect(product.extraProductsCategory?.[1]?.extraProducts?.[0]?.stock).toBe(0);
    // Cancelling puts the product's and the option's stock back.
    await updateOrderStatus(ctx, { orderId: placed.id, change: { orderStatus: "cancelled" } });
    const restocked = await getProduct(ctx, { storefrontId, productId });
    expect(restocked.stock).toBe(10);
    expect(restocked.extraProductsCategory?.[1]?.extraProducts?.[0]?.stock).toBe(3);
  });

  it("two orders race for the last unit of an option: one is placed, the other is told it sold out", async () => {
    const { merchant, storefrontId, productId } = await pizzeria();
    const attempts = await Promise.allSettled(
      [3, 1].map(async (amount) =>
        createOrder(await serviceContextFor(merchant.userKey), {
          storefrontId,
          order: withLines(
            line(productId, amount, [
              [0, 0],
              [1, 0],
            ]),
          ),
        }),
      ),
    );
    expect(attempts.filter((a) => a.status === "fulfilled")).toHaveLength(1);
    expect(attempts.find((a) => a.status === "rejected")).toMatchObject({
      reason: { code: "insufficient_stock", options: { param: "items[0].options" } },
    });
  });

  it("options for a product without groups are refused; orders without options still work (backward compatible)", async () => {
    const { merchant, storefrontId, productId } = await publishedStore();
    const ctx = await serviceContextFor(merchant.userKey);
    await expect(
      createOrder(ctx, { storefrontId, order: withLines(line(productId, 1, [[0, 0]])) }),
    ).rejects.toMatchObject({ code: "invalid_request", options: { param: "items[0].options" } });
    const placed = await createOrder(ctx, { storefrontId, order: order(productId) });
    expect(placed.items[0]?.options).toEqual([]);
  });
});

// docs/api.md, "Public storefront": the page's own rules on top of every order's.
describe("orders from the public page", () => {
  const visitorAt = (iso: string) => contextWith(null, () => new Date(iso));

  it("a closed store refuses with storefront_closed naming the next opening; the merchant's own /v1 order still works", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const day = { open: "09:00", close: "17:00", closed: null };
    const { storefrontId, productId } = await createStorefrontWithProduct(
      merchant.userKey,
      {},
      {
        schedule: {
          monday: day,
          tuesday: day,
          wednesday: day,
          thursday: day,
          friday: day,
          saturday: null,
          sunday: { closed: true },
        },
      },
    );
    const ctx = await serviceContextFor(merchant.userKey);
    const { slug } = await publishStorefront(ctx, { storefrontId });
    // Friday 2026-06-05 18:00 in Mexico City (MXN's default zone, UTC-6): next opening Monday 09:00.
    const closed = await placePublicOrder(await visitorAt("2026-06-06T00:00:00Z"), {
      slug: slug ?? "",
      order: order(productId),
      clientIp: uniqueIp(),
    }).then(
      () => null,
      (error: AppError) => error,
    );
    expect(closed?.code).toBe("storefront_closed");
    expect(closed?.status).toBe(409);
    expect(closed?.options.retryAfterMs).toBe((2 * 24 + 15) * 3600 * 1000);
    expect(closed && messageFor(closed, "en")).toBe(
      "This store is closed right now and is not taking orders. It opens Monday 09:00.",
    );
    expect(closed && messageFor(closed, "es")).toMatch(/Abre: lunes, 09:00\.$/);
    expect(closed && messageFor(closed, "pt")).toMatch(/Abre: segunda-feira, 09:00\.$/);
    const counter = await createOrder(
      await serviceContextFor(merchant.userKey, () => new Date("2026-06-06T00:00:00Z")),
      { storefrontId, order: order(productId) },
    );
    expect(counter.orderStatus).toBe("pending");
    const open = await placePublicOrder(await visitorAt("2026-06-05T16:00:00Z"), {
      slug: slug ?? "",
      order: order(productId),
      clientIp: uniqueIp(),
    });
    expect(open.order.publicOrderId).toBe(2);
  });

  it("the status token is random, shown once, stored only as its SHA-256; the status page needs it", async () => {
    const { ctx, productId, slug } = await publishedStore();
    const placed = await placePublicOrder(await contextWith(null), {
      slug,
      order: order(productId),
      clientIp: uniqueIp(),
    });
    expect(placed.statusToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await (await dbReady()).select().from(orders).where(eq(orders.id, placed.order.id));
    expect(row?.statusTokenHash).toBe(sha256Hex(placed.statusToken));
    expect(JSON.stringify(row)).not.toContain(placed.statusToken);

    const visitor = await contextWith(null);
    const view = await getPublicOrder(visitor, { orderId: placed.order.id, token: placed.statusToken });
    expect(view.order).toMatchObject({
      publicOrderId: placed.order.publicOrderId,
      orderStatus: "pending",
      status: { id: "pending", label: "Pendiente" },
      totalPrice: 25,
    });
    expect(JSON.stringify(view)).not.toContain("+5215512345678");
    await updateOrderStatus(ctx, {
      orderId: placed.order.id,
      change: { orderStatus: "accepted", customStatus: { id: "oven", label: "En el horno" } },
    });
    const followed = await getPublicOrder(visitor, { orderId: placed.order.id, token: placed.statusToken });
    expect(followed.order).toMatchObject({ orderStatus: "accepted", status: { label: "En el horno" } });

    for (const token of [
      `${placed.statusToken.slice(0, -1)}A`,
      "",
      "x".repeat(43),
      placed.statusToken.slice(1),
    ]) {
      if (token === placed.statusToken) continue;
      await expect(getPublicOrder(visitor, { orderId: placed.order.id, token })).rejects.toMatchObject({
        code: "order_not_found",
      });
    }
    // An order the merchant placed over /v1 has no status link.
    const counter = await createOrder(ctx, {
      storefrontId: placed.order.storefrontId,
      order: order(productId),
    });
    await expect(
      getPublicOrder(visitor, { orderId: counter.id, token: placed.statusToken }),
    ).rejects.toMatchObject({
      code: "order_not_found",
    });
  });

  it("10 orders a minute per client IP: the 11th is order_rate_limited (refused attempts count); other IPs and the next minute are not", async () => {
    const { productId, slug } = await publishedStore();
    const now = new Date("2026-06-01T12:00:10Z");
    const visitor = await contextWith(null, () => now);
    const bot = order(productId, 1, { website: "https://spam.example" });
    for (let i = 0; i < 10; i++) {
      await expect(
        placePublicOrder(visitor, { slug, order: bot, clientIp: "203.0.113.7" }),
      ).rejects.toMatchObject({
        code: "invalid_request",
        options: { param: "website" },
      });
    }
    const limited = await placePublicOrder(visitor, {
      slug,
      order: order(productId),
      clientIp: "203.0.113.7",
    }).then(
      () => null,
      (error: AppError) => error,
    );
    expect(limited?.code).toBe("order_rate_limited");
    expect(limited?.status).toBe(429);
    expect(limited?.options.retryAfterMs).toBe(50_000);
    await expect(
      placePublicOrder(visitor, { slug, order: order(productId), clientIp: "203.0.113.8" }),
    ).resolves.toMatchObject({ order: { orderStatus: "pending" } });
    const nextMinute = await contextWith(null, () => new Date("2026-06-01T12:01:00Z"));
    await expect(
      placePublicOrder(nextMinute, { slug, order: order(productId), clientIp: "203.0.113.7" }),
    ).resolves.toMatchObject({ order: { orderStatus: "pending" } });
    const purged = await purgePublicOrderRateLimits(await dbReady(), new Date("2026-06-01T12:03:00Z"));
    expect(purged).toBeGreaterThanOrEqual(2);
  });

  it("a filled honeypot places nothing", async () => {
    const { storefrontId, ctx, productId, slug } = await publishedStore();
    await expect(
      placePublicOrder(await contextWith(null), {
        slug,
        order: order(productId, 1, { website: "x" }),
        clientIp: uniqueIp(),
      }),
    ).rejects.toMatchObject({ code: "invalid_request", options: { param: "website" } });
    expect((await listOrders(ctx, { storefrontId, limit: 20 })).data).toEqual([]);
  });

  it("the payment method is one of the storefront's; the fulfillment one the page offers", async () => {
    const { merchant, storefrontId, productId, slug } = await publishedStore();
    const visitor = await contextWith(null);
    await expect(
      placePublicOrder(visitor, {
        slug,
        order: order(productId, 1, { paymentMethod: { name: "Bitcoin" } }),
        clientIp: uniqueIp(),
      }),
    ).rejects.toMatchObject({ code: "invalid_request", options: { param: "paymentMethod.name" } });
    await updateStorefrontSettings(await sessionContextFor(merchant.userId), {
      storefrontId,
      settings: { paymentMethods: ["Tarjeta", "Transferencia"] },
    });
    const placed = await placePublicOrder(visitor, {
      slug,
      order: order(productId, 1, { paymentMethod: { name: "tarjeta" } }),
      clientIp: uniqueIp(),
    });
    // Kept in the storefront's spelling.
    expect(placed.order.paymentMethod.name).toBe("Tarjeta");
    // dineIn is unset: the /v1 rule allows it, the page does not offer it.
    const dineIn = { paymentMethod: { name: "Tarjeta" }, fulfillment: { type: "dine_in" } };
    await expect(
      placePublicOrder(visitor, { slug, order: order(productId, 1, dineIn), clientIp: uniqueIp() }),
    ).rejects.toMatchObject({ code: "invalid_request", options: { param: "fulfillment.type" } });
    const ctx = await serviceContextFor(merchant.userKey);
    await expect(
      createOrder(ctx, { storefrontId, order: order(productId, 1, dineIn) }),
    ).resolves.toMatchObject({
      fulfillment: { type: "dine_in" },
    });
  });

  it("the page's body takes products, amounts and options only: a price is refused by name; the phone is E.164", () => {
    const body = {
      items: [{ productId: "prd_x", amount: 1, price: 0.01 }],
      customer: { name: "Ana", phone: "+5215512345678" },
      paymentMethod: { name: "Efectivo" },
    };
    expect(() => parseInput(PublicOrderInput, body, "en")).toThrow(
      expect.objectContaining({
        code: "invalid_request",
        options: expect.objectContaining({ param: "items[0].price" }),
      }),
    );
    const phone = {
      ...body,
      items: [{ productId: "prd_x", amount: 1 }],
      customer: { name: "Ana", phone: "5512345678" },
    };
    expect(() => parseInput(PublicOrderInput, phone, "en")).toThrow(
      expect.objectContaining({ options: expect.objectContaining({ param: "customer.phone" }) }),
    );
    expect(() => parseInput(CreateOrderInput, { ...phone, website: "" }, "en")).toThrow(
      expect.objectContaining({ options: expect.objectContaining({ param: "website" }) }),
    );
  });

  it("an order that takes tracked stock tells the public page; one on untracked stock does not", async () => {
    const changes: StorefrontChange[] = [];
    const stop = onStorefrontChanged((change) => {
      if (change !== EVERY_STOREFRONT) changes.push(change);
    });
    try {
      const tracked = await publishedStore(5);
      await asAdapter(await contextWith(null), (ctx) =>
        placePublicOrder(ctx, { slug: tracked.slug, order: order(tracked.productId), clientIp: uniqueIp() }),
      );
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(changes).toContainEqual({ storefrontId: tracked.storefrontId });
      const untracked = await publishedStore(null);
      changes.length = 0;
      await asAdapter(await contextWith(null), (ctx) =>
        placePublicOrder(ctx, {
          slug: untracked.slug,
          order: order(untracked.productId),
          clientIp: uniqueIp(),
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(changes.filter((c) => c.storefrontId === untracked.storefrontId)).toEqual([]);
    } finally {
      stop();
    }
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
