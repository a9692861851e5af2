import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dbReady } from "@/server/db/client";
import { products } from "@/server/products/tables";
import { createMerchant } from "@/server/storefronts/testing";
import { call } from "@/server/testing/api";
import { createStorefrontWithProduct } from "./testing";

const customer = { name: "Ana", phone: "+5215512345678" };
const paymentMethod = { name: "Efectivo" };

async function stockOf(productId: string): Promise<number | null | undefined> {
  const [row] = await (await dbReady())
    .select({ stock: products.stock })
    .from(products)
    .where(eq(products.id, productId));
  return row?.stock;
}

// docs/api.md, "Orders".
describe("orders", () => {
  it("stock never goes negative: 20 concurrent orders for the last 5 items place exactly 5", async () => {
    const merchant = await createMerchant();
    const { storefrontId, productId } = await createStorefrontWithProduct(merchant.userKey, { stock: 5 });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        call<{ error?: { code: string; param: string } }>("POST", `/v1/storefronts/${storefrontId}/orders`, {
          key: merchant.userKey,
          body: { items: [{ productId, amount: 1 }], customer, paymentMethod },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(15);
    for (const r of refused)
      expect(r.body.error).toMatchObject({ code: "insufficient_stock", param: "items[0].amount" });
    expect(await stockOf(productId)).toBe(0);
    const list = await call<{ data: Array<{ publicOrderId: number }> }>(
      "GET",
      `/v1/storefronts/${storefrontId}/orders`,
      {
        key: merchant.userKey,
      },
    );
    expect(list.body.data.map((o) => o.publicOrderId)).toEqual([1, 2, 3, 4, 5]);
  });

  it("prices come from the catalog (salePrice honoured) and totals include the delivery range that applies", async () => {
    const merchant = await createMerchant();
    const { storefrontId, productId } = await createStorefrontWithProduct(
      merchant.userKey,
      { price: 100, salePrice: 80, stock: null },
      {
        delivery: {
          enabled: true,
          type: "distance",
          ranges: [
            { fromKm: 0, toKm: 3, price: 20 },
            { fromKm: 3, toKm: 10, price: 45.5 },
          ],
        },
      },
    );
    const res = await call<{ order: Record<string, unknown> }>(
      "POST",
      `/v1/storefronts/${storefrontId}/orders`,
      {
        key: merchant.userKey,
        body: {
          items: [{ productId, amount: 2 }],
          customer,
          paymentMethod,
          fulfillment: { type: "delivery", distanceKm: 4.2 },
        },
      },
    );
    expect(res.status).toBe(201);
    expect(res.body.order).toMatchObject({
      orderStatus: "pending",
      paymentStatus: "pending",
      items: [{ productId, title: "Taco al pastor", amount: 2, price: 80 }],
      subtotalPrice: 160,
      deliveryPrice: 45.5,
      totalPrice: 205.5,
      currency: "MXN",
      fulfillment: { type: "delivery", distanceKm: 4.2 },
      paidAt: null,
      customStatus: null,
    });
    const outside = await call<{ error: { param: string } }>(
      "POST",
      `/v1/storefronts/${storefrontId}/orders`,
      {
        key: merchant.userKey,
        body: {
          items: [{ productId, amount: 1 }],
          customer,
          paymentMethod,
          fulfillment: { type: "delivery", distanceKm: 12 },
        },
      },
    );
    expect(outside.status).toBe(400);
    expect(outside.body.error.param).toBe("fulfillment.distanceKm");
  });

  it("options over /v1: chosen by group and option index, priced into the line and kept; a bad choice names items[i].options", async () => {
    const merchant = await createMerchant();
    const { storefrontId, productId } = await createStorefrontWithProduct(merchant.userKey, {
      title: "Café",
      price: 30,
      extraProductsCategory: [
        {
          title: "Leche",
          obligatory: true,
          multipleOption: false,
          minOptions: 1,
          maxOptions: 1,
          extraProducts: [
            { title: "Entera", price: 0, available: true },
            { title: "Avena", price: 8, available: true },
          ],
        },
      ],
    } as never);
    const path = `/v1/storefronts/${storefrontId}/orders`;
    const placed = await call<{ order: { items: unknown[]; subtotalPrice: number } }>("POST", path, {
      key: merchant.userKey,
      body: {
        items: [{ productId, amount: 2, options: [{ group: 0, option: 1 }] }],
        customer,
        paymentMethod,
      },
    });
    expect(placed.status).toBe(201);
    expect(placed.body.order.items).toEqual([
      {
        productId,
        title: "Café",
        amount: 2,
        price: 38,
        options: [{ group: 0, option: 1, groupTitle: "Leche", title: "Avena", price: 8 }],
      },
    ]);
    expect(placed.body.order.subtotalPrice).toBe(76);
    const missing = await call<{ error: { code: string; param: string; message: string } }>("POST", path, {
      key: merchant.userKey,
      body: { items: [{ productId, amount: 1 }], customer, paymentMethod },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "invalid_request", param: "items[0].options" });
    expect(missing.body.error.message).toContain('"Leche" is obligatory');
    const malformed = await call<{ error: { param: string } }>("POST", path, {
      key: merchant.userKey,
      body: {
        items: [{ productId, amount: 1, options: [{ group: -1, option: 0 }] }],
        customer,
        paymentMethod,
      },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.param).toBe("items[0].options[0].group");
  });

  it("only valid status transitions; cancelling puts the stock back; a cancelled order cannot be paid", async () => {
    const merchant = await createMerchant();
    const { storefrontId, productId } = await createStorefrontWithProduct(merchant.userKey, { stock: 4 });
    const placed = await call<{ order: { id: string } }>("POST", `/v1/storefronts/${storefrontId}/orders`, {
      key: merchant.userKey,
      body: { items: [{ productId, amount: 3 }], customer, paymentMethod },
    });
    const orderId = placed.body.order.id;
    expect(await stockOf(productId)).toBe(1);
    const skip = await call<{ error: { code: string } }>("PATCH", `/v1/orders/${orderId}`, {
      key: merchant.userKey,
      body: { orderStatus: "delivered" },
    });
    expect(skip.status).toBe(400);
    expect(skip.body.error.code).toBe("invalid_order_transition");
    expect(
      (
        await call("PATCH", `/v1/orders/${orderId}`, {
          key: merchant.userKey,
          body: { orderStatus: "cancelled" },
        })
      ).status,
    ).toBe(200);
    expect(await stockOf(productId)).toBe(4);
    const pay = await call<{ error: { code: string } }>("POST", `/v1/orders/${orderId}/pay`, {
      key: merchant.userKey,
      body: { paymentMethod: { name: "Cash" } },
    });
    expect(pay.status).toBe(400);
    const empty = await call("PATCH", `/v1/orders/${orderId}`, { key: merchant.userKey, body: {} });
    expect(empty.status).toBe(400);
  });

  it("paying twice is 409 order_already_paid; a payment method id is generated when none is given", async () => {
    const merchant = await createMerchant();
    const { storefrontId, productId } = await createStorefrontWithProduct(merchant.userKey);
    const placed = await call<{ order: { id: string } }>("POST", `/v1/storefronts/${storefrontId}/orders`, {
      key: merchant.userKey,
      body: { items: [{ productId, amount: 1 }], customer, paymentMethod },
    });
    const paid = await call<{ order: { paymentMethod: { id: string; name: string } } }>(
      "POST",
      `/v1/orders/${placed.body.order.id}/pay`,
      { key: merchant.userKey, body: { paymentMethod: { name: "Cash" } } },
    );
    expect(paid.body.order.paymentMethod).toEqual({ id: expect.stringMatching(/^pay_/), name: "Cash" });
    const again = await call<{ error: { code: string } }>("POST", `/v1/orders/${placed.body.order.id}/pay`, {
      key: merchant.userKey,
      body: { paymentMethod: { name: "Cash" } },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("order_already_paid");
  });

  it("another account's order and storefront are 404; an unknown product is 404 with its item path", async () => {
    const owner = await createMerchant();
    const stranger = await createMerchant();
    const { storefrontId, productId } = await createStorefrontWithProduct(owner.userKey);
    const placed = await call<{ order: { id: string } }>("POST", `/v1/storefronts/${storefrontId}/orders`, {
      key: owner.userKey,
      body: { items: [{ productId, amount: 1 }], customer, paymentMethod },
    });
    expect((await call("GET", `/v1/orders/${placed.body.order.id}`, { key: stranger.userKey })).status).toBe(
      404,
    );
    expect((await call("GET", `/v1/orders/${placed.body.order.id}`, { key: owner.userKey })).status).toBe(
      200,
    );
    const foreign = await call("POST", `/v1/storefronts/${storefrontId}/orders`, {
      key: stranger.userKey,
      body: { items: [{ productId, amount: 1 }], customer, paymentMethod },
    });
    expect(foreign.status).toBe(404);
    const unknown = await call<{ error: { code: string; param: string } }>(
      "POST",
      `/v1/storefronts/${storefrontId}/orders`,
      {
        key: owner.userKey,
        body: {
          items: [
            { productId, amount: 1 },
            { productId: "prd_nope", amount: 1 },
          ],
          customer,
          paymentMethod,
        },
      },
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "product_not_found", param: "items[1].productId" });
    expect(await stockOf(productId)).toBeNull();
  });
});
