import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { acceptCurrentTerms } from "@/server/accounts/cancellation";
import { createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { currentTerms } from "@/server/gate/terms";
import { updateOrderStatus } from "@/server/orders/lifecycle";
import { createOrder } from "@/server/orders/place";
import { CreateOrderInput } from "@/server/orders/schema";
import { createStorefrontWithProduct } from "@/server/orders/testing";
import { createMerchant } from "@/server/storefronts/testing";
import { serviceContextFor, sessionContextFor } from "@/server/testing/context";
import { sendTestEvent } from "@/server/webhooks/endpoints";
import { webhookDeliveries, webhookEndpoints } from "@/server/webhooks/tables";
import { createTestEndpoint } from "@/server/webhooks/testing";
import { getDeliveryOverview, getMerchantOverview } from "./service";

// The dashboard's overview (docs/ui.md, "Overview").

const order = (productId: string, amount: number) =>
  CreateOrderInput.parse({
    items: [{ productId, amount }],
    customer: { name: "Ana", phone: "+5215512345678" },
    paymentMethod: { name: "Efectivo" },
  });

describe("merchant overview", () => {
  it("today's orders and revenue per storefront (cancelled left out), its state, and what to do next", async () => {
    const merchant = await createMerchant({ verified: true });
    const { storefrontId, productId } = await createStorefrontWithProduct(merchant.userKey, { price: 25 });
    const keyCtx = await serviceContextFor(merchant.userKey);
    await createOrder(keyCtx, { storefrontId, order: order(productId, 2) });
    await createOrder(keyCtx, { storefrontId, order: order(productId, 1) });
    const cancelled = await createOrder(keyCtx, { storefrontId, order: order(productId, 4) });
    await updateOrderStatus(keyCtx, { orderId: cancelled.id, change: { orderStatus: "cancelled" } });

    const overview = await getMerchantOverview(await sessionContextFor(merchant.userId));
    expect(overview.storefronts).toEqual([
      expect.objectContaining({
        id: storefrontId,
        state: "draft",
        publicUrl: null,
        currency: "MXN",
        ordersToday: 2,
        revenueToday: 75,
      }),
    ]);
    // FREE_NEW cannot publish: the next step is the upgrade, not publish.
    expect(overview.nextSteps).toEqual([
      { kind: "upgrade_to_publish", upgradeUrl: expect.stringMatching(/\/dashboard\/billing\?plan=PRO$/) },
    ]);

    // Two days later nothing is "today".
    const later = new Date(Date.now() + 2 * 86_400_000);
    const tomorrow = await getMerchantOverview(await sessionContextFor(merchant.userId, () => later));
    expect(tomorrow.storefronts[0]).toMatchObject({ ordersToday: 0, revenueToday: 0 });
  });

  it("a PRO merchant is told to publish each draft; no storefront yet: create one", async () => {
    const pro = await createMerchant({ verified: true, plan: "PRO" });
    const empty = await getMerchantOverview(await sessionContextFor(pro.userId));
    expect(empty).toEqual({ storefronts: [], nextSteps: [{ kind: "create_storefront" }] });
    const { storefrontId } = await createStorefrontWithProduct(pro.userKey);
    const withDraft = await getMerchantOverview(await sessionContextFor(pro.userId));
    expect(withDraft.nextSteps).toEqual([{ kind: "publish", storefrontId, storefrontName: "Tacos Lupita" }]);
  });

  it("only the account's own storefronts and orders", async () => {
    const merchant = await createMerchant({ verified: true });
    const stranger = await createMerchant({ verified: true });
    await createStorefrontWithProduct(stranger.userKey);
    expect((await getMerchantOverview(await sessionContextFor(merchant.userId))).storefronts).toEqual([]);
  });
});

describe("developer overview", () => {
  it("deliveries of the last 24 hours by status across endpoints, failing endpoints first; merchants are refused", async () => {
    const developer = await createDeveloper();
    await acceptCurrentTerms(await sessionContextFor(developer.accountId), {
      version: currentTerms().version,
    });
    const healthy = await createTestEndpoint(developer.key, { url: "https://a-healthy.example.com/hook" });
    const failing = await createTestEndpoint(developer.key, { url: "https://z-failing.example.com/hook" });
    const quiet = await createTestEndpoint(developer.key, { url: "https://m-quiet.example.com/hook" });
    const keyCtx = await serviceContextFor(developer.key);
    for (let i = 0; i < 2; i++)
      await sendTestEvent(keyCtx, { endpointId: healthy.endpointId, type: "user.verified" });
    await sendTestEvent(keyCtx, { endpointId: failing.endpointId, type: "user.verified" });
    const db = await dbReady();
    await db
      .update(webhookDeliveries)
      .set({ status: "delivered" })
      .where(eq(webhookDeliveries.endpointId, healthy.endpointId));
    await db
      .update(webhookDeliveries)
      .set({ status: "max_attempts_reached" })
      .where(eq(webhookDeliveries.endpointId, failing.endpointId));
    await db
      .update(webhookEndpoints)
      .set({ lastDeliveryStatus: "failure", consecutiveFailures: 3 })
      .where(eq(webhookEndpoints.id, failing.endpointId));

    const overview = await getDeliveryOverview(await sessionContextFor(developer.accountId));
    expect(overview.totals).toEqual({ pending: 0, delivered: 2, failed: 0, max_attempts_reached: 1 });
    expect(overview.endpoints.map((e) => e.id)).toEqual([
      failing.endpointId,
      healthy.endpointId,
      quiet.endpointId,
    ]);
    expect(overview.endpoints[0]).toMatchObject({ isFailing: true, consecutiveFailures: 3 });
    expect(overview.endpoints[2]?.last24h).toEqual({
      pending: 0,
      delivered: 0,
      failed: 0,
      max_attempts_reached: 0,
    });

    // A day and a bit later the window is empty.
    const later = new Date(Date.now() + 25 * 3_600_000);
    const next = await getDeliveryOverview(await sessionContextFor(developer.accountId, () => later));
    expect(next.totals).toEqual({ pending: 0, delivered: 0, failed: 0, max_attempts_reached: 0 });

    const merchant = await createMerchant({ verified: true });
    await expect(getDeliveryOverview(await sessionContextFor(merchant.userId))).rejects.toMatchObject({
      code: "insufficient_scope",
    });
    await expect(getMerchantOverview(await serviceContextFor(merchant.userKey))).rejects.toMatchObject({
      code: "insufficient_scope",
    });
  });
});
