import { createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeDeveloperKeyAndCascade } from "@/server/accounts/cancellation";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { type Db, dbReady } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { newId } from "@/server/lib/ids";
import { startSmtp } from "@/server/mail/testing";
import { call } from "@/server/testing/api";
import { operatorContext, serviceContextFor } from "@/server/testing/context";
import { runJob } from "@/server/wiring/jobs";
import { createEndpoint } from "./endpoints";
import { OrderPaidData } from "./event-schemas";
import { type EmitEventInput, emitEvent, sampleEventData } from "./events";
import type { EventType, WebhookDeliveryDto, WebhookEndpointDto } from "./schema";
import { webhookDeliveries } from "./tables";
import {
  createTestEndpoint,
  eventually,
  loopbackAliasFromHosts,
  type Receiver,
  setTestEnv,
  startReceiver,
} from "./testing";
import { verifyWebhookSignature } from "./verify";
import { wakeDeliveries } from "./wake";
import { type DeliveryWorker, startDeliveryWorker } from "./worker";

// Shortened schedule and timeout (WEBHOOK_RETRY_SCHEDULE, WEBHOOK_TIMEOUT_MS: docs/webhooks.md,
// "Configuration").
const SCHEDULE = [0, 700, 1500];
setTestEnv({
  UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
  WEBHOOK_RETRY_SCHEDULE: "0ms,700ms,1500ms",
  WEBHOOK_TIMEOUT_MS: "500",
});

let receiver: Receiver;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let worker: DeliveryWorker;
let db: Db;

beforeAll(async () => {
  smtp = await startSmtp();
  setTestEnv({ SMTP_URL: smtp.url });
  receiver = await startReceiver();
  db = await dbReady();
  worker = startDeliveryWorker({ pollMs: 100 });
});

afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await smtp?.close();
});

/** The mail text without quoted-printable soft line breaks. */
function decoded(raw: string): string {
  return raw.replace(/=\r?\n/g, "");
}

function hookUrl(name: string): string {
  return `http://127.0.0.1:${receiver.port}/${name}`;
}

function requestsTo(name: string) {
  return receiver.requests.filter((r) => r.path === `/${name}`);
}

let pathSeq = 0;
function uniquePath(label: string): string {
  pathSeq++;
  return `${label}-${pathSeq}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Emits inside a transaction, as a domain change does, then wakes the worker as `ctx.afterCommit` would. */
async function emit<T extends EventType>(input: EmitEventInput<T>, now = new Date()) {
  const emitted = await inTransaction(db, (tx) => emitEvent(tx, input, now));
  wakeDeliveries();
  return emitted;
}

function userVerified(userId: string, developerKeyId: string) {
  return {
    type: "user.verified" as const,
    accountId: userId,
    data: { userId, developerKeyId, verifiedAt: new Date().toISOString() },
  };
}

function orderCreated(userId: string) {
  const data = sampleEventData("order.created", { developerKeyId: newId("key"), now: new Date() });
  return { type: "order.created" as const, accountId: userId, data: { ...data, userId } as never };
}

async function deliveriesOf(devKey: string, endpointId: string): Promise<WebhookDeliveryDto[]> {
  const res = await call<{ data: WebhookDeliveryDto[] }>(
    "GET",
    `/v1/webhook_endpoints/${endpointId}/deliveries`,
    {
      key: devKey,
    },
  );
  expect(res.status).toBe(200);
  return res.body.data;
}

async function endpointOf(devKey: string, endpointId: string): Promise<WebhookEndpointDto> {
  return (await call<WebhookEndpointDto>("GET", `/v1/webhook_endpoints/${endpointId}`, { key: devKey })).body;
}

/** A developer, one bootstrapped user, and an endpoint at a fresh receiver path. */
async function setup(body: Record<string, unknown> = {}) {
  const dev = await createDeveloper();
  const user = await bootstrapUser(dev.key);
  const path = uniquePath("hook");
  const endpoint = await createTestEndpoint(dev.key, { url: hookUrl(path), ...body });
  return { dev, user, path, endpoint };
}

describe('signed delivery (docs/webhooks.md, "Envelope", "Delivery", "Signature")', () => {
  it("POSTs the raw envelope with every documented header, signed as documented", async () => {
    const { dev, user, path, endpoint } = await setup();
    const emitted = await emit(userVerified(user.userId, dev.keyId));
    await receiver.waitFor(() => requestsTo(path).length === 1);
    const [req] = requestsTo(path);
    if (!req) throw new Error("no request");
    expect(req.method).toBe("POST");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["user-agent"]).toBe("service-webhook/1.0");
    expect(req.headers["x-service-event-type"]).toBe("user.verified");
    expect(req.headers["x-service-event-id"]).toBe(emitted.eventId);
    expect(req.headers["x-service-endpoint-id"]).toBe(endpoint.endpointId);
    expect(req.headers["x-service-signing-version"]).toBe("1");
    expect(req.headers["x-service-source"]).toBe("developer");

    // Recomputed here independently, with the 64-hex secret as ASCII bytes (docs/webhooks.md, "Signature").
    const header = String(req.headers["x-service-signature"]);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) ?? [];
    expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(10);
    const expected = createHmac("sha256", Buffer.from(endpoint.signingSecret, "ascii"))
      .update(`${t}.${req.rawBody}`)
      .digest("hex");
    expect(v1).toBe(expected);
    expect(verifyWebhookSignature(req.rawBody, header, endpoint.signingSecret)).toBe(true);

    // Envelope: exactly type, eventId (UUID v4), timestamp (ISO UTC), apiVersion, data; no __test.
    const envelope = JSON.parse(req.rawBody) as Record<string, unknown>;
    expect(Object.keys(envelope)).toEqual(["type", "eventId", "timestamp", "apiVersion", "data"]);
    expect(envelope.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(envelope.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(envelope).toMatchObject({
      type: "user.verified",
      eventId: emitted.eventId,
      apiVersion: "2026-05-12",
      data: { userId: user.userId, developerKeyId: dev.keyId },
    });

    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(dev.key, endpoint.endpointId);
      return list[0]?.status === "delivered" ? list : undefined;
    });
    expect(delivery).toMatchObject({
      eventId: emitted.eventId,
      type: "user.verified",
      status: "delivered",
      nextAttemptAt: null,
      lastResponseBody: "ok",
      test: false,
      attempts: [{ n: 1, httpStatus: 200, error: null }],
    });
    expect(await endpointOf(dev.key, endpoint.endpointId)).toMatchObject({
      lastDeliveryStatus: "success",
      consecutiveFailures: 0,
      lastDeliveryAt: expect.any(String),
    });
  });

  it('order.* events carry X-Service-Source: merchant (docs/webhooks.md, "Events")', async () => {
    const { user, path } = await setup();
    await emit(orderCreated(user.userId));
    await receiver.waitFor(() => requestsTo(path).length === 1);
    expect(requestsTo(path)[0]?.headers["x-service-source"]).toBe("merchant");
    expect(requestsTo(path)[0]?.headers["x-service-event-type"]).toBe("order.created");
  });

  it("every attempt sends the same bytes, signed at its own time", async () => {
    const { dev, user, path } = await setup();
    receiver.reply = (r, _i) =>
      r.path === `/${path}` && requestsTo(path).length === 1 ? { status: 503 } : {};
    await emit(userVerified(user.userId, dev.keyId));
    await receiver.waitFor(() => requestsTo(path).length === 2, 5000);
    receiver.reply = () => ({});
    const [first, second] = requestsTo(path);
    expect(second?.rawBody).toBe(first?.rawBody);
    expect(second?.headers["x-service-event-id"]).toBe(first?.headers["x-service-event-id"]);
  });
});

describe('retries (docs/webhooks.md, "Delivery"; WEBHOOK_RETRY_SCHEDULE shortened to 0ms,700ms,1500ms)', () => {
  it("fail, fail, succeed: 3 attempts at +0, +0.7 s and +1.5 s from the first dispatch, then delivered", async () => {
    const { dev, user, path, endpoint } = await setup();
    receiver.reply = (r) => {
      if (r.path !== `/${path}`) return {};
      return requestsTo(path).length <= 2 ? { status: 500, body: "boom" } : { status: 204, body: "" };
    };
    const emitted = await emit(userVerified(user.userId, dev.keyId));
    await receiver.waitFor(() => requestsTo(path).length === 3, 8000);
    receiver.reply = () => ({});
    const times = requestsTo(path).map((r) => r.at);
    const first = times[0] as number;
    expect((times[1] as number) - first).toBeGreaterThanOrEqual((SCHEDULE[1] as number) - 50);
    expect((times[1] as number) - first).toBeLessThan((SCHEDULE[1] as number) + 900);
    expect((times[2] as number) - first).toBeGreaterThanOrEqual((SCHEDULE[2] as number) - 50);
    expect((times[2] as number) - first).toBeLessThan((SCHEDULE[2] as number) + 900);
    for (const r of requestsTo(path)) expect(r.eventId).toBe(emitted.eventId);

    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(dev.key, endpoint.endpointId);
      return list[0]?.status === "delivered" ? list : undefined;
    });
    expect(delivery?.attempts.map((a) => [a.n, a.httpStatus])).toEqual([
      [1, 500],
      [2, 500],
      [3, 204],
    ]);
    expect(delivery?.attempts[0]?.error).toBe("HTTP 500");
    // docs/webhooks.md, "Endpoints": consecutiveFailures counts failed attempts in a row and resets on a
    // success.
    expect(await endpointOf(dev.key, endpoint.endpointId)).toMatchObject({
      lastDeliveryStatus: "success",
      consecutiveFailures: 0,
    });
    // Nothing else arrives after the delivery succeeded.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(requestsTo(path)).toHaveLength(3);
  });

  it("fail x3: max_attempts_reached, 2 KiB of the body kept, and for user.* an email to the owner", async () => {
    const { dev, user, path, endpoint } = await setup();
    receiver.reply = (r) => (r.path === `/${path}` ? { status: 500, body: "e".repeat(5000) } : {});
    const emitted = await emit(userVerified(user.userId, dev.keyId));
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(dev.key, endpoint.endpointId);
      return list[0]?.status === "max_attempts_reached" ? list : undefined;
    }, 8000);
    receiver.reply = () => ({});
    expect(requestsTo(path)).toHaveLength(3);
    expect(delivery?.attempts).toHaveLength(3);
    expect(delivery?.nextAttemptAt).toBeNull();
    expect(delivery?.lastResponseBody).toBe("e".repeat(2048));
    expect(await endpointOf(dev.key, endpoint.endpointId)).toMatchObject({
      lastDeliveryStatus: "failure",
      consecutiveFailures: 3,
    });

    // The delivery-failure email goes to the endpoint owner's account email, through real SMTP.
    const mail = await eventually(
      async () => smtp.mails.find((m) => decoded(m.raw).includes(emitted.eventId)),
      8000,
    );
    expect(mail.to).toEqual([dev.email]);
    // The developer account's language is the default, es.
    expect(mail.raw).toContain("Subject: Entrega de webhook fallida: user.verified");
    expect(decoded(mail.raw)).toContain(endpoint.endpointId);

    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(requestsTo(path)).toHaveLength(3);
  });

  it("fail x3 for an order.* event: max_attempts_reached without an email (only user.* events mail)", async () => {
    const { dev, user, path, endpoint } = await setup();
    receiver.reply = (r) => (r.path === `/${path}` ? { status: 400 } : {});
    const emitted = await emit(orderCreated(user.userId));
    await eventually(async () => {
      const list = await deliveriesOf(dev.key, endpoint.endpointId);
      return list[0]?.status === "max_attempts_reached";
    }, 8000);
    receiver.reply = () => ({});
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.mails.some((m) => decoded(m.raw).includes(emitted.eventId))).toBe(false);
  });

  it("a receiver that hangs fails the attempt at WEBHOOK_TIMEOUT_MS (500 ms here), then retries", async () => {
    const { dev, user, path, endpoint } = await setup();
    receiver.reply = (r) => (r.path === `/${path}` && requestsTo(path).length === 1 ? { hang: true } : {});
    await emit(userVerified(user.userId, dev.keyId));
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(dev.key, endpoint.endpointId);
      return list[0]?.status === "delivered" ? list : undefined;
    }, 8000);
    receiver.reply = () => ({});
    const [timedOut, retried] = delivery?.attempts ?? [];
    expect(timedOut?.httpStatus).toBeNull();
    expect(timedOut?.error).toMatch(/^timeout/);
    expect(timedOut?.durationMs).toBeGreaterThanOrEqual(450);
    expect(timedOut?.durationMs).toBeLessThan(1500);
    expect(retried).toMatchObject({ n: 2, httpStatus: 200, error: null });
  });

  it("a 2xx that arrives after the timeout is a failure", async () => {
    const { dev, user, path, endpoint } = await setup();
    receiver.reply = (r) => (r.path === `/${path}` && requestsTo(path).length === 1 ? { delayMs: 900 } : {});
    await emit(userVerified(user.userId, dev.keyId));
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(dev.key, endpoint.endpointId);
      return list[0]?.status === "delivered" ? list : undefined;
    }, 8000);
    receiver.reply = () => ({});
    expect(delivery?.attempts[0]?.error).toMatch(/^timeout/);
    expect(delivery?.attempts).toHaveLength(2);
  });

  it('redirects are not followed: a 302 is a failed attempt (docs/webhooks.md, "URL rules")', async () => {
    const { dev, user, path, endpoint } = await setup();
    const target = uniquePath("redirect-target");
    receiver.reply = (r) =>
      r.path === `/${path}` ? { status: 302, body: "", headers: { location: hookUrl(target) } } : {};
    await emit(userVerified(user.userId, dev.keyId));
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(dev.key, endpoint.endpointId);
      return list[0]?.status === "max_attempts_reached" ? list : undefined;
    }, 8000);
    receiver.reply = () => ({});
    expect(delivery?.attempts.map((a) => a.httpStatus)).toEqual([302, 302, 302]);
    expect(requestsTo(target)).toHaveLength(0);
  });
});

describe('pause and resume (docs/webhooks.md, "Endpoints")', () => {
  it("paused: zero attempts and zero delivery rows; resumed: deliveries resume", async () => {
    const { dev, user, path, endpoint } = await setup();
    const pause = await call("POST", `/v1/webhook_endpoints/${endpoint.endpointId}`, {
      key: dev.key,
      body: { enabled: false },
    });
    expect(pause.status).toBe(200);
    const paused = await emit(userVerified(user.userId, dev.keyId));
    expect(paused.deliveryIds).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(requestsTo(path)).toHaveLength(0);
    const rows = await db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpoint.endpointId));
    expect(rows).toHaveLength(0);
    expect(await deliveriesOf(dev.key, endpoint.endpointId)).toEqual([]);
    const test = await call("POST", `/v1/webhook_endpoints/${endpoint.endpointId}/test`, {
      key: dev.key,
      body: { type: "user.verified" },
    });
    expect(test.status).toBe(409);
    expect(test.body).toMatchObject({ error: { code: "webhook_endpoint_paused" } });

    await call("POST", `/v1/webhook_endpoints/${endpoint.endpointId}`, {
      key: dev.key,
      body: { enabled: true },
    });
    const resumed = await emit(userVerified(user.userId, dev.keyId));
    await receiver.waitFor(() => requestsTo(path).length === 1);
    expect(requestsTo(path)[0]?.eventId).toBe(resumed.eventId);
  });

  it("pausing cancels scheduled retries: no further attempt", async () => {
    const { dev, user, path, endpoint } = await setup();
    receiver.reply = (r) => (r.path === `/${path}` ? { status: 500 } : {});
    await emit(userVerified(user.userId, dev.keyId));
    await receiver.waitFor(() => requestsTo(path).length === 1);
    await eventually(async () => (await deliveriesOf(dev.key, endpoint.endpointId))[0]?.status === "failed");
    await call("POST", `/v1/webhook_endpoints/${endpoint.endpointId}`, {
      key: dev.key,
      body: { enabled: false },
    });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    receiver.reply = () => ({});
    expect(requestsTo(path)).toHaveLength(1);
    const [delivery] = await deliveriesOf(dev.key, endpoint.endpointId);
    expect(delivery).toMatchObject({ status: "failed", nextAttemptAt: null });
    expect(delivery?.attempts).toHaveLength(1);
  });
});

describe('rotate-secret: the old secret stops at once (docs/webhooks.md, "Endpoints")', () => {
  it("the next delivery is signed with the new secret only, version 2", async () => {
    const { dev, user, path, endpoint } = await setup();
    await emit(userVerified(user.userId, dev.keyId));
    await receiver.waitFor(() => requestsTo(path).length === 1);
    const before = requestsTo(path)[0];
    expect(
      verifyWebhookSignature(
        before?.rawBody ?? "",
        String(before?.headers["x-service-signature"]),
        endpoint.signingSecret,
      ),
    ).toBe(true);

    const rotated = await call<{ signingSecret: string }>(
      "POST",
      `/v1/webhook_endpoints/${endpoint.endpointId}/rotate-secret`,
      { key: dev.key },
    );
    await emit(userVerified(user.userId, dev.keyId));
    await receiver.waitFor(() => requestsTo(path).length === 2);
    const after = requestsTo(path)[1];
    const header = String(after?.headers["x-service-signature"]);
    expect(verifyWebhookSignature(after?.rawBody ?? "", header, endpoint.signingSecret)).toBe(false);
    expect(verifyWebhookSignature(after?.rawBody ?? "", header, rotated.body.signingSecret)).toBe(true);
    expect(after?.headers["x-service-signing-version"]).toBe("2");
  });
});

describe('URL checks before every attempt: DNS resolved, every address checked (docs/webhooks.md, "URL rules")', () => {
  it("a host name that resolves to 127.0.0.1 at delivery time is never contacted", async () => {
    const alias = loopbackAliasFromHosts();
    if (!alias) throw new Error("/etc/hosts has no name for 127.x besides localhost");
    setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: undefined });
    try {
      const dev = await createDeveloper();
      const user = await bootstrapUser(dev.key);
      // Registration accepts it: the name is not one the URL rules refuse by name, and not an IP literal.
      const endpoint = await createTestEndpoint(dev.key, { url: `https://${alias}:${receiver.port}/rebind` });
      await emit(userVerified(user.userId, dev.keyId));
      const [delivery] = await eventually(async () => {
        const list = await deliveriesOf(dev.key, endpoint.endpointId);
        return list[0]?.status === "max_attempts_reached" ? list : undefined;
      }, 8000);
      for (const attempt of delivery?.attempts ?? []) {
        expect(attempt.httpStatus).toBeNull();
        // L1: the log names the host, never the address it resolved to.
        expect(attempt.error).toMatch(
          new RegExp(`^blocked: .*The host ${alias} does not resolve to a public address\\.$`),
        );
        expect(attempt.error).not.toMatch(/127\./);
      }
      expect(receiver.requests.filter((r) => r.path === "/rebind")).toHaveLength(0);
    } finally {
      setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1" });
    }
  });
});

describe('who receives what (docs/webhooks.md, "Events")', () => {
  it("developer endpoints: user.* and order.* of bootstrapped accounts; merchant: own order.*; subscriptions filter", async () => {
    const dev = await createDeveloper();
    const other = await createDeveloper();
    const user = await bootstrapUser(dev.key);
    const all = uniquePath("dev-all");
    const onlyPaid = uniquePath("dev-paid");
    const stranger = uniquePath("stranger");
    const merchantPath = uniquePath("merchant");
    await createTestEndpoint(dev.key, { url: hookUrl(all) });
    await createTestEndpoint(dev.key, { url: hookUrl(onlyPaid), subscribedEvents: ["order.paid"] });
    await createTestEndpoint(other.key, { url: hookUrl(stranger) });
    await createEndpoint(await serviceContextFor(user.userKey), {
      scope: "merchant",
      endpoint: { url: hookUrl(merchantPath) },
    });

    const order = await emit(orderCreated(user.userId));
    expect(order.deliveryIds).toHaveLength(2);
    const verified = await emit(userVerified(user.userId, dev.keyId));
    expect(verified.deliveryIds).toHaveLength(1);
    await receiver.waitFor(() => requestsTo(all).length === 2 && requestsTo(merchantPath).length === 1);
    expect(
      requestsTo(all)
        .map((r) => r.eventId)
        .sort(),
    ).toEqual([order.eventId, verified.eventId].sort());
    expect(requestsTo(merchantPath).map((r) => r.eventId)).toEqual([order.eventId]);
    expect(requestsTo(onlyPaid)).toHaveLength(0);
    expect(requestsTo(stranger)).toHaveLength(0);

    // Revoking the bootstrapping key stops order events to the developer; user.* still flows.
    await revokeDeveloperKeyAndCascade(await operatorContext(), { keyId: dev.keyId });
    const afterRevoke = await emit(orderCreated(user.userId));
    expect(afterRevoke.deliveryIds).toHaveLength(1);
    const cancelled = await emit({
      type: "user.cancelled",
      accountId: user.userId,
      data: {
        userId: user.userId,
        developerKeyId: dev.keyId,
        cancelledAt: new Date().toISOString(),
        reason: "key_revoked",
      },
    });
    expect(cancelled.deliveryIds).toHaveLength(1);
    await receiver.waitFor(
      () =>
        requestsTo(merchantPath).length === 2 && requestsTo(all).some((r) => r.eventId === cancelled.eventId),
    );
    expect(requestsTo(all).some((r) => r.eventId === afterRevoke.eventId)).toBe(false);
  });

  it("emitEvent refuses data that does not have the documented shape of its type", async () => {
    await expect(
      emit({ type: "user.verified", accountId: "usr_x", data: { userId: "u" } as never }),
    ).rejects.toThrow();
  });
});

describe("test fires (POST /v1/webhook_endpoints/{id}/test)", () => {
  it("202 {eventId}; a sample of the type with __test: true, to that endpoint only", async () => {
    const { dev, path, endpoint } = await setup();
    const sibling = uniquePath("sibling");
    await createTestEndpoint(dev.key, { url: hookUrl(sibling) });
    const res = await call<{ eventId: string }>("POST", `/v1/webhook_endpoints/${endpoint.endpointId}/test`, {
      key: dev.key,
      body: { type: "order.paid" },
    });
    expect(res.status).toBe(202);
    await receiver.waitFor(() => requestsTo(path).length === 1);
    const req = requestsTo(path)[0];
    const envelope = JSON.parse(req?.rawBody ?? "{}") as Record<string, unknown>;
    expect(envelope).toMatchObject({ type: "order.paid", eventId: res.body.eventId, __test: true });
    expect(OrderPaidData.safeParse(envelope.data).success).toBe(true);
    expect(
      verifyWebhookSignature(
        req?.rawBody ?? "",
        String(req?.headers["x-service-signature"]),
        endpoint.signingSecret,
      ),
    ).toBe(true);
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(dev.key, endpoint.endpointId);
      return list[0]?.status === "delivered" ? list : undefined;
    });
    expect(delivery?.test).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(requestsTo(sibling)).toHaveLength(0);
    const bad = await call("POST", `/v1/webhook_endpoints/${endpoint.endpointId}/test`, {
      key: dev.key,
      body: { type: "order.refunded" },
    });
    expect(bad.status).toBe(400);
  });
});

describe('delivery log: last 50 per endpoint, 30-day retention (docs/webhooks.md, "Delivery log and test fires")', () => {
  it("lists the newest 50, newest first", async () => {
    const { dev, user, path, endpoint } = await setup({ subscribedEvents: ["user.verified"] });
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) ids.push((await emit(userVerified(user.userId, dev.keyId))).eventId);
    await receiver.waitFor(() => requestsTo(path).length >= 55, 15_000);
    const list = await deliveriesOf(dev.key, endpoint.endpointId);
    expect(list).toHaveLength(50);
    expect(list.map((d) => d.eventId)).toEqual(ids.slice(5).reverse());
  });

  it("purge-deliveries drops deliveries older than 30 days and keeps newer ones", async () => {
    const { dev, user, path, endpoint } = await setup();
    const old = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000);
    await emit(userVerified(user.userId, dev.keyId), old);
    await emit(userVerified(user.userId, dev.keyId));
    await receiver.waitFor(() => requestsTo(path).length === 2);
    await eventually(async () => {
      const rows = await db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.endpointId, endpoint.endpointId));
      return rows.every((r) => r.status === "delivered") && rows.length === 2;
    });
    // The log never shows rows past retention, even before the job runs.
    expect(await deliveriesOf(dev.key, endpoint.endpointId)).toHaveLength(1);
    const result = await runJob(db, "purge-deliveries", new Date());
    expect(result).toMatchObject({ job: "purge-deliveries", deleted: { deliveries: 1, events: 1 } });
    const rows = await db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpoint.endpointId));
    expect(rows).toHaveLength(1);
  });
});
