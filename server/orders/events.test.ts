import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { SCOPES } from "@/server/gate/scopes";
import { call } from "@/server/testing/api";
import {
  createTestEndpoint,
  type ReceivedRequest,
  type Receiver,
  setTestEnv,
  startReceiver,
} from "@/server/webhooks/testing";
import { verifyWebhookSignature } from "@/server/webhooks/verify";
import { type DeliveryWorker, startDeliveryWorker } from "@/server/webhooks/worker";
import { createStorefrontWithProduct, latestVerificationCode } from "./testing";

setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1", WEBHOOK_RETRY_SCHEDULE: "0s,1s,2s" });

const ALL_EVENTS = ["user.verified", "user.cancelled", "order.created", "order.status_updated", "order.paid"];
const Timestamp = z.iso.datetime({ offset: true });
const CustomStatus = z.strictObject({ id: z.string(), label: z.string() });

// docs/webhooks.md, "`data` by type": field by field (strict: no missing and no extra keys).
const OrderCreatedData = z.strictObject({
  orderId: z.string().regex(/^ord_/),
  publicOrderId: z.number().int(),
  userId: z.string().regex(/^usr_/),
  menuId: z.string().regex(/^stf_/),
  orderStatus: z.string(),
  customStatus: CustomStatus,
  totalPrice: z.number(),
  subtotalPrice: z.number(),
  deliveryPrice: z.number(),
  currency: z.string(),
  items: z.array(z.strictObject({ title: z.string(), amount: z.number().int(), price: z.number() })),
  customer: z.strictObject({ name: z.string(), phone: z.string() }),
  paymentMethod: z.strictObject({ name: z.string() }),
  paymentStatus: z.string(),
  createdAt: Timestamp,
});
const OrderPaidData = OrderCreatedData.extend({
  paymentMethod: z.strictObject({ id: z.string(), name: z.string() }),
  paidAt: Timestamp,
});
const OrderState = z.strictObject({ orderStatus: z.string(), customStatus: CustomStatus });
const OrderStatusUpdatedData = z.strictObject({
  orderId: z.string(),
  publicOrderId: z.number().int(),
  userId: z.string(),
  menuId: z.string(),
  previousState: OrderState,
  newState: OrderState,
  updatedAt: Timestamp,
});
const UserVerifiedData = z.strictObject({
  userId: z.string(),
  developerKeyId: z.string(),
  verifiedAt: Timestamp,
});
const UserCancelledData = z.strictObject({
  userId: z.string(),
  developerKeyId: z.string(),
  cancelledAt: Timestamp,
  reason: z.string(),
});
const Envelope = z.strictObject({
  type: z.string(),
  eventId: z.uuid({ version: "v4" }),
  timestamp: Timestamp,
  apiVersion: z.literal("2026-05-12"),
  data: z.record(z.string(), z.unknown()),
});

let worker: DeliveryWorker;
let developer: { key: string; keyId: string };
let developerReceiver: Receiver;
let developerSecret: string;
let otherReceiver: Receiver;

beforeAll(async () => {
  worker = startDeliveryWorker({ pollMs: 100 });
  developer = await createDeveloper();
  developerReceiver = await startReceiver();
  developerSecret = (
    await createTestEndpoint(developer.key, { url: developerReceiver.url, subscribedEvents: ALL_EVENTS })
  ).signingSecret;
  // Another developer partner: must never see the first one's events.
  const other = await createDeveloper();
  otherReceiver = await startReceiver();
  await createTestEndpoint(other.key, { url: otherReceiver.url, subscribedEvents: ALL_EVENTS });
});

afterAll(async () => {
  await worker?.stop();
  await developerReceiver?.close();
  await otherReceiver?.close();
});

async function received(receiver: Receiver, type: string, match: (data: Record<string, unknown>) => boolean) {
  let found: ReceivedRequest | undefined;
  await receiver.waitFor((requests) => {
    found = requests.find((r) => {
      const body = JSON.parse(r.rawBody) as { type: string; data: Record<string, unknown> };
      return body.type === type && match(body.data);
    });
    return found !== undefined;
  });
  if (!found) throw new Error("unreachable");
  const signature = found.headers["x-service-signature"] as string;
  expect(verifyWebhookSignature(found.rawBody, signature, developerSecret, { toleranceSec: 300 })).toBe(true);
  expect(found.headers["x-service-event-type"]).toBe(type);
  const envelope = Envelope.parse(JSON.parse(found.rawBody));
  expect(found.headers["x-service-event-id"]).toBe(envelope.eventId);
  expect(found.headers["x-service-source"]).toBe(type.startsWith("order.") ? "merchant" : "developer");
  return envelope;
}

function otherReceivedAbout(userId: string): number {
  return otherReceiver.requests.filter((r) => r.rawBody.includes(userId)).length;
}

/** A merchant bootstrapped by `developer`, verified through the real code in the mail. */
async function verifiedMerchant() {
  const user = await bootstrapUser(developer.key);
  const code = await latestVerificationCode(user.email);
  const verified = await call<{ scopes: string[]; account: { status: string } }>("POST", "/v1/me/verify", {
    key: user.userKey,
    body: { code },
  });
  expect(verified.status).toBe(200);
  return { ...user, scopes: verified.body.scopes };
}

describe("user.verified fires from a real verification", () => {
  it("reaches the bootstrapping developer with userId, developerKeyId, verifiedAt; the key gains storefront:publish", async () => {
    const user = await verifiedMerchant();
    expect(user.scopes).toContain(SCOPES.storefrontPublish);
    const envelope = await received(developerReceiver, "user.verified", (d) => d.userId === user.userId);
    const data = UserVerifiedData.parse(envelope.data);
    expect(data).toMatchObject({ userId: user.userId, developerKeyId: developer.keyId });
    expect(otherReceivedAbout(user.userId)).toBe(0);
    const me = await call<{ scopes: string[]; account: { status: string } }>("GET", "/v1/me", {
      key: user.userKey,
    });
    expect(me.body.account.status).toBe("verified");
    expect(me.body.scopes).toContain(SCOPES.storefrontPublish);
  });
});

describe("order events fire from real orders", () => {
  it("order.created, order.status_updated and order.paid reach the developer with exactly the documented data", async () => {
    const user = await verifiedMerchant();
    const { storefrontId, productId } = await createStorefrontWithProduct(user.userKey, {
      title: "Taco al pastor",
      price: 25,
      salePrice: 20,
      stock: 10,
    });
    const placed = await call<{ order: { id: string; publicOrderId: number; totalPrice: number } }>(
      "POST",
      `/v1/storefronts/${storefrontId}/orders`,
      {
        key: user.userKey,
        body: {
          items: [{ productId, amount: 3 }],
          customer: { name: "Ana", phone: "+5215512345678" },
          paymentMethod: { name: "Efectivo" },
        },
      },
    );
    expect(placed.status).toBe(201);
    const orderId = placed.body.order.id;

    const created = OrderCreatedData.parse(
      (await received(developerReceiver, "order.created", (d) => d.orderId === orderId)).data,
    );
    expect(created).toMatchObject({
      orderId,
      publicOrderId: 1,
      userId: user.userId,
      menuId: storefrontId,
      orderStatus: "pending",
      customStatus: { id: "pending", label: "Pendiente" },
      subtotalPrice: 60,
      deliveryPrice: 0,
      totalPrice: 60,
      currency: "MXN",
      items: [{ title: "Taco al pastor", amount: 3, price: 20 }],
      customer: { name: "Ana", phone: "+5215512345678" },
      paymentMethod: { name: "Efectivo" },
      paymentStatus: "pending",
    });

    const patched = await call("PATCH", `/v1/orders/${orderId}`, {
      key: user.userKey,
      body: { orderStatus: "accepted", customStatus: { id: "kitchen", label: "En cocina" } },
    });
    expect(patched.status).toBe(200);
    const updated = OrderStatusUpdatedData.parse(
      (await received(developerReceiver, "order.status_updated", (d) => d.orderId === orderId)).data,
    );
    expect(updated.previousState).toEqual({
      orderStatus: "pending",
      customStatus: { id: "pending", label: "Pendiente" },
    });
    expect(updated.newState).toEqual({
      orderStatus: "accepted",
      customStatus: { id: "kitchen", label: "En cocina" },
    });
    expect(updated).toMatchObject({ orderId, publicOrderId: 1, userId: user.userId, menuId: storefrontId });

    const paid = await call<{ order: { paymentStatus: string; paidAt: string } }>(
      "POST",
      `/v1/orders/${orderId}/pay`,
      {
        key: user.userKey,
        body: { paymentMethod: { id: "pm_card_123", name: "Tarjeta" } },
      },
    );
    expect(paid.status).toBe(200);
    expect(paid.body.order.paymentStatus).toBe("paid");
    const paidData = OrderPaidData.parse(
      (await received(developerReceiver, "order.paid", (d) => d.orderId === orderId)).data,
    );
    expect(paidData).toMatchObject({
      orderId,
      paymentMethod: { id: "pm_card_123", name: "Tarjeta" },
      paymentStatus: "paid",
      paidAt: paid.body.order.paidAt,
      customStatus: { id: "kitchen", label: "En cocina" },
    });
    expect(otherReceivedAbout(user.userId)).toBe(0);
  });

  it("a merchant endpoint receives its own storefronts' order events", async () => {
    const user = await verifiedMerchant();
    const merchantReceiver = await startReceiver();
    try {
      const { createEndpoint } = await import("@/server/webhooks/endpoints");
      const { serviceContextFor } = await import("@/server/testing/context");
      await createEndpoint(await serviceContextFor(user.userKey), {
        scope: "merchant",
        endpoint: { url: merchantReceiver.url, subscribedEvents: ["order.created"] },
      });
      const { storefrontId, productId } = await createStorefrontWithProduct(user.userKey);
      const placed = await call<{ order: { id: string } }>("POST", `/v1/storefronts/${storefrontId}/orders`, {
        key: user.userKey,
        body: {
          items: [{ productId, amount: 1 }],
          customer: { name: "Luis", phone: "555" },
          paymentMethod: { name: "Cash" },
        },
      });
      await merchantReceiver.waitFor((requests) =>
        requests.some((r) => r.rawBody.includes(placed.body.order.id)),
      );
      expect(
        merchantReceiver.requests.every((r) => r.headers["x-service-event-type"] === "order.created"),
      ).toBe(true);
    } finally {
      await merchantReceiver.close();
    }
  });
});

describe("user.cancelled fires from a real cancellation", () => {
  it("DELETE /v1/me cancels with reason user_clicked_cancel and the key stops working (account_cancelled)", async () => {
    const user = await bootstrapUser(developer.key);
    const res = await call("DELETE", "/v1/me", { key: user.userKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: user.userId, deleted: true });
    const data = UserCancelledData.parse(
      (await received(developerReceiver, "user.cancelled", (d) => d.userId === user.userId)).data,
    );
    expect(data).toMatchObject({
      userId: user.userId,
      developerKeyId: developer.keyId,
      reason: "user_clicked_cancel",
    });
    const after = await call<{ error: { code: string } }>("GET", "/v1/me", { key: user.userKey });
    expect(after.status).toBe(403);
    expect(after.body.error.code).toBe("account_cancelled");
    expect(otherReceivedAbout(user.userId)).toBe(0);
  });
});
