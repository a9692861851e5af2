import { InngestTestEngine } from "@inngest/test";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { closeDb, dbReady } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { resetEnvForTests } from "@/server/env";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { startDatabaseProxy, type TcpProxy } from "@/server/testing/tcp-proxy";
import { emitEvent } from "./events";
import { DELIVERY_EVENT, deliverWebhookFunction, INNGEST_OWNER } from "./functions";
import { webhookDeliveries } from "./tables";
import { createTestEndpoint, type Receiver, setTestEnv, startReceiver } from "./testing";

/**
 * The Inngest engine when a step cannot reach the database (docs/webhooks.md, "Engines"; docs/operations.md,
 * "Database outages"). The service's database is reached through a TCP proxy this file cuts. @inngest/test models
 * no retries: a failed step ends the run, and running it again is what Inngest's retry of that step does.
 */
describe.skipIf(testDatabaseKind() !== "postgres")("deliver-webhook when the database goes away", () => {
  let proxy: TcpProxy;
  let receiver: Receiver;

  beforeAll(async () => {
    setTestEnv({
      UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
      WEBHOOK_RETRY_SCHEDULE: "0s,30s,5m",
      WEBHOOK_TIMEOUT_MS: "1000",
      DATABASE_POOL_WAIT_MS: "1000",
    });
    const proxies = await startDatabaseProxy(process.env.DATABASE_URL ?? "", process.env.DIRECT_DATABASE_URL);
    proxy = proxies;
    await closeDb();
    process.env.DATABASE_URL = proxies.env.DATABASE_URL;
    process.env.DIRECT_DATABASE_URL = proxies.env.DIRECT_DATABASE_URL;
    resetEnvForTests();
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
    await closeDb();
    await proxy?.close();
  });

  async function handedOverDelivery(label: string) {
    const db = await dbReady();
    const dev = await createDeveloper();
    const user = await bootstrapUser(dev.key);
    const path = `/${label}`;
    await createTestEndpoint(dev.key, { url: `http://127.0.0.1:${receiver.port}${path}` });
    const emitted = await inTransaction(db, (tx) =>
      emitEvent(
        tx,
        {
          type: "user.verified",
          accountId: user.userId,
          data: { userId: user.userId, developerKeyId: dev.keyId, verifiedAt: new Date().toISOString() },
        },
        new Date(),
      ),
    );
    const deliveryId = emitted.deliveryIds[0] as string;
    await db
      .update(webhookDeliveries)
      .set({ leaseOwner: INNGEST_OWNER, leaseUntil: new Date(Date.now() + 3_600_000) })
      .where(eq(webhookDeliveries.id, deliveryId));
    const row = async () =>
      (
        await (await dbReady()).select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId))
      )[0];
    return {
      deliveryId,
      eventId: emitted.eventId,
      row,
      requests: () => receiver.requests.filter((r) => r.path === path),
    };
  }

  const run = (deliveryId: string) =>
    new InngestTestEngine({ function: deliverWebhookFunction }).execute({
      events: [{ name: DELIVERY_EVENT, data: { deliveryId } }],
    });

  it("a step that cannot reach the database fails (Inngest retries it): no attempt is made, nothing is lost", async () => {
    const d = await handedOverDelivery("inngest-db-away");
    await proxy.cut("refuse");
    const failed = await run(d.deliveryId);
    expect(failed.error).toBeDefined();
    expect(d.requests()).toHaveLength(0);
    await proxy.restore();
    expect(await d.row()).toMatchObject({ status: "pending", attemptCount: 0, leaseOwner: INNGEST_OWNER });

    const retried = await run(d.deliveryId);
    expect(retried.result).toEqual({ deliveryId: d.deliveryId, status: "delivered", attempts: [1] });
    expect(d.requests()).toHaveLength(1);
    expect((await d.row())?.attempts).toHaveLength(1);
  });

  it("an attempt whose result cannot be recorded is made again by the retry, under the same eventId (at-least-once)", async () => {
    const d = await handedOverDelivery("inngest-record-lost");
    // The receiver answers 200, and the database goes away before the attempt is recorded.
    receiver.reply = (request) => {
      if (request.path === "/inngest-record-lost" && d.requests().length === 1) void proxy.cut("reset");
      return { status: 200 };
    };
    const failed = await run(d.deliveryId);
    receiver.reply = () => ({ status: 200 });
    expect(failed.error).toBeDefined();
    expect(d.requests()).toHaveLength(1);
    await proxy.restore();

    const retried = await run(d.deliveryId);
    expect(retried.result).toEqual({ deliveryId: d.deliveryId, status: "delivered", attempts: [1] });
    const requests = d.requests();
    expect(requests).toHaveLength(2);
    expect(new Set(requests.map((r) => r.eventId))).toEqual(new Set([d.eventId]));
    const row = await d.row();
    expect(row?.attemptCount).toBe(1);
    expect(row?.status).toBe("delivered");
  });
});
