import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptCurrentTerms } from "@/server/accounts/cancellation";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { dbReady, queryRows } from "@/server/db/client";
import { currentTerms } from "@/server/gate/terms";
import { createStorefrontWithProduct, latestVerificationCode } from "@/server/orders/testing";
import { call } from "@/server/testing/api";
import { sessionContextFor } from "@/server/testing/context";
import {
  getDelivery,
  listDeliveryLog,
  recoverDeliveries,
  resendDelivery,
} from "@/server/webhooks/delivery-log";
import {
  createTestEndpoint,
  eventually,
  type Receiver,
  setTestEnv,
  startReceiver,
} from "@/server/webhooks/testing";
import { verifyWebhookSignature } from "@/server/webhooks/verify";
import { type DeliveryWorker, startDeliveryWorker } from "@/server/webhooks/worker";
import type { EventDto, EventList } from "./schema";

// docs/webhooks.md, "After an outage": a receiver down for longer than the whole retry schedule catches up from
// `GET /v1/events?undeliveredTo=…` alone. A real HTTP receiver, the real delivery worker, real verifications and
// orders through the services, and a short schedule (docs/webhooks.md, "Configuration").
setTestEnv({
  UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
  WEBHOOK_RETRY_SCHEDULE: "0s,200ms,400ms",
  WEBHOOK_TIMEOUT_MS: "500",
});

const ALL_EVENTS = ["user.verified", "user.cancelled", "order.created", "order.status_updated", "order.paid"];

let worker: DeliveryWorker;
let receiver: Receiver;
let otherReceiver: Receiver;
let developer: Awaited<ReturnType<typeof createDeveloper>>;
let other: Awaited<ReturnType<typeof createDeveloper>>;
let endpoint: { endpointId: string; signingSecret: string };
let otherEndpointId: string;

beforeAll(async () => {
  worker = startDeliveryWorker({ pollMs: 100 });
  receiver = await startReceiver();
  otherReceiver = await startReceiver();
  developer = await createDeveloper();
  other = await createDeveloper();
  endpoint = await createTestEndpoint(developer.key, { url: receiver.url, subscribedEvents: ALL_EVENTS });
  otherEndpointId = (
    await createTestEndpoint(other.key, { url: otherReceiver.url, subscribedEvents: ALL_EVENTS })
  ).endpointId;
});

afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await otherReceiver?.close();
});

type Merchant = { userId: string; userKey: string; email: string };

async function verify(user: Merchant): Promise<void> {
  const code = await latestVerificationCode(user.email);
  const verified = await call("POST", "/v1/me/verify", { key: user.userKey, body: { code } });
  expect(verified.status, verified.text).toBe(200);
}

async function placeOrder(user: Merchant, storefront: { storefrontId: string; productId: string }) {
  const placed = await call<{ order: { id: string } }>(
    "POST",
    `/v1/storefronts/${storefront.storefrontId}/orders`,
    {
      key: user.userKey,
      body: {
        items: [{ productId: storefront.productId, amount: 2 }],
        customer: { name: "Ana", phone: "+5215512345678" },
        paymentMethod: { name: "Efectivo" },
      },
    },
  );
  expect(placed.status, placed.text).toBe(201);
  return placed.body.order.id;
}

/** The endpoint's deliveries as the delivery log shows them (newest 50). */
async function deliveryLog(key: string, endpointId: string) {
  const log = await call<{ data: Array<{ id: string; eventId: string; type: string; status: string }> }>(
    "GET",
    `/v1/webhook_endpoints/${endpointId}/deliveries`,
    { key },
  );
  expect(log.status).toBe(200);
  return log.body.data;
}

/** Pages `GET /v1/events?undeliveredTo=…` until `nextCursor` is null, as docs/webhooks.md shows a receiver doing. */
async function catchUp(key: string, endpointId: string, limit = 2): Promise<EventDto[]> {
  const events: EventDto[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ undeliveredTo: endpointId, limit: String(limit) });
    if (cursor) query.set("cursor", cursor);
    const page = await call<EventList>("GET", `/v1/events?${query}`, { key });
    expect(page.status, page.text).toBe(200);
    events.push(...page.body.data);
    cursor = page.body.nextCursor;
  } while (cursor);
  return events;
}

/** Everything that delivery state is made of: reading the events list must not change any of it. */
async function deliveryState() {
  return queryRows<Record<string, unknown>>(
    await dbReady(),
    sql`select d.id, d.status, d.attempt_count, d.next_attempt_at, d.updated_at,
      d.lease_owner from webhook_deliveries d order by d.id`,
  );
}

describe("After an outage: catching up from GET /v1/events?undeliveredTo= alone", () => {
  it("every missed event is found once, with the exact bytes the deliveries carried; reading changes nothing; a Resend or Recover that answers 2xx takes it off the list", async () => {
    // Before the outage: a user and an order that arrive normally, never listed as missed.
    const first = await bootstrapUser(developer.key);
    await verify(first);
    const firstShop = await createStorefrontWithProduct(first.userKey);
    const deliveredOrder = await placeOrder(first, firstShop);
    await eventually(async () => {
      const log = await deliveryLog(developer.key, endpoint.endpointId);
      return log.length === 2 && log.every((d) => d.status === "delivered");
    }, 30_000);
    expect(receiver.requests.some((r) => r.rawBody.includes(deliveredOrder))).toBe(true);

    // Users waiting to verify, and another developer's user, bootstrapped before the outage.
    const second = await bootstrapUser(developer.key);
    const third = await bootstrapUser(developer.key);
    const theirs = await bootstrapUser(other.key);
    const theirShop = await createStorefrontWithProduct(theirs.userKey);

    // The receiver goes down: connections are refused for longer than the whole schedule (0 s, +200 ms, +400 ms).
    const port = receiver.port;
    await receiver.close();
    const outageStart = Date.now();

    await verify(second);
    await verify(third);
    const secondShop = await createStorefrontWithProduct(second.userKey);
    const missedOrders = [
      await placeOrder(first, firstShop),
      await placeOrder(second, secondShop),
      await placeOrder(second, secondShop),
    ];
    const patched = await call("PATCH", `/v1/orders/${missedOrders[0]}`, {
      key: first.userKey,
      body: { orderStatus: "accepted" },
    });
    expect(patched.status).toBe(200);
    const paid = await call("POST", `/v1/orders/${missedOrders[1]}/pay`, {
      key: second.userKey,
      body: { paymentMethod: { id: "pm_1", name: "Tarjeta" } },
    });
    expect(paid.status).toBe(200);
    // Meanwhile the other developer's account has events of its own, delivered to its own receiver.
    await verify(theirs);
    await placeOrder(theirs, theirShop);

    // Every delivery of the outage ends max_attempts_reached: the whole schedule ran out.
    const missedDeliveries = await eventually(async () => {
      const log = await deliveryLog(developer.key, endpoint.endpointId);
      const missed = log.filter((d) => d.status !== "delivered");
      return missed.length === 7 && missed.every((d) => d.status === "max_attempts_reached") && missed;
    }, 30_000);
    expect(Date.now() - outageStart).toBeGreaterThan(400);
    expect(missedDeliveries.map((d) => d.type).sort()).toEqual(
      [
        "user.verified",
        "user.verified",
        "order.created",
        "order.created",
        "order.created",
        "order.status_updated",
        "order.paid",
      ].sort(),
    );
    const theirEvents = await eventually(async () => {
      const log = await deliveryLog(other.key, otherEndpointId);
      return log.length >= 2 && log.every((d) => d.status === "delivered") && log;
    }, 30_000);

    // Catch up, two per page.
    const before = await deliveryState();
    const requestsBefore = receiver.requests.length;
    const caughtUp = await catchUp(developer.key, endpoint.endpointId);
    expect(await deliveryState()).toEqual(before);
    expect(receiver.requests.length).toBe(requestsBefore);

    // Each missed event once, newest first, nothing else: not the delivered order, not the other developer's.
    const ids = caughtUp.map((e) => e.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(missedDeliveries.map((d) => d.eventId).sort());
    expect(caughtUp.map((e) => e.id)).toEqual([...caughtUp.map((e) => e.id)].sort().reverse());
    for (const theirEvent of theirEvents) expect(ids).not.toContain(theirEvent.eventId);
    expect(caughtUp.some((e) => e.payload.includes(deliveredOrder))).toBe(false);
    for (const orderId of missedOrders)
      expect(caughtUp.some((e) => e.type === "order.created" && e.payload.includes(orderId))).toBe(true);

    // The payload is the delivery's body byte for byte: the signature each attempt sent verifies over it with the
    // endpoint's secret, and the receiver's own handler takes it as it is.
    // The developer's dashboard session (Resend and Recover below are dashboard actions, after the terms).
    await acceptCurrentTerms(await sessionContextFor(developer.accountId), {
      version: currentTerms().version,
    });
    const session = await sessionContextFor(developer.accountId);
    const seen = new Set<string>();
    for (const event of caughtUp) {
      const delivery = missedDeliveries.find((d) => d.eventId === event.eventId);
      const detail = await getDelivery(session, {
        scope: "developer",
        endpointId: endpoint.endpointId,
        deliveryId: delivery?.id ?? "",
      });
      expect(detail.body).toBe(event.payload);
      expect(detail.attempts).toHaveLength(3);
      for (const attempt of detail.attempts) {
        const signature = attempt.headers.find((h) => h.name === "X-Service-Signature")?.value;
        expect(verifyWebhookSignature(event.payload, signature ?? undefined, endpoint.signingSecret)).toBe(
          true,
        );
      }
      const envelope = JSON.parse(event.payload) as { eventId: string; type: string };
      expect(envelope).toMatchObject({ eventId: event.eventId, type: event.type });
      seen.add(envelope.eventId);
    }
    expect(seen.size).toBe(7);

    // The receiver is back at the same URL. A Resend that answers 2xx takes its event off the list...
    receiver = await startReceiver("/hook", { port });
    const resent = missedDeliveries[0];
    await resendDelivery(session, {
      scope: "developer",
      endpointId: endpoint.endpointId,
      deliveryId: resent?.id ?? "",
    });
    await receiver.waitFor((requests) => requests.some((r) => r.eventId === resent?.eventId));
    const afterResend = await eventually(async () => {
      const left = await catchUp(developer.key, endpoint.endpointId, 100);
      return left.length === 6 && left;
    }, 30_000);
    expect(afterResend.map((e) => e.eventId)).not.toContain(resent?.eventId);

    // ...and Recover sends the rest: once each answers 2xx, nothing is missing any more.
    const recovered = await recoverDeliveries(session, {
      scope: "developer",
      endpointId: endpoint.endpointId,
      since: new Date(outageStart - 60_000).toISOString(),
    });
    expect(recovered.recovered).toBe(6);
    await eventually(
      async () => (await catchUp(developer.key, endpoint.endpointId, 100)).length === 0,
      30_000,
    );
    const log = await listDeliveryLog(session, { scope: "developer", endpointId: endpoint.endpointId });
    expect(log.data.filter((d) => d.resendOf !== null && d.status === "delivered")).toHaveLength(7);
  }, 120_000);
});
