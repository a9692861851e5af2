import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dbReady } from "@/server/db/client";
import { type AppError, isAppError } from "@/server/errors";
import { createMerchant } from "@/server/storefronts/testing";
import { asAdapter, serviceContextFor, sessionContextFor } from "@/server/testing/context";
import { createTrpcContext } from "@/server/trpc/context";
import { webhookEvents } from "@/server/webhooks/tables";
import { createCaller } from "@/server/wiring/trpc";
import { createOrder } from "./place";
import { CreateOrderInput } from "./schema";
import { createStorefrontWithProduct } from "./testing";

// The dashboard's order procedures (docs/ui.md, "Orders") through the tRPC caller on a real database.

async function merchantWithOrders(count: number) {
  const merchant = await createMerchant({ verified: true });
  const { storefrontId, productId } = await createStorefrontWithProduct(merchant.userKey, {
    price: 30,
    stock: null,
  });
  const caller = createCaller({ service: await sessionContextFor(merchant.userId), sameOrigin: true });
  // A merchant endpoint subscribed to order events, so each change records its event for it.
  await caller.webhooks.createEndpoint({ endpoint: { url: "https://hooks.example.com/orders" } });
  const keyCtx = await serviceContextFor(merchant.userKey);
  const orderIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const order = await asAdapter(keyCtx, (ctx) =>
      createOrder(ctx, {
        storefrontId,
        order: CreateOrderInput.parse({
          items: [{ productId, amount: i + 1 }],
          customer: { name: `Cliente ${i}`, phone: "+525512345678" },
          paymentMethod: { name: "Efectivo" },
        }),
      }),
    );
    orderIds.push(order.id);
  }
  return { merchant, storefrontId, orderIds, caller };
}

async function rejection(call: () => Promise<unknown>): Promise<AppError> {
  const error = await call().then(
    () => null,
    (e: unknown) => e,
  );
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (!isAppError(cause)) throw new Error(`expected an AppError, got ${String(error)}`);
  return cause;
}

async function eventTypesOf(orderId: string): Promise<string[]> {
  const db = await dbReady();
  const rows = await db
    .select({ type: webhookEvents.type, envelope: webhookEvents.envelope })
    .from(webhookEvents);
  return rows
    .filter((row) => JSON.stringify(row.envelope).includes(orderId))
    .map((row) => row.type)
    .sort();
}

describe("orders over tRPC", () => {
  it("list: newest first across the account's storefronts, with status and payment filters and a cursor", async () => {
    const { storefrontId, orderIds, caller } = await merchantWithOrders(3);
    const newestFirst = [...orderIds].reverse();
    const first = await caller.orders.list({ limit: 2 });
    expect(first.data.map((o) => o.id)).toEqual(newestFirst.slice(0, 2));
    const rest = await caller.orders.list({ limit: 2, cursor: first.nextCursor ?? "" });
    expect(rest.data.map((o) => o.id)).toEqual(newestFirst.slice(2));
    expect(rest.nextCursor).toBeNull();
    expect((await caller.orders.list({ storefrontId })).data).toHaveLength(3);

    const [oldest] = orderIds;
    await caller.orders.pay({ orderId: oldest ?? "", paymentMethod: { name: "Transferencia" } });
    expect((await caller.orders.list({ paymentStatus: "paid" })).data.map((o) => o.id)).toEqual([oldest]);
    expect((await caller.orders.list({ paymentStatus: "pending" })).data).toHaveLength(2);
    await caller.orders.updateStatus({ orderId: oldest ?? "", change: { orderStatus: "accepted" } });
    expect((await caller.orders.list({ status: "accepted" })).data.map((o) => o.id)).toEqual([oldest]);
    expect((await caller.orders.list({ status: "pending", paymentStatus: "paid" })).data).toEqual([]);
  });

  it("status, custom status and payment each record their event (order.status_updated, order.paid)", async () => {
    const { orderIds, caller } = await merchantWithOrders(1);
    const orderId = orderIds[0] ?? "";
    const moved = await caller.orders.updateStatus({ orderId, change: { orderStatus: "accepted" } });
    expect(moved.orderStatus).toBe("accepted");
    const prepared = await caller.orders.updateStatus({
      orderId,
      change: { orderStatus: "preparing", customStatus: { id: "horno", label: "En el horno" } },
    });
    expect(prepared).toMatchObject({ orderStatus: "preparing", customStatus: { label: "En el horno" } });
    const paid = await caller.orders.pay({ orderId, paymentMethod: { name: "Tarjeta" } });
    expect(paid).toMatchObject({ paymentStatus: "paid", paymentMethod: { name: "Tarjeta" } });
    expect(await eventTypesOf(orderId)).toEqual([
      "order.created",
      "order.paid",
      "order.status_updated",
      "order.status_updated",
    ]);
  });

  it("an invalid transition and a second payment are refused with their codes and params", async () => {
    const { orderIds, caller } = await merchantWithOrders(1);
    const orderId = orderIds[0] ?? "";
    const transition = await rejection(() =>
      caller.orders.updateStatus({ orderId, change: { orderStatus: "delivered" } }),
    );
    expect(transition.code).toBe("invalid_order_transition");
    expect(transition.options.param).toBe("orderStatus");
    await caller.orders.pay({ orderId, paymentMethod: { name: "Efectivo" } });
    const twice = await rejection(() => caller.orders.pay({ orderId, paymentMethod: { name: "Efectivo" } }));
    expect(twice.code).toBe("order_already_paid");
    const empty = await rejection(() => caller.orders.updateStatus({ orderId, change: {} }));
    expect(empty.code).toBe("invalid_request");
    const blankName = await rejection(() => caller.orders.pay({ orderId, paymentMethod: { name: " " } }));
    expect(blankName.options.param).toBe("paymentMethod.name");
  });

  it("another account's orders and storefronts are not found (404 with param), and stay unchanged", async () => {
    const owner = await merchantWithOrders(1);
    const stranger = await merchantWithOrders(0);
    const orderId = owner.orderIds[0] ?? "";
    for (const call of [
      () => stranger.caller.orders.get({ orderId }),
      () => stranger.caller.orders.updateStatus({ orderId, change: { orderStatus: "accepted" } }),
      () => stranger.caller.orders.pay({ orderId, paymentMethod: { name: "Efectivo" } }),
    ]) {
      const error = await rejection(call);
      expect(error.code).toBe("order_not_found");
      expect(error.options.param).toBe("orderId");
    }
    const list = await rejection(() => stranger.caller.orders.list({ storefrontId: owner.storefrontId }));
    expect(list).toMatchObject({ code: "storefront_not_found", options: { param: "storefrontId" } });
    expect((await stranger.caller.orders.list({})).data).toEqual([]);
    expect(await owner.caller.orders.get({ orderId })).toMatchObject({
      orderStatus: "pending",
      paymentStatus: "pending",
    });
    expect(await eventTypesOf(orderId)).toEqual(["order.created"]);
  });

  it("signed out: 401 missing_authorization; the server caller (cross-origin) cannot change an order", async () => {
    const { orderIds, merchant } = await merchantWithOrders(1);
    const orderId = orderIds[0] ?? "";
    const signedOut = createCaller(await createTrpcContext({ sessionToken: null, sameOrigin: true }));
    expect((await rejection(() => signedOut.orders.list({}))).code).toBe("missing_authorization");
    const serverCaller = createCaller({
      service: await sessionContextFor(merchant.userId),
      sameOrigin: false,
    });
    expect(
      (await rejection(() => serverCaller.orders.pay({ orderId, paymentMethod: { name: "X" } }))).code,
    ).toBe("cross_site_request");
    const db = await dbReady();
    const paid = await db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.type, "order.paid"), eq(webhookEvents.accountId, merchant.userId)));
    expect(paid).toEqual([]);
  });
});
