import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { env } from "@/server/env";
import { createStorefrontWithProduct } from "@/server/orders/testing";
import { createMerchant } from "@/server/storefronts/testing";
import { runOutageDrill } from "@/server/testing/outage-drill";
import { type ProductionServer, startProductionServer } from "@/server/testing/production-server";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { startDatabaseProxy, type TcpProxy } from "@/server/testing/tcp-proxy";
import { createTestEndpoint, type Receiver, setTestEnv, startReceiver } from "@/server/webhooks/testing";

/**
 * The production start under a database that goes away (docs/operations.md, "Database outages"): PostgreSQL is
 * cut for a few seconds by a TCP proxy between the server and the database while partners place orders with an
 * Idempotency-Key and retry on 5xx. bench/outage.ts runs the same drill five times per mode with an 8 s cut.
 */
describe.skipIf(testDatabaseKind() !== "postgres")("a database outage under load", () => {
  let proxy: TcpProxy;
  let server: ProductionServer;
  let receiver: Receiver;
  let setup: Parameters<typeof runOutageDrill>[0];

  beforeAll(async () => {
    setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1" });
    // Both ways the server reaches PostgreSQL (the pool, and the LISTEN session) go through the cut.
    const proxies = await startDatabaseProxy(env().DATABASE_URL ?? "", env().DIRECT_DATABASE_URL);
    proxy = proxies;
    receiver = await startReceiver();
    server = await startProductionServer({
      ...proxies.env,
      DATA_DIR: env().DATA_DIR,
      UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
      LOG_LEVEL: "warn",
    });
    // The merchant's orders reach its developer's endpoint (order.created), as a partner's would.
    const developer = await createDeveloper();
    const merchant = await createMerchant({ developerKey: developer.key });
    await createTestEndpoint(developer.key, { url: receiver.url, subscribedEvents: ["order.created"] });
    const { storefrontId, productId } = await createStorefrontWithProduct(merchant.userKey, { stock: null });
    setup = {
      baseUrl: server.baseUrl,
      proxy,
      db: await dbReady(),
      receiver,
      userKey: merchant.userKey,
      storefrontId,
      productId,
      serverOutput: server.output,
    };
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await proxy?.close();
  });

  for (const mode of ["reset", "refuse"] as const) {
    it(`${mode}: no request over 10 s, back within 2 s, every order once, retries answered at once, every event delivered within 10 s`, async () => {
      const figures = await runOutageDrill(setup, {
        mode,
        cutMs: 3000,
        clients: 6,
        beforeMs: 1000,
        afterMs: 1500,
        run: `drill-${mode}`,
      });
      // The figures, printed: a failed assertion below then says the rest of the story.
      if (figures.eventsDelivered !== figures.eventsExpected)
        console.log(
          JSON.stringify(figures),
          `returned at ${new Date(Date.now()).toISOString()}`,
          server
            .output()
            .split("\n")
            .filter((l) => /worker|LISTEN|released/.test(l))
            .map((l) => l.slice(0, 300))
            .join("\n"),
        );
      expect(figures.slowRequests, JSON.stringify(figures.slow)).toBe(0);
      expect(figures.uncaughtExceptions).toBe(0);
      expect(figures.healthBackMs).toBeLessThan(2000);
      expect(figures.meBackMs).toBeLessThan(2000);
      expect(figures.ordersPlaced).toBe(figures.ordersIntended);
      expect(figures.duplicates).toBe(0);
      expect(figures.inProgressAfterReturn).toBe(0);
      expect(figures.retriesDoneMs).toBeLessThan(2000);
      expect(figures.eventsDelivered).toBe(figures.eventsExpected);
      expect(figures.eventIdConflicts).toBe(0);
      expect(figures.lastDeliveryMs).toBeLessThan(10_000);
    }, 90_000);
  }
});
