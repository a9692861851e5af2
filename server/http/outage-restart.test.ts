import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { closeDb, dbReady } from "@/server/db/client";
import { env, resetEnvForTests } from "@/server/env";
import { createStorefrontWithProduct } from "@/server/orders/testing";
import { createMerchant } from "@/server/storefronts/testing";
import { runOutageDrill } from "@/server/testing/outage-drill";
import { type ProductionServer, startProductionServer } from "@/server/testing/production-server";
import {
  canCreateScratchCluster,
  createScratchCluster,
  type ScratchCluster,
} from "@/server/testing/scratch-cluster";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { createTestEndpoint, type Receiver, setTestEnv, startReceiver } from "@/server/webhooks/testing";

/**
 * PostgreSQL restarted for real under load (`pg_ctlcluster ... restart`: every connection terminated, the server
 * down until it has started again), on a cluster of its own so no other test file notices
 * (docs/operations.md, "Database outages"). Needs root and Debian's postgresql-common, as CI has.
 */
describe.skipIf(testDatabaseKind() !== "postgres" || !canCreateScratchCluster())(
  "PostgreSQL restarted under load",
  () => {
    let cluster: ScratchCluster;
    let server: ProductionServer;
    let receiver: Receiver;
    let setup: Parameters<typeof runOutageDrill>[0];

    beforeAll(async () => {
      setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1" });
      cluster = await createScratchCluster();
      await closeDb();
      process.env.DATABASE_URL = cluster.url;
      process.env.DIRECT_DATABASE_URL = cluster.url;
      resetEnvForTests();
      await dbReady(); // migrates the new cluster's database
      receiver = await startReceiver();
      server = await startProductionServer({
        DATABASE_URL: cluster.url,
        DIRECT_DATABASE_URL: cluster.url,
        DATA_DIR: env().DATA_DIR,
        UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
        LOG_LEVEL: "warn",
      });
      const developer = await createDeveloper();
      const merchant = await createMerchant({ developerKey: developer.key });
      await createTestEndpoint(developer.key, { url: receiver.url, subscribedEvents: ["order.created"] });
      const { storefrontId, productId } = await createStorefrontWithProduct(merchant.userKey, {
        stock: null,
      });
      setup = {
        baseUrl: server.baseUrl,
        proxy: null,
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
      await closeDb();
      cluster?.drop();
    });

    it("no request over 10 s, back within 2 s of PostgreSQL's return, every order once, every event delivered", async () => {
      const figures = await runOutageDrill(setup, {
        mode: "restart",
        cutMs: 0,
        outage: () => cluster.restart(),
        clients: 6,
        beforeMs: 1000,
        afterMs: 1500,
        run: "restart",
      });
      expect(figures.slowRequests, JSON.stringify(figures.slow)).toBe(0);
      expect(figures.uncaughtExceptions).toBe(0);
      expect(figures.healthBackMs).toBeLessThan(2000);
      expect(figures.meBackMs).toBeLessThan(2000);
      expect(figures.ordersPlaced).toBe(figures.ordersIntended);
      expect(figures.duplicates).toBe(0);
      expect(figures.inProgressAfterReturn).toBe(0);
      expect(figures.eventsDelivered).toBe(figures.eventsExpected);
      expect(figures.eventIdConflicts).toBe(0);
      expect(figures.lastDeliveryMs).toBeLessThan(10_000);
    }, 90_000);
  },
);
