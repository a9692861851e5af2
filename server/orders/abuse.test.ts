import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dbReady } from "@/server/db/client";
import { windowStartOf } from "@/server/db/fixed-window";
import type { AppError } from "@/server/errors";
import { sha256Hex } from "@/server/lib/crypto";
import { getProduct, updateProduct } from "@/server/products/service";
import { uniqueIp } from "@/server/sessions/testing";
import { publishStorefront } from "@/server/storefronts/publish";
import { createMerchant } from "@/server/storefronts/testing";
import { contextWith, serviceContextFor } from "@/server/testing/context";
import { webhookEvents } from "@/server/webhooks/tables";
import { runJob } from "@/server/wiring/jobs";
import { cancelStalePublicOrders, updateOrderStatus } from "./lifecycle";
import { PUBLIC_ORDER_LIMITS } from "./limits";
import { createOrder, placePublicOrder } from "./place";
import { CreateOrderInput, PublicOrderInput, UpdateOrderInput } from "./schema";
import { getOrder } from "./service";
import { orders, publicOrderStorefrontLimits } from "./tables";
import { createStorefrontWithProduct } from "./testing";

// The public page's abuse limits and rules (docs/api.md, "Public storefront"; docs/security.md, "Abuse limits and
// product decisions"), called on the service so they hold whatever door places the order.

const publicOrder = (items: Array<{ productId: string; amount: number }>) =>
  PublicOrderInput.parse({
    items,
    customer: { name: "Ana", phone: "+5215512345678" },
    paymentMethod: { name: "Efectivo" },
  });

const apiOrder = (items: Array<{ productId: string; amount: number; options?: unknown[] }>) =>
  CreateOrderInput.parse({
    items,
    customer: { name: "Ana", phone: "+5215512345678" },
    paymentMethod: { name: "Efectivo" },
  });

async function publishedStore(stock: number | null = null, product: Record<string, unknown> = {}) {
  const merchant = await createMerchant({ plan: "PRO", verified: true });
  const { storefrontId, productId } = await createStorefrontWithProduct(
    merchant.userKey,
    { price: 30, stock, ...product },
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
        clientIp: uniqueIp(),
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
        clientIp: uniqueIp(),
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

describe("M2: anonymous orders cannot hoard stock or spam", () => {
  it("M2: a public order has at most 20 lines of at most 20 units (schema and service), far below /v1's 100 x 1000", async () => {
    const { ctx, storefrontId, productId, slug } = await publishedStore(null);
    const lines = (count: number, amount: number) =>
      Array.from({ length: count }, () => ({ productId, amount }));
    expect(PublicOrderInput.safeParse({ ...publicOrder(lines(1, 1)), items: lines(21, 1) }).success).toBe(
      false,
    );
    expect(PublicOrderInput.safeParse({ ...publicOrder(lines(1, 1)), items: lines(1, 21) }).success).toBe(
      false,
    );
    // The service holds the rule whatever parsed the body (here the /v1 schema, which allows more).
    const visitor = await contextWith(null);
    const tooManyLines = await refusal(
      placePublicOrder(visitor, { slug, order: apiOrder(lines(21, 1)) as never, clientIp: uniqueIp() }),
    );
    expect(tooManyLines).toMatchObject({ code: "invalid_request", options: { param: "items" } });
    const tooManyUnits = await refusal(
      placePublicOrder(visitor, {
        slug,
        order: apiOrder([...lines(1, 1), ...lines(1, 21)]) as never,
        clientIp: uniqueIp(),
      }),
    );
    expect(tooManyUnits).toMatchObject({ code: "invalid_request", options: { param: "items[1].amount" } });
    const placed = await placePublicOrder(visitor, {
      slug,
      order: publicOrder(lines(20, 20)),
      clientIp: uniqueIp(),
    });
    expect(placed.order.items).toHaveLength(20);
    // The merchant's own phone and counter orders keep the wider limits.
    const counter = await createOrder(ctx, { storefrontId, order: apiOrder(lines(1, 1000)) });
    expect(counter.items[0]?.amount).toBe(1000);
  });

  it("M2: at most 30 public orders per storefront per 10 minutes (429 storefront_busy); another store is not affected", async () => {
    const now = new Date("2026-06-01T12:00:30Z");
    const visitor = await contextWith(null, () => now);
    const busy = await publishedStore(null);
    const quiet = await publishedStore(null);
    for (let i = 0; i < PUBLIC_ORDER_LIMITS.perStorefront; i++) {
      await placePublicOrder(visitor, {
        slug: busy.slug,
        order: publicOrder([{ productId: busy.productId, amount: 1 }]),
        clientIp: `198.51.100.${i}`,
      });
    }
    const refused = await refusal(
      placePublicOrder(visitor, {
        slug: busy.slug,
        order: publicOrder([{ productId: busy.productId, amount: 1 }]),
        clientIp: "198.51.100.200",
      }),
    );
    expect(refused).toMatchObject({ code: "storefront_busy", status: 429 });
    // The window is 10 minutes from 12:00:00.
    expect(refused.options.retryAfterMs).toBe(570_000);
    await expect(
      placePublicOrder(visitor, {
        slug: quiet.slug,
        order: publicOrder([{ productId: quiet.productId, amount: 1 }]),
        clientIp: "198.51.100.201",
      }),
    ).resolves.toMatchObject({ order: { orderStatus: "pending" } });
    const later = await contextWith(null, () => new Date("2026-06-01T12:10:00Z"));
    await expect(
      placePublicOrder(later, {
        slug: busy.slug,
        order: publicOrder([{ productId: busy.productId, amount: 1 }]),
        clientIp: "198.51.100.202",
      }),
    ).resolves.toMatchObject({ order: { orderStatus: "pending" } });
  });

  it("M2: attempts the per-IP limit refuses do not spend the storefront's budget", async () => {
    const now = new Date("2026-06-01T13:00:30Z");
    const visitor = await contextWith(null, () => now);
    const { productId, slug } = await publishedStore(null);
    for (let i = 0; i < 50; i++) {
      await placePublicOrder(visitor, {
        slug,
        order: publicOrder([{ productId, amount: 1 }]),
        clientIp: "203.0.113.50",
      }).catch((error: AppError) => expect(error.code).toBe("order_rate_limited"));
    }
    // 10 went through for that IP; the store has 20 left, which other customers still get.
    for (let i = 0; i < PUBLIC_ORDER_LIMITS.perStorefront - PUBLIC_ORDER_LIMITS.perIpPerMinute; i++) {
      await placePublicOrder(visitor, {
        slug,
        order: publicOrder([{ productId, amount: 1 }]),
        clientIp: `203.0.113.${100 + i}`,
      });
    }
  });

  it("M2: at most 600 public orders a minute across every storefront (429 storefront_busy)", async () => {
    const now = new Date("2026-06-01T14:00:05Z");
    const { productId, slug } = await publishedStore(null);
    const db = await dbReady();
    // The deployment's window already counts 600 orders from other stores.
    await db.insert(publicOrderStorefrontLimits).values({
      key: sha256Hex("all"),
      windowStart: windowStartOf(now, PUBLIC_ORDER_LIMITS.globalWindowSeconds),
      count: PUBLIC_ORDER_LIMITS.perMinuteInAll,
    });
    const refused = await refusal(
      placePublicOrder(await contextWith(null, () => now), {
        slug,
        order: publicOrder([{ productId, amount: 1 }]),
        clientIp: "192.0.2.1",
      }),
    );
    expect(refused).toMatchObject({ code: "storefront_busy", options: { retryAfterMs: 55_000 } });
    await expect(
      placePublicOrder(await contextWith(null, () => new Date("2026-06-01T14:01:00Z")), {
        slug,
        order: publicOrder([{ productId, amount: 1 }]),
        clientIp: "192.0.2.1",
      }),
    ).resolves.toMatchObject({ order: { orderStatus: "pending" } });
  });

  it("M2: a public order still pending after 60 minutes is cancelled by the job, its stock put back, order.status_updated recorded", async () => {
    const placedAt = new Date("2026-05-01T15:00:00Z");
    const { ctx, storefrontId, productId, slug, merchant } = await publishedStore(10);
    const visitor = await contextWith(null, () => placedAt);
    const stale = await placePublicOrder(visitor, {
      slug,
      order: publicOrder([{ productId, amount: 3 }]),
      clientIp: uniqueIp(),
    });
    const accepted = await placePublicOrder(visitor, {
      slug,
      order: publicOrder([{ productId, amount: 2 }]),
      clientIp: uniqueIp(),
    });
    await updateOrderStatus(ctx, {
      orderId: accepted.order.id,
      change: UpdateOrderInput.parse({ orderStatus: "accepted" }),
    });
    const phone = await createOrder(await serviceContextFor(merchant.userKey, () => placedAt), {
      storefrontId,
      order: apiOrder([{ productId, amount: 1 }]),
    });
    expect((await getProduct(ctx, { storefrontId, productId })).stock).toBe(4);
    const db = await dbReady();
    expect(await cancelStalePublicOrders(db, new Date("2026-05-01T15:59:00Z"))).toBe(0);
    expect(await runJob(db, "expire-public-orders", new Date("2026-05-01T16:01:00Z"))).toEqual({
      job: "expire-public-orders",
      cancelled: 1,
    });
    expect((await getOrder(ctx, { orderId: stale.order.id })).orderStatus).toBe("cancelled");
    expect((await getOrder(ctx, { orderId: accepted.order.id })).orderStatus).toBe("accepted");
    expect((await getOrder(ctx, { orderId: phone.id })).orderStatus).toBe("pending");
    expect((await getProduct(ctx, { storefrontId, productId })).stock).toBe(7);
    const events = await db
      .select()
      .from(webhookEvents)
      .where(
        and(eq(webhookEvents.type, "order.status_updated"), eq(webhookEvents.accountId, merchant.userId)),
      );
    const cancelled = events
      .map((event) => (event.envelope as { data: Record<string, unknown> }).data)
      .find((data) => data.orderId === stale.order.id);
    expect(cancelled).toMatchObject({
      previousState: { orderStatus: "pending" },
      newState: { orderStatus: "cancelled" },
    });
    // Run again: nothing left to cancel (the other tests of this file place their orders later).
    expect(await cancelStalePublicOrders(db, new Date("2026-05-01T17:00:00Z"))).toBe(0);
  });
});

describe("M4: order size", () => {
  const groupTitle = "G".repeat(200);
  const manyOptions = {
    title: groupTitle,
    obligatory: false,
    multipleOption: true,
    maxOptions: 0,
    minOptions: 0,
    extraProducts: Array.from({ length: 50 }, (_, i) => ({
      title: `${"O".repeat(190)}${i}`,
      price: 0,
      available: true,
    })),
  };

  it("M4: an order line stores each chosen group's title once; the Order object still names it in every option", async () => {
    const { ctx, storefrontId, productId } = await publishedStore(null, {
      extraProductsCategory: [manyOptions],
    });
    const placed = await createOrder(ctx, {
      storefrontId,
      order: apiOrder([{ productId, amount: 1, options: [0, 1, 2].map((option) => ({ group: 0, option })) }]),
    });
    const db = await dbReady();
    const [row] = await db.select().from(orders).where(eq(orders.id, placed.id));
    const items = (row?.items ?? []) as Array<{ groups: unknown[]; options: Array<Record<string, unknown>> }>;
    const stored = items[0];
    expect(stored?.groups).toEqual([{ group: 0, title: groupTitle }]);
    expect(stored?.options).toHaveLength(3);
    for (const option of stored?.options ?? []) expect(option).not.toHaveProperty("groupTitle");
    expect(placed.items[0]?.options.map((option) => option.groupTitle)).toEqual([
      groupTitle,
      groupTitle,
      groupTitle,
    ]);
    expect(await getOrder(ctx, { orderId: placed.id })).toEqual(placed);
  });

  it("M4: an order whose stored lines would pass 256 KiB is refused (400, param items) and takes no stock", async () => {
    const { ctx, storefrontId, productId } = await publishedStore(1000, {
      extraProductsCategory: [manyOptions],
    });
    const everyOption = Array.from({ length: 50 }, (_, option) => ({ group: 0, option }));
    const line = { productId, amount: 1, options: everyOption };
    const refused = await refusal(
      createOrder(ctx, { storefrontId, order: apiOrder(Array.from({ length: 100 }, () => line)) }),
    );
    expect(refused).toMatchObject({ code: "invalid_request", options: { param: "items" } });
    expect((await getProduct(ctx, { storefrontId, productId })).stock).toBe(1000);
    // A few such lines are an ordinary order.
    await expect(createOrder(ctx, { storefrontId, order: apiOrder([line, line]) })).resolves.toMatchObject({
      orderStatus: "pending",
    });
  });
});

describe("L10: customer and status text", () => {
  it("L10: the customer's name and a custom status label refuse markup and have maxima, like every merchant text", async () => {
    const base = apiOrder([{ productId: "prd_x", amount: 1 }]);
    const withName = (name: string) =>
      CreateOrderInput.safeParse({ ...base, customer: { ...base.customer, name } });
    expect(withName("<img src=x onerror=alert(1)>").success).toBe(false);
    expect(withName("x".repeat(201)).success).toBe(false);
    expect(withName("Ana <3 tacos").success).toBe(true);
    expect(
      PublicOrderInput.safeParse({ ...base, customer: { name: "<b>Ana</b>", phone: "+5215512345678" } })
        .success,
    ).toBe(false);
    expect(
      UpdateOrderInput.safeParse({ customStatus: { id: "x", label: "<script>x</script>" } }).success,
    ).toBe(false);
    expect(UpdateOrderInput.safeParse({ customStatus: { id: "x", label: "y".repeat(101) } }).success).toBe(
      false,
    );
    expect(UpdateOrderInput.safeParse({ customStatus: { id: "x", label: "En el horno" } }).success).toBe(
      true,
    );
  });
});
