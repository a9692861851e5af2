import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { dbReady, queryRows } from "@/server/db/client";
import type { AppError } from "@/server/errors";
import { createStorefrontWithProduct, latestVerificationCode } from "@/server/orders/testing";
import { call } from "@/server/testing/api";
import { asAdapter, serviceContextFor } from "@/server/testing/context";
import type { ListenStreamEvent } from "./schema";
import {
  closeListenSession,
  createListenSession,
  type ListenStream,
  type ListenStreamMessage,
  openListenStream,
  purgeListenSessions,
  triggerListenEvent,
} from "./service";

// docs/webhooks.md, "Local development: marea listen": which events a session gets, how a reconnection resumes, what
// a trigger accepts. Real database, real orders and verifications through /v1, the streams read from the service.

type Merchant = { userId: string; userKey: string; email: string };

let developer: Awaited<ReturnType<typeof createDeveloper>>;
let other: Awaited<ReturnType<typeof createDeveloper>>;
let merchant: Merchant;
let storefront: { storefrontId: string; productId: string };
const open: ListenStream[] = [];

beforeAll(async () => {
  developer = await createDeveloper();
  other = await createDeveloper();
  merchant = await bootstrapUser(developer.key);
  storefront = await createStorefrontWithProduct(merchant.userKey);
});

afterAll(async () => {
  for (const stream of open) await stream.messages.return(undefined);
});

async function session(key: string, events?: string[]) {
  const ctx = await serviceContextFor(key);
  return asAdapter(ctx, (c) =>
    createListenSession(c, {
      forwardTo: "http://localhost:4000/hooks",
      ...(events ? { events: events as never } : {}),
    }),
  );
}

async function stream(key: string, sessionId: string, lastEventId: string | null = null) {
  const ctx = await serviceContextFor(key);
  const opened = await openListenStream(ctx, { sessionId, lastEventId }, { pollMs: 50, heartbeatMs: 60_000 });
  open.push(opened);
  return opened;
}

/** The next `n` events of a stream (heartbeats skipped); fails on a `closed`. */
async function take(messages: AsyncGenerator<ListenStreamMessage>, n: number): Promise<ListenStreamEvent[]> {
  const events: ListenStreamEvent[] = [];
  while (events.length < n) {
    const next = await messages.next();
    if (next.done) throw new Error(`the stream ended after ${events.length} events`);
    if (next.value.kind === "closed") throw new Error(`the session closed: ${next.value.reason}`);
    if (next.value.kind === "event") events.push(next.value.event);
  }
  return events;
}

async function placeOrder(): Promise<string> {
  const placed = await call<{ order: { id: string } }>(
    "POST",
    `/v1/storefronts/${storefront.storefrontId}/orders`,
    {
      key: merchant.userKey,
      body: {
        items: [{ productId: storefront.productId, amount: 1 }],
        customer: { name: "Ana", phone: "+5215512345678" },
        paymentMethod: { name: "Efectivo" },
      },
    },
  );
  expect(placed.status, placed.text).toBe(201);
  return placed.body.order.id;
}

async function rowsOf(sessionId: string) {
  return queryRows<{ event_row_id: string; seq: number | null; acked: boolean }>(
    await dbReady(),
    sql`select event_row_id, seq, acked from listen_session_events where session_id = ${sessionId}
        order by event_row_id`,
  );
}

function orderIdOf(event: ListenStreamEvent): string {
  return (JSON.parse(event.payload) as { data: { orderId: string } }).data.orderId;
}

describe("which events a listen session receives (the rules of GET /v1/events)", () => {
  it("a developer key: user.* of its bootstrapped accounts and order.* of their storefronts; a user key: order.* of its own; another developer: nothing", async () => {
    const dev = await session(developer.key);
    const user = await session(merchant.userKey);
    const stranger = await session(other.key);
    expect(dev.signingSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(dev.session).toMatchObject({ scope: "developer", status: "open" });
    expect(user.session).toMatchObject({
      scope: "merchant",
      events: ["order.created", "order.status_updated", "order.paid"],
    });

    const code = await latestVerificationCode(merchant.email);
    expect((await call("POST", "/v1/me/verify", { key: merchant.userKey, body: { code } })).status).toBe(200);
    const orderId = await placeOrder();

    const devEvents = await take((await stream(developer.key, dev.session.id)).messages, 2);
    expect(devEvents.map((e) => e.type)).toEqual(["user.verified", "order.created"]);
    expect(orderIdOf(devEvents[1] as ListenStreamEvent)).toBe(orderId);
    // The headers of a real delivery, the session as the endpoint, no signature (the CLI signs when it forwards).
    expect(devEvents[1]?.headers).toMatchObject({
      "X-Service-Event-Type": "order.created",
      "X-Service-Event-Id": devEvents[1]?.eventId,
      "X-Service-Endpoint-Id": dev.session.id,
      "X-Service-Source": "merchant",
      "User-Agent": "service-webhook/1.0",
    });
    expect(devEvents[1]?.headers["X-Service-Signature"]).toBeUndefined();

    const userEvents = await take((await stream(merchant.userKey, user.session.id)).messages, 1);
    expect(userEvents.map((e) => e.type)).toEqual(["order.created"]);
    expect(await rowsOf(stranger.session.id)).toEqual([]);
  });

  it("--events filters by type: a session of order.paid only gets no order.created", async () => {
    const paidOnly = await session(developer.key, ["order.paid"]);
    await placeOrder();
    expect(await rowsOf(paidOnly.session.id)).toEqual([]);
  });

  it("a user key cannot ask for user.* events (400 invalid_request, param events)", async () => {
    await expect(session(merchant.userKey, ["user.verified"])).rejects.toMatchObject({
      code: "invalid_request",
      options: { param: "events" },
    });
  });
});

describe('resuming (docs/webhooks.md, "Reconnecting")', () => {
  it("a reconnection with Last-Event-ID acks what arrived and sends the rest again, once, in order; the old connection ends", async () => {
    const dev = await session(developer.key, ["order.created"]);
    const orders = [await placeOrder(), await placeOrder(), await placeOrder()];
    const first = await stream(developer.key, dev.session.id);
    const sent = await take(first.messages, 3);
    expect(sent.map(orderIdOf)).toEqual(orders);

    // The client got only the first one before the connection dropped.
    const second = await stream(developer.key, dev.session.id, sent[0]?.id ?? null);
    // The older connection notices the takeover and ends without sending anything more.
    expect((await first.messages.next()).done).toBe(true);
    orders.push(await placeOrder());
    const resent = await take(second.messages, 3);
    expect(resent.map(orderIdOf)).toEqual(orders.slice(1));

    // Resuming by the envelope's eventId (the X-Service-Event-Id a receiver logs) works the same way.
    const third = await stream(developer.key, dev.session.id, resent[2]?.eventId ?? null);
    const rows = await rowsOf(dev.session.id);
    expect(rows.every((row) => row.acked)).toBe(true);
    orders.push(await placeOrder());
    expect((await take(third.messages, 1)).map(orderIdOf)).toEqual([orders[4]]);
  });

  it("an unknown Last-Event-ID acks nothing: everything not acknowledged is sent again", async () => {
    const dev = await session(developer.key, ["order.created"]);
    await placeOrder();
    await take((await stream(developer.key, dev.session.id)).messages, 1);
    const again = await stream(developer.key, dev.session.id, "evt_01aaaaaaaaaaaaaaaaaaaaaaaa");
    expect(await take(again.messages, 1)).toHaveLength(1);
  });
});

describe("closing", () => {
  it("a closed session's stream ends with `closed`, a new one is 410 listen_session_closed, and it receives nothing more", async () => {
    const dev = await session(developer.key, ["order.created"]);
    const live = await stream(developer.key, dev.session.id);
    const closed = await asAdapter(await serviceContextFor(developer.key), (c) =>
      closeListenSession(c, { sessionId: dev.session.id }),
    );
    expect(closed).toMatchObject({ status: "closed", closedReason: "cli" });
    const next = await live.messages.next();
    expect(next.value).toEqual({ kind: "closed", reason: "cli" });
    await expect(stream(developer.key, dev.session.id)).rejects.toMatchObject({
      code: "listen_session_closed",
    });
    await placeOrder();
    expect(await rowsOf(dev.session.id)).toEqual([]);
  });

  it("another account's session is 404 listen_session_not_found", async () => {
    const dev = await session(developer.key);
    await expect(stream(other.key, dev.session.id)).rejects.toMatchObject({
      code: "listen_session_not_found",
    });
  });

  it("the purge-listen-sessions job drops sessions closed or idle for over a day, and keeps the others", async () => {
    const owner = await createDeveloper();
    const closed = await session(owner.key);
    const live = await session(owner.key);
    await asAdapter(await serviceContextFor(owner.key), (c) =>
      closeListenSession(c, { sessionId: closed.session.id }),
    );
    const db = await dbReady();
    await purgeListenSessions(db, new Date(Date.now() + 60 * 60 * 1000));
    const kept = async () =>
      (
        await queryRows<{ id: string }>(
          db,
          sql`select id from listen_sessions where id in (${closed.session.id}, ${live.session.id}) order by id`,
        )
      ).map((r) => r.id);
    expect(await kept()).toEqual([closed.session.id, live.session.id]);
    await purgeListenSessions(db, new Date(Date.now() + 26 * 60 * 60 * 1000));
    expect(await kept()).toEqual([]);
  });

  it("10 open sessions per account: the 11th is 409 listen_session_limit_reached", async () => {
    const owner = await createDeveloper();
    for (let i = 0; i < 10; i++) await session(owner.key);
    await expect(session(owner.key)).rejects.toMatchObject({ code: "listen_session_limit_reached" });
  });
});

describe("trigger (marea trigger)", () => {
  it("sends a __test event with the overrides merged in to the open sessions only", async () => {
    const owner = await createDeveloper();
    const dev = await session(owner.key);
    const ctx = await serviceContextFor(owner.key);
    const triggered = await asAdapter(ctx, (c) =>
      triggerListenEvent(c, {
        type: "order.created",
        data: { totalPrice: 99.5, customer: { name: "Test Customer" } },
      }),
    );
    expect(triggered.sessionIds).toEqual([dev.session.id]);
    const [event] = await take((await stream(owner.key, dev.session.id)).messages, 1);
    const envelope = JSON.parse(event?.payload ?? "{}");
    expect(envelope).toMatchObject({
      type: "order.created",
      __test: true,
      data: { totalPrice: 99.5, customer: { name: "Test Customer", phone: "+5215512345678" } },
    });
    expect(event?.eventId).toBe(triggered.eventId);
  });

  it("refuses data the schema refuses, and unknown fields, with param at the field", async () => {
    const owner = await createDeveloper();
    await session(owner.key);
    const ctx = await serviceContextFor(owner.key);
    const refusal = (data: Record<string, unknown>) =>
      asAdapter(ctx, (c) => triggerListenEvent(c, { type: "order.paid", data })).then(
        () => null,
        (error: AppError) => ({ code: error.code, param: error.options.param }),
      );
    expect(await refusal({ totalPrice: "lots" })).toEqual({
      code: "invalid_request",
      param: "data.totalPrice",
    });
    expect(await refusal({ items: [{ title: "x", amount: 1.5, price: 1 }] })).toMatchObject({
      code: "invalid_request",
      param: "data.items[0].amount",
    });
    expect(await refusal({ totalPrise: 1 })).toEqual({ code: "invalid_request", param: "data.totalPrise" });
  });

  it("a user key triggers order.* only; with no open session it is 409 listen_session_none_open", async () => {
    const owner = await createDeveloper();
    const user = await bootstrapUser(owner.key);
    const ctx = await serviceContextFor(user.userKey);
    await expect(
      asAdapter(ctx, (c) => triggerListenEvent(c, { type: "order.created" })),
    ).rejects.toMatchObject({ code: "listen_session_none_open" });
    await session(user.userKey);
    await expect(
      asAdapter(ctx, (c) => triggerListenEvent(c, { type: "user.verified" })),
    ).rejects.toMatchObject({ code: "invalid_request", options: { param: "type" } });
    const sent = await asAdapter(ctx, (c) => triggerListenEvent(c, { type: "order.status_updated" }));
    expect(sent.type).toBe("order.status_updated");
  });
});
