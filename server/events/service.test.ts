import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { revokeDeveloperKeyAndCascade } from "@/server/accounts/cancellation";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import type { ServiceContext } from "@/server/context";
import { type Db, dbReady, queryRows } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { apiKeys } from "@/server/gate/tables";
import { newId } from "@/server/lib/ids";
import { createStorefrontWithProduct } from "@/server/orders/testing";
import { call } from "@/server/testing/api";
import { operatorContext, serviceContextFor } from "@/server/testing/context";
import { createEndpoint, sendTestEvent, updateEndpoint } from "@/server/webhooks/endpoints";
import { emitEvent, sampleEventData } from "@/server/webhooks/events";
import type { EventType } from "@/server/webhooks/schema";
import { createTestEndpoint, setTestEnv } from "@/server/webhooks/testing";
import { ListEventsInput } from "./schema";
import { getEvent, listEvents, loadEvents } from "./service";

// docs/api.md, "Events", and docs/webhooks.md, "After an outage": the events list called as a service, with actors
// of each kind. No worker runs here: deliveries stay as written (pending), which is "not answered 2xx".
setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1" });

let db: Db;

beforeAll(async () => {
  db = await dbReady();
});

/** An event as a domain change emits it (in a transaction), about `accountId`, at `now`. */
async function emit(type: EventType, accountId: string, now = new Date()) {
  const data = sampleEventData(type, { developerKeyId: newId("key"), now });
  // sampleEventData answers the shape of `type`; emitEvent checks it again.
  return inTransaction(db, (tx) => emitEvent(tx, { type, data: data as never, accountId }, now));
}

async function list(ctx: ServiceContext, input: Record<string, unknown> = {}) {
  return listEvents(ctx, ListEventsInput.parse(input));
}

async function listAll(ctx: ServiceContext, input: Record<string, unknown> = {}) {
  return (await list(ctx, { limit: 100, ...input })).data;
}

async function placeOrder(userKey: string, storefront: { storefrontId: string; productId: string }) {
  const placed = await call<{ order: { id: string } }>(
    "POST",
    `/v1/storefronts/${storefront.storefrontId}/orders`,
    {
      key: userKey,
      body: {
        items: [{ productId: storefront.productId, amount: 1 }],
        customer: { name: "Luis", phone: "555" },
        paymentMethod: { name: "Cash" },
      },
    },
  );
  expect(placed.status, placed.text).toBe(201);
  return placed.body.order.id;
}

describe("who sees which events: exactly whom delivery sends them to", () => {
  it("a developer key: user.* of its bootstrapped accounts and order.* of their storefronts, nothing of another developer's", async () => {
    const developer = await createDeveloper();
    const other = await createDeveloper();
    const user = await bootstrapUser(developer.key);
    const stranger = await bootstrapUser(other.key);
    const shop = await createStorefrontWithProduct(user.userKey);
    const orderId = await placeOrder(user.userKey, shop);
    const verified = await emit("user.verified", user.userId);
    const theirs = await emit("user.verified", stranger.userId);
    await placeOrder(stranger.userKey, await createStorefrontWithProduct(stranger.userKey));

    const events = await listAll(await serviceContextFor(developer.key));
    expect(events.map((e) => e.type)).toEqual(["user.verified", "order.created"]);
    expect(events[0]?.eventId).toBe(verified.eventId);
    expect(events[1]?.payload).toContain(orderId);
    const otherEvents = await listAll(await serviceContextFor(other.key));
    expect(otherEvents.map((e) => e.eventId)).toContain(theirs.eventId);
    expect(otherEvents.some((e) => e.payload.includes(user.userId))).toBe(false);
  });

  it("each item is {id, eventId, type, createdAt, payload}; payload is the stored envelope text itself", async () => {
    const developer = await createDeveloper();
    const user = await bootstrapUser(developer.key);
    const emitted = await emit("user.cancelled", user.userId, new Date("2026-05-12T10:00:00.000Z"));
    const [event] = await listAll(
      await serviceContextFor(developer.key, () => new Date("2026-05-13T00:00:00Z")),
    );
    expect(Object.keys(event ?? {}).sort()).toEqual(["createdAt", "eventId", "id", "payload", "type"]);
    expect(event).toMatchObject({
      id: emitted.eventRowId,
      eventId: emitted.eventId,
      type: "user.cancelled",
      createdAt: "2026-05-12T10:00:00.000Z",
    });
    const [stored] = await queryRows<{ body: string }>(
      db,
      sql`select envelope::text as body from webhook_events where id = ${emitted.eventRowId}`,
    );
    expect(event?.payload).toBe(stored?.body);
    expect(JSON.parse(event?.payload ?? "{}")).toMatchObject({
      type: "user.cancelled",
      eventId: emitted.eventId,
    });
  });

  it("a user key: order.* of its own storefronts only (what its merchant endpoints get), never user.* about itself", async () => {
    const developer = await createDeveloper();
    const user = await bootstrapUser(developer.key);
    const neighbour = await bootstrapUser(developer.key);
    const orderId = await placeOrder(user.userKey, await createStorefrontWithProduct(user.userKey));
    await placeOrder(neighbour.userKey, await createStorefrontWithProduct(neighbour.userKey));
    await emit("user.verified", user.userId);
    const events = await listAll(await serviceContextFor(user.userKey));
    expect(events.map((e) => e.type)).toEqual(["order.created"]);
    expect(events[0]?.payload).toContain(orderId);
  });

  it("revoking the bootstrapping key stops the account's order events, in the list as in delivery; user.* stay, other keys' accounts stay", async () => {
    const first = await createDeveloper();
    const second = await createDeveloper({ email: first.email });
    const revokedUser = await bootstrapUser(first.key);
    const keptUser = await bootstrapUser(second.key);
    const revokedShop = await createStorefrontWithProduct(revokedUser.userKey);
    const before = await placeOrder(revokedUser.userKey, revokedShop);
    const kept = await placeOrder(keptUser.userKey, await createStorefrontWithProduct(keptUser.userKey));
    expect(
      (await listAll(await serviceContextFor(second.key))).filter((e) => e.type === "order.created"),
    ).toHaveLength(2);

    await revokeDeveloperKeyAndCascade(await operatorContext(), { keyId: first.keyId });
    const after = await emit("order.created", revokedUser.userId);
    const events = await listAll(await serviceContextFor(second.key));
    const payloads = events.map((e) => e.payload).join("\n");
    expect(payloads).toContain(kept);
    expect(payloads).not.toContain(before);
    expect(events.map((e) => e.eventId)).not.toContain(after.eventId);
    // The still-unverified account was cancelled by the revocation: its user.cancelled still arrives, and is listed.
    expect(events.some((e) => e.type === "user.cancelled" && e.payload.includes(revokedUser.userId))).toBe(
      true,
    );
    // The merchant's own view is untouched by its developer's key.
    const own = await listAll(await serviceContextFor(keptUser.userKey));
    expect(own.map((e) => e.payload).join()).toContain(kept);
  });

  it("test fires are sent to one endpoint and are nobody's events: never listed, 404 by id", async () => {
    const developer = await createDeveloper();
    const endpoint = await createTestEndpoint(developer.key, { url: "http://127.0.0.1:9/hook" });
    const ctx = await serviceContextFor(developer.key);
    const fired = await sendTestEvent(ctx, { endpointId: endpoint.endpointId, type: "order.created" });
    expect(await listAll(ctx)).toEqual([]);
    expect(await listAll(ctx, { undeliveredTo: endpoint.endpointId })).toEqual([]);
    await expect(getEvent(ctx, { eventId: fired.eventId })).rejects.toMatchObject({
      code: "event_not_found",
    });
  });
});

describe("undeliveredTo: the events one endpoint was due and has not answered 2xx for", () => {
  it("only that endpoint's due events; a paused endpoint was never due the events of its pause", async () => {
    const developer = await createDeveloper();
    const user = await bootstrapUser(developer.key);
    const ctx = await serviceContextFor(developer.key);
    const all = await createTestEndpoint(developer.key, { url: "http://127.0.0.1:9/all" });
    const ordersOnly = await createTestEndpoint(developer.key, {
      url: "http://127.0.0.1:9/orders",
      subscribedEvents: ["order.created"],
    });
    const verified = await emit("user.verified", user.userId);
    const created = await emit("order.created", user.userId);
    await updateEndpoint(ctx, { endpointId: ordersOnly.endpointId, patch: { enabled: false } });
    const duringPause = await emit("order.created", user.userId);
    await updateEndpoint(ctx, { endpointId: ordersOnly.endpointId, patch: { enabled: true } });

    const toAll = await listAll(ctx, { undeliveredTo: all.endpointId });
    expect(toAll.map((e) => e.eventId)).toEqual([duringPause.eventId, created.eventId, verified.eventId]);
    const toOrders = await listAll(ctx, { undeliveredTo: ordersOnly.endpointId });
    // Pausing removed the delivery not attempted yet (`created`), and the pause's event made none.
    expect(toOrders.map((e) => e.eventId)).toEqual([]);
    // The list without undeliveredTo shows all three: it is about entitlement, not subscriptions.
    expect((await listAll(ctx)).map((e) => e.eventId)).toEqual([
      duringPause.eventId,
      created.eventId,
      verified.eventId,
    ]);
    const afterResume = await emit("order.created", user.userId);
    expect((await listAll(ctx, { undeliveredTo: ordersOnly.endpointId })).map((e) => e.eventId)).toEqual([
      afterResume.eventId,
    ]);
  });

  it("an event with a delivery that answered 2xx is off the list, whatever other deliveries of it did", async () => {
    const developer = await createDeveloper();
    const user = await bootstrapUser(developer.key);
    const ctx = await serviceContextFor(developer.key);
    const endpoint = await createTestEndpoint(developer.key, { url: "http://127.0.0.1:9/hook" });
    const missed = await emit("order.created", user.userId);
    const answered = await emit("order.paid", user.userId);
    const [delivery] = answered.deliveryIds;
    // The first delivery ended max_attempts_reached; a second one of the same event (a Resend) answered 2xx.
    await db.execute(
      sql`update webhook_deliveries set status = 'max_attempts_reached', attempt_count = 3, next_attempt_at = null
          where event_row_id in (${missed.eventRowId}, ${answered.eventRowId})`,
    );
    await db.execute(
      sql`insert into webhook_deliveries (id, event_row_id, endpoint_id, status, attempt_count, attempts,
            first_dispatch_at, resend_of, created_at, updated_at)
          values ('dlv_resent_for_the_test_00000', ${answered.eventRowId}, ${endpoint.endpointId}, 'delivered', 1,
            '[]', now(), ${delivery ?? null}, now(), now())`,
    );
    expect((await listAll(ctx, { undeliveredTo: endpoint.endpointId })).map((e) => e.eventId)).toEqual([
      missed.eventId,
    ]);
  });

  it("another account's endpoint, a merchant endpoint for a developer key, or a malformed id: 404 webhook_endpoint_not_found on undeliveredTo", async () => {
    const developer = await createDeveloper();
    const other = await createDeveloper();
    const user = await bootstrapUser(developer.key);
    const theirs = await createTestEndpoint(other.key, { url: "http://127.0.0.1:9/hook" });
    const merchantEndpoint = await createEndpoint(await serviceContextFor(user.userKey), {
      scope: "merchant",
      endpoint: { url: "http://127.0.0.1:9/merchant" },
    });
    const ctx = await serviceContextFor(developer.key);
    for (const undeliveredTo of [theirs.endpointId, merchantEndpoint.endpointId, "mk_we_nothex", "x"]) {
      await expect(list(ctx, { undeliveredTo })).rejects.toMatchObject({
        code: "webhook_endpoint_not_found",
        options: { param: "undeliveredTo" },
      });
    }
    // The merchant reads its own merchant endpoint's missed events.
    const order = await emit("order.created", user.userId);
    const mine = await listAll(await serviceContextFor(user.userKey), {
      undeliveredTo: merchantEndpoint.endpointId,
    });
    expect(mine.map((e) => e.eventId)).toEqual([order.eventId]);
  });
});

describe("pages, filters and the 30 days", () => {
  it("newest first by id, `limit` per page, every event once across pages; an unreadable cursor restarts", async () => {
    const developer = await createDeveloper();
    const user = await bootstrapUser(developer.key);
    const ctx = await serviceContextFor(developer.key);
    const emitted = [];
    for (let i = 0; i < 7; i++)
      emitted.push(await emit(i % 2 ? "order.created" : "user.verified", user.userId));
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await list(ctx, { limit: 3, cursor });
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.map((e) => e.eventId));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(emitted.map((e) => e.eventId).reverse());
    expect((await list(ctx, { limit: 2, cursor: "garbage" })).data.map((e) => e.eventId)).toEqual(
      seen.slice(0, 2),
    );
  });

  it("types (any of), createdGte and createdLt", async () => {
    const developer = await createDeveloper();
    const user = await bootstrapUser(developer.key);
    const at = (iso: string) => new Date(iso);
    const a = await emit("user.verified", user.userId, at("2026-05-10T10:00:00Z"));
    const b = await emit("order.created", user.userId, at("2026-05-11T10:00:00Z"));
    const c = await emit("order.paid", user.userId, at("2026-05-12T10:00:00Z"));
    const ctx = await serviceContextFor(developer.key, () => at("2026-05-20T00:00:00Z"));
    const ids = async (input: Record<string, unknown>) => (await listAll(ctx, input)).map((e) => e.eventId);
    expect(await ids({ types: ["order.created", "order.paid"] })).toEqual([c.eventId, b.eventId]);
    expect(await ids({ types: ["user.verified"] })).toEqual([a.eventId]);
    expect(await ids({ createdGte: "2026-05-11T10:00:00Z" })).toEqual([c.eventId, b.eventId]);
    expect(await ids({ createdLt: "2026-05-11T10:00:00Z" })).toEqual([a.eventId]);
    expect(await ids({ createdGte: "2026-05-11T00:00:00+02:00", createdLt: "2026-05-12T00:00:00Z" })).toEqual(
      [b.eventId],
    );
    expect(await ids({ types: ["user.cancelled"] })).toEqual([]);
  });

  it("events older than 30 days are not listed, not even with an earlier createdGte, nor readable by id", async () => {
    const developer = await createDeveloper();
    const user = await bootstrapUser(developer.key);
    const now = new Date("2026-07-01T00:00:00Z");
    const old = await emit("order.created", user.userId, new Date(now.getTime() - 31 * 24 * 3600 * 1000));
    const recent = await emit("order.created", user.userId, new Date(now.getTime() - 29 * 24 * 3600 * 1000));
    const ctx = await serviceContextFor(developer.key, () => now);
    expect((await listAll(ctx)).map((e) => e.eventId)).toEqual([recent.eventId]);
    expect((await listAll(ctx, { createdGte: "2026-01-01T00:00:00Z" })).map((e) => e.eventId)).toEqual([
      recent.eventId,
    ]);
    await expect(getEvent(ctx, { eventId: old.eventRowId })).rejects.toMatchObject({
      code: "event_not_found",
    });
    expect((await getEvent(ctx, { eventId: recent.eventRowId })).eventId).toBe(recent.eventId);
  });
});

describe("one event", () => {
  it("by its evt_ id or its envelope's eventId; another account's, unknown or malformed: 404 event_not_found", async () => {
    const developer = await createDeveloper();
    const other = await createDeveloper();
    const user = await bootstrapUser(developer.key);
    const emitted = await emit("order.created", user.userId);
    const ctx = await serviceContextFor(developer.key);
    const byRow = await getEvent(ctx, { eventId: emitted.eventRowId });
    const byEnvelope = await getEvent(ctx, { eventId: emitted.eventId });
    expect(byRow).toEqual(byEnvelope);
    expect(await getEvent(ctx, { eventId: emitted.eventId.toUpperCase() })).toEqual(byRow);
    expect(byRow.eventId).toBe(emitted.eventId);
    // The merchant sees its own order event too.
    expect((await getEvent(await serviceContextFor(user.userKey), { eventId: emitted.eventId })).id).toBe(
      emitted.eventRowId,
    );
    const otherCtx = await serviceContextFor(other.key);
    for (const eventId of [
      emitted.eventRowId,
      emitted.eventId,
      "evt_01jv0000000000000000000000",
      "nope",
      "",
    ]) {
      await expect(getEvent(otherCtx, { eventId })).rejects.toMatchObject({
        code: "event_not_found",
        options: { param: "eventId" },
      });
    }
    const loaded = await loadEvents(ctx, { eventIds: [emitted.eventId, "x", emitted.eventRowId] });
    expect(loaded.map((item) => ("code" in item ? item.code : item.id))).toEqual([
      emitted.eventRowId,
      "event_not_found",
      emitted.eventRowId,
    ]);
  });
});

describe("authorization: the operations table", () => {
  it("a developer key with developer:read alone, or developer:webhooks alone, reads; developer:bootstrap alone is 403", async () => {
    const developer = await createDeveloper();
    const user = await bootstrapUser(developer.key);
    await emit("user.verified", user.userId);
    for (const [scopes, allowed] of [
      [["developer:read"], true],
      [["developer:webhooks"], true],
      [["developer:bootstrap"], false],
    ] as const) {
      await db
        .update(apiKeys)
        .set({ scopes: [...scopes] })
        .where(eq(apiKeys.id, developer.keyId));
      const attempt = list(await serviceContextFor(developer.key));
      if (allowed) expect((await attempt).data).toHaveLength(1);
      else
        await expect(attempt).rejects.toMatchObject({
          code: "insufficient_scope",
          options: { requiredScopes: ["developer:read", "developer:webhooks", "catalog:read"] },
        });
    }
  });
});
