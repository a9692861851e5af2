import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { acceptCurrentTerms } from "@/server/accounts/cancellation";
import { createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { currentTerms } from "@/server/gate/terms";
import { createMerchant } from "@/server/storefronts/testing";
import { oauthContextFor, serviceContextFor, sessionContextFor } from "@/server/testing/context";
import { listDeliveries, loadDeliveries, loadDeliveriesByEndpoint } from "./delivery-log";
import { defaultEndpointScope } from "./endpoint-scope";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  loadEndpoints,
  MAX_ENDPOINTS_PER_ACCOUNT,
  rotateSigningSecret,
  sendTestEvent,
  updateEndpoint,
} from "./endpoints";
import { CreateWebhookEndpointInput } from "./schema";
import { webhookDeliveries } from "./tables";

// Webhook endpoint services called directly (docs/webhooks.md, "Endpoints"): developer endpoints for holders
// of a webhook scope (a developer key, or the dashboard of an account that holds one), merchant endpoints for
// the account's own orders.

const endpoint = (body: Record<string, unknown> = {}) =>
  CreateWebhookEndpointInput.parse({ url: "https://hooks.example.com/marea", ...body });

async function developerSession(accountId: string) {
  // An operator-made developer account accepts the terms on its first dashboard sign-in.
  await acceptCurrentTerms(await sessionContextFor(accountId), { version: currentTerms().version });
  return sessionContextFor(accountId);
}

describe("webhook endpoint services", () => {
  it("a developer key and its account's dashboard session manage the same developer endpoints", async () => {
    const developer = await createDeveloper();
    const key = await serviceContextFor(developer.key);
    const session = await developerSession(developer.accountId);
    expect(session.actor?.scopes).toContain("developer:webhooks");
    const created = await createEndpoint(key, { endpoint: endpoint() });
    expect(created.signingSecret).toMatch(/^[0-9a-f]{64}$/);
    // The secret is shown once: reads never carry it.
    const read = await getEndpoint(session, { scope: "developer", endpointId: created.endpointId });
    expect(read).not.toHaveProperty("signingSecret");
    expect(read.endpointId).toBe(created.endpointId);
    const paused = await updateEndpoint(session, {
      scope: "developer",
      endpointId: created.endpointId,
      patch: { enabled: false },
    });
    expect(paused.enabled).toBe(false);
    const rotated = await rotateSigningSecret(session, {
      scope: "developer",
      endpointId: created.endpointId,
    });
    expect(rotated.signingSecretVersion).toBe(2);
    expect(rotated.signingSecret).not.toBe(created.signingSecret);
    expect((await listEndpoints(key, { limit: 20 })).data.map((e) => e.endpointId)).toEqual([
      created.endpointId,
    ]);
  });

  it("a merchant's session (no developer key) cannot touch developer endpoints but owns merchant ones", async () => {
    const merchant = await createMerchant({ verified: true });
    const ctx = await sessionContextFor(merchant.userId);
    await expect(createEndpoint(ctx, { scope: "developer", endpoint: endpoint() })).rejects.toMatchObject({
      code: "insufficient_scope",
      options: { requiredScopes: ["developer:webhooks", "developer:bootstrap"] },
    });
    const own = await createEndpoint(ctx, { scope: "merchant", endpoint: endpoint() });
    expect(own).toMatchObject({
      scope: "merchant",
      subscribedEvents: ["order.created", "order.status_updated", "order.paid"],
    });
    // A merchant endpoint is invisible as a developer endpoint, and the other way round (404, never 403).
    const developer = await createDeveloper();
    await expect(
      getEndpoint(await serviceContextFor(developer.key), { endpointId: own.endpointId }),
    ).rejects.toMatchObject({ code: "webhook_endpoint_not_found" });
    await expect(
      sendTestEvent(ctx, { scope: "merchant", endpointId: own.endpointId, type: "user.verified" }),
    ).rejects.toMatchObject({ code: "invalid_request", options: { param: "type" } });
  });

  it("another account's endpoint is not found for every operation", async () => {
    const owner = await createDeveloper();
    const stranger = await serviceContextFor((await createDeveloper()).key);
    const { endpointId } = await createEndpoint(await serviceContextFor(owner.key), { endpoint: endpoint() });
    for (const attempt of [
      () => getEndpoint(stranger, { endpointId }),
      () => updateEndpoint(stranger, { endpointId, patch: { description: "mine now" } }),
      () => rotateSigningSecret(stranger, { endpointId }),
      () => listDeliveries(stranger, { endpointId }),
      () => sendTestEvent(stranger, { endpointId, type: "order.created" }),
      () => deleteEndpoint(stranger, { endpointId }),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ code: "webhook_endpoint_not_found" });
    }
    expect((await getEndpoint(await serviceContextFor(owner.key), { endpointId })).description).toBe("");
  });

  it("16 endpoints per account across both scopes; the 17th is webhook_endpoint_limit_reached", async () => {
    const developer = await createDeveloper();
    const key = await serviceContextFor(developer.key);
    const session = await developerSession(developer.accountId);
    for (let i = 0; i < MAX_ENDPOINTS_PER_ACCOUNT; i++) {
      const scope = i % 2 === 0 ? "developer" : "merchant";
      await createEndpoint(scope === "developer" ? key : session, {
        scope,
        endpoint: endpoint({ description: `#${i}` }),
      });
    }
    await expect(createEndpoint(session, { scope: "merchant", endpoint: endpoint() })).rejects.toMatchObject({
      code: "webhook_endpoint_limit_reached",
    });
  });

  it("a test event is written as a delivery of that endpoint only; a paused endpoint refuses it and gets no row", async () => {
    const developer = await createDeveloper();
    const ctx = await serviceContextFor(developer.key);
    const first = await createEndpoint(ctx, { endpoint: endpoint() });
    const second = await createEndpoint(ctx, { endpoint: endpoint() });
    const { eventId } = await sendTestEvent(ctx, { endpointId: first.endpointId, type: "user.verified" });
    expect(eventId).toMatch(/^[0-9a-f-]{36}$/);
    const log = await listDeliveries(ctx, { endpointId: first.endpointId });
    expect(log.data).toEqual([expect.objectContaining({ eventId, type: "user.verified", test: true })]);
    expect((await listDeliveries(ctx, { endpointId: second.endpointId })).data).toEqual([]);

    await updateEndpoint(ctx, { endpointId: second.endpointId, patch: { enabled: false } });
    await expect(
      sendTestEvent(ctx, { endpointId: second.endpointId, type: "order.paid" }),
    ).rejects.toMatchObject({ code: "webhook_endpoint_paused" });
    const db = await dbReady();
    expect(
      await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, second.endpointId)),
    ).toEqual([]);
  });
});

describe('the endpoints a call acts on when it names no scope (docs/webhooks.md, "Endpoints")', () => {
  it("a developer key: its developer endpoints; a session, a user key, an OAuth app: merchant ones", async () => {
    const developer = await createDeveloper();
    const key = await serviceContextFor(developer.key);
    const session = await developerSession(developer.accountId);
    const merchant = await createMerchant({ verified: true });
    const userKey = await serviceContextFor(merchant.userKey);
    const app = await oauthContextFor(merchant.userKey);
    expect([key, session, userKey, app].map((ctx) => defaultEndpointScope(ctx.actor))).toEqual([
      "developer",
      "merchant",
      "merchant",
      "merchant",
    ]);

    // The developer key and its account's session: the same account, each its own default.
    const fromKey = await createEndpoint(key, { endpoint: endpoint() });
    const fromSession = await createEndpoint(session, { endpoint: endpoint() });
    expect([fromKey.scope, fromSession.scope]).toEqual(["developer", "merchant"]);
    expect((await listEndpoints(key, { limit: 20 })).data.map((e) => e.endpointId)).toEqual([
      fromKey.endpointId,
    ]);
    expect((await listEndpoints(session, { limit: 20 })).data.map((e) => e.endpointId)).toEqual([
      fromSession.endpointId,
    ]);
    await expect(getEndpoint(session, { endpointId: fromKey.endpointId })).rejects.toMatchObject({
      code: "webhook_endpoint_not_found",
    });

    // A user key and an OAuth app of a merchant read the merchant endpoints (catalog:read), as over MCP.
    const own = await createEndpoint(await sessionContextFor(merchant.userId), { endpoint: endpoint() });
    expect(own.scope).toBe("merchant");
    for (const ctx of [userKey, app]) {
      expect((await listEndpoints(ctx, { limit: 20 })).data.map((e) => e.endpointId)).toEqual([
        own.endpointId,
      ]);
      expect(await listDeliveries(ctx, { endpointId: own.endpointId })).toEqual({
        data: [],
        nextCursor: null,
      });
    }
  });
});

describe("webhook reads in batches (the GraphQL door)", () => {
  it("loadEndpoints answers many ids in order; another account's, a merchant one's and a malformed id are not found", async () => {
    const developer = await createDeveloper();
    const other = await createDeveloper();
    const ctx = await serviceContextFor(developer.key);
    const mine = await createEndpoint(ctx, { endpoint: endpoint() });
    const theirs = await createEndpoint(await serviceContextFor(other.key), { endpoint: endpoint() });
    const merchant = await createMerchant();
    const merchantEndpoint = await createEndpoint(await sessionContextFor(merchant.userId), {
      scope: "merchant",
      endpoint: endpoint({ subscribedEvents: ["order.created"] }),
    });
    const loaded = await loadEndpoints(ctx, {
      endpointIds: [theirs.endpointId, mine.endpointId, "not-an-id", merchantEndpoint.endpointId],
    });
    expect(loaded[0]).toMatchObject({ code: "webhook_endpoint_not_found", options: { param: "id" } });
    expect(loaded[1]).toEqual(await getEndpoint(ctx, { endpointId: mine.endpointId }));
    expect(loaded[1]).not.toHaveProperty("signingSecret");
    expect(loaded[2]).toMatchObject({ code: "webhook_endpoint_not_found" });
    expect(loaded[3]).toMatchObject({ code: "webhook_endpoint_not_found" });
    const userKey = await serviceContextFor(merchant.userKey);
    await expect(
      loadEndpoints(userKey, { scope: "developer", endpointIds: [mine.endpointId] }),
    ).rejects.toMatchObject({
      code: "insufficient_scope",
    });
  });

  it("loadDeliveriesByEndpoint is each endpoint's log (newest first) in one call; loadDeliveries finds one by id", async () => {
    const developer = await createDeveloper();
    const other = await createDeveloper();
    const ctx = await serviceContextFor(developer.key);
    const first = await createEndpoint(ctx, { endpoint: endpoint() });
    const second = await createEndpoint(ctx, { endpoint: endpoint() });
    const theirs = await createEndpoint(await serviceContextFor(other.key), { endpoint: endpoint() });
    await sendTestEvent(ctx, { endpointId: first.endpointId, type: "user.verified" });
    await sendTestEvent(ctx, { endpointId: first.endpointId, type: "order.paid" });
    await sendTestEvent(await serviceContextFor(other.key), {
      endpointId: theirs.endpointId,
      type: "order.paid",
    });

    const logs = await loadDeliveriesByEndpoint(ctx, {
      endpointIds: [second.endpointId, first.endpointId, theirs.endpointId],
      limit: 50,
    });
    expect(logs[0]).toEqual({ data: [], nextCursor: null });
    expect(logs[1]).toEqual(await listDeliveries(ctx, { endpointId: first.endpointId }));
    expect(logs[1]?.data.map((d) => d.type)).toEqual(["order.paid", "user.verified"]);
    expect(logs[2]).toEqual({ data: [], nextCursor: null });
    const [newest] = await loadDeliveriesByEndpoint(ctx, { endpointIds: [first.endpointId], limit: 1 });
    expect(newest?.data.map((d) => d.type)).toEqual(["order.paid"]);

    const delivery = logs[1]?.data[0];
    const theirDelivery = (
      await listDeliveries(await serviceContextFor(other.key), { endpointId: theirs.endpointId })
    ).data[0];
    const found = await loadDeliveries(ctx, { deliveryIds: [theirDelivery?.id ?? "", delivery?.id ?? ""] });
    expect(found[0]).toMatchObject({ code: "webhook_endpoint_not_found" });
    expect(found[1]).toEqual(delivery);
  });
});
