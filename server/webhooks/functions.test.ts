import { InngestTestEngine } from "@inngest/test";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { type Db, dbReady } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { listOutbox } from "@/server/mail/service";
import { jobFunctions } from "@/server/wiring/inngest";
import { JOB_NAMES } from "@/server/wiring/jobs";
import { attemptDelivery } from "./delivery";
import { emitEvent } from "./events";
import { DELIVERY_EVENT, deliverWebhookFunction, dispatchSweepFunction, INNGEST_OWNER } from "./functions";
import { webhookDeliveries } from "./tables";
import { createTestEndpoint, type Receiver, setTestEnv, startReceiver } from "./testing";
import { verifyWebhookSignature } from "./verify";

// The Inngest engine under @inngest/test: real steps against the real database and a real receiver, with the
// sleeps mocked by step id (under @inngest/test an unmocked sleep never settles). The real schedule: 0s, 30s
// and 5m.
setTestEnv({
  UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
  WEBHOOK_RETRY_SCHEDULE: "0s,30s,5m",
  WEBHOOK_TIMEOUT_MS: "1000",
  SMTP_URL: undefined,
});

let receiver: Receiver;
let db: Db;

beforeAll(async () => {
  receiver = await startReceiver();
  db = await dbReady();
});

afterAll(async () => {
  await receiver?.close();
});

async function pendingDelivery(label: string) {
  const dev = await createDeveloper();
  const user = await bootstrapUser(dev.key);
  const path = `/${label}-${Math.random().toString(36).slice(2, 8)}`;
  const endpoint = await createTestEndpoint(dev.key, { url: `http://127.0.0.1:${receiver.port}${path}` });
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
  const requests = () => receiver.requests.filter((r) => r.path === path);
  return { dev, endpoint, emitted, deliveryId, path, requests };
}

/** What the sweep does before handing over: lease the delivery to Inngest. */
async function handOver(deliveryId: string) {
  await db
    .update(webhookDeliveries)
    .set({ leaseOwner: INNGEST_OWNER, leaseUntil: new Date(Date.now() + 3_600_000) })
    .where(eq(webhookDeliveries.id, deliveryId));
}

/** Fresh per execution: @inngest/test appends the run's step results to the array it is given. */
function sleepMocks() {
  return [
    { id: "wait-for-attempt-2", handler: () => undefined },
    { id: "wait-for-attempt-3", handler: () => undefined },
  ];
}

describe("deliver-webhook (one function run per delivery; step.run per attempt, step.sleepUntil between)", () => {
  it("fail, fail, succeed: attempts 1-3, sleeping until +30 s and +5 min from the first dispatch", async () => {
    const d = await pendingDelivery("inngest-retry");
    await handOver(d.deliveryId);
    receiver.reply = (r) => (r.path === d.path && d.requests().length <= 2 ? { status: 500 } : {});
    const t = new InngestTestEngine({ function: deliverWebhookFunction });
    const { result, ctx } = await t.execute({
      events: [{ name: DELIVERY_EVENT, data: { deliveryId: d.deliveryId } }],
      steps: sleepMocks(),
    });
    receiver.reply = () => ({});
    expect(result).toEqual({ deliveryId: d.deliveryId, status: "delivered", attempts: [1, 2, 3] });
    expect(d.requests()).toHaveLength(3);
    for (const r of d.requests())
      expect(
        verifyWebhookSignature(r.rawBody, String(r.headers["x-service-signature"]), d.endpoint.signingSecret),
      ).toBe(true);

    const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, d.deliveryId));
    const first = row?.firstDispatchAt.getTime() ?? 0;
    expect(row?.attempts.map((a) => a.httpStatus)).toEqual([500, 500, 200]);
    expect(row?.leaseOwner).toBeNull();
    expect(ctx.step.sleepUntil).toHaveBeenCalledTimes(2);
    expect(ctx.step.sleepUntil).toHaveBeenCalledWith(
      "wait-for-attempt-2",
      new Date(first + 30_000).toISOString(),
    );
    expect(ctx.step.sleepUntil).toHaveBeenCalledWith(
      "wait-for-attempt-3",
      new Date(first + 300_000).toISOString(),
    );
    expect(ctx.step.run).toHaveBeenCalledWith("attempt-1", expect.any(Function));
  });

  it("fail x3: max_attempts_reached and the failure email for user.* queued to the owner", async () => {
    const d = await pendingDelivery("inngest-fail");
    await handOver(d.deliveryId);
    receiver.reply = (r) => (r.path === d.path ? { status: 503 } : {});
    const t = new InngestTestEngine({ function: deliverWebhookFunction });
    const { result } = await t.execute({
      events: [{ name: DELIVERY_EVENT, data: { deliveryId: d.deliveryId } }],
      steps: sleepMocks(),
    });
    receiver.reply = () => ({});
    expect(result).toEqual({ deliveryId: d.deliveryId, status: "max_attempts_reached", attempts: [1, 2, 3] });
    expect(d.requests()).toHaveLength(3);
    const mails = await listOutbox(db, { to: d.dev.email });
    expect(
      mails.some((m) => m.kind === "webhook_delivery_failed" && m.text.includes(d.emitted.eventId)),
    ).toBe(true);
  });

  it("a first attempt that succeeds needs no sleep", async () => {
    const d = await pendingDelivery("inngest-ok");
    await handOver(d.deliveryId);
    const t = new InngestTestEngine({ function: deliverWebhookFunction });
    const { result, ctx } = await t.execute({
      events: [{ name: DELIVERY_EVENT, data: { deliveryId: d.deliveryId } }],
    });
    expect(result).toEqual({ deliveryId: d.deliveryId, status: "delivered", attempts: [1] });
    expect(ctx.step.sleepUntil).not.toHaveBeenCalled();
  });

  it("a retried step does not repeat an attempt that was already recorded (attemptDelivery is idempotent)", async () => {
    const d = await pendingDelivery("inngest-idem");
    await handOver(d.deliveryId);
    const first = await attemptDelivery(db, d.deliveryId, 1, { owner: INNGEST_OWNER });
    const again = await attemptDelivery(db, d.deliveryId, 1, { owner: INNGEST_OWNER });
    expect(first).toMatchObject({ status: "delivered", attempted: true });
    expect(again).toMatchObject({ status: "delivered", attempted: false });
    expect(d.requests()).toHaveLength(1);
  });

  it("a delivery not handed to Inngest is not attempted by it", async () => {
    const d = await pendingDelivery("inngest-not-owned");
    const outcome = await attemptDelivery(db, d.deliveryId, 1, { owner: INNGEST_OWNER });
    expect(outcome.attempted).toBe(false);
    expect(d.requests()).toHaveLength(0);
  });
});

describe("webhook-dispatch-sweep (cron): hands open deliveries to Inngest once", () => {
  it("leases them to inngest and sends one event each, with a de-duplicating id", async () => {
    const d = await pendingDelivery("inngest-sweep");
    const t = new InngestTestEngine({ function: dispatchSweepFunction });
    const { result, ctx } = await t.execute({
      steps: [{ id: "send-deliveries", handler: () => ({ ids: [] }) }],
    });
    expect((result as { dispatched: number }).dispatched).toBeGreaterThanOrEqual(1);
    expect(ctx.step.sendEvent).toHaveBeenCalledWith(
      "send-deliveries",
      expect.arrayContaining([
        { name: DELIVERY_EVENT, id: `${d.deliveryId}:0`, data: { deliveryId: d.deliveryId } },
      ]),
    );
    const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, d.deliveryId));
    expect(row?.leaseOwner).toBe(INNGEST_OWNER);
    expect(row?.leaseUntil?.getTime()).toBeGreaterThan(Date.now() + 5 * 60_000);

    // A second sweep does not hand it over again while the lease holds.
    const second = await new InngestTestEngine({ function: dispatchSweepFunction }).execute({
      steps: [{ id: "send-deliveries", handler: () => ({ ids: [] }) }],
    });
    expect(second.ctx.step.sendEvent).not.toHaveBeenCalled();
    expect(second.result).toEqual({ dispatched: 0 });
  });
});

describe("job cron functions", () => {
  it("purge-deliveries runs the registry job", async () => {
    const fn = jobFunctions[JOB_NAMES.indexOf("purge-deliveries")];
    expect(fn).toBeDefined();
    const { result } = await new InngestTestEngine({ function: fn as NonNullable<typeof fn> }).execute();
    expect(result).toMatchObject({ job: "purge-deliveries", deleted: { deliveries: expect.any(Number) } });
  });
});
