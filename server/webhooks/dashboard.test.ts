import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import type { ServiceContext } from "@/server/context";
import { type Db, dbReady } from "@/server/db/client";
import { createMerchant } from "@/server/storefronts/testing";
import { serviceContextFor, sessionContextFor } from "@/server/testing/context";
import { claimDueDeliveries, performAttempt } from "./delivery";
import {
  getDelivery,
  getEndpointHealth,
  listDeliveries,
  listDeliveryLog,
  listEndpointOverview,
  previewTestEvent,
  recoverDeliveries,
  resendDelivery,
} from "./delivery-log";
import { recordResults } from "./delivery-record";
import { createEndpoint, sendTestEvent, updateEndpoint } from "./endpoints";
import { CreateWebhookEndpointInput, WebhookDeliveryDto } from "./schema";
import { webhookDeliveries } from "./tables";
import { type Receiver, setTestEnv, startReceiver } from "./testing";
import { verifyWebhookSignature } from "./verify";

// The dashboard's delivery log, Resend, Recover and endpoint health (docs/webhooks.md, "Delivery log and test
// fires"), called as a signed-in session. Deliveries are driven by hand (claim, attempt, record) with a schedule
// whose retries are due at once, so every step is deterministic.
setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1", WEBHOOK_RETRY_SCHEDULE: "0ms,0ms,0ms" });

let receiver: Receiver;
let db: Db;

beforeAll(async () => {
  receiver = await startReceiver();
  db = await dbReady();
});

afterAll(async () => {
  await receiver?.close();
});

/** Runs every due attempt until nothing is due (each retry of this schedule is due at once). */
async function drain(): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const jobs = await claimDueDeliveries(db, { owner: "dashboard-test", limit: 100, now: new Date() });
    if (jobs.length === 0) return;
    await recordResults(db, await Promise.all(jobs.map((job) => performAttempt(job))));
  }
}

async function merchantWithEndpoint(path = "/hook") {
  const merchant = await createMerchant({ verified: true });
  const session = await sessionContextFor(merchant.userId);
  const endpoint = await createEndpoint(session, {
    scope: "merchant",
    endpoint: CreateWebhookEndpointInput.parse({ url: `${receiver.url.replace("/hook", path)}` }),
  });
  return { merchant, session, endpoint };
}

function requestsTo(path: string) {
  return receiver.requests.filter((r) => r.path === path);
}

describe("delivery log for the dashboard", () => {
  it("a delivery's detail is the exact request the receiver got: every header, the signed body, the answer", async () => {
    const path = "/exact";
    receiver.reply = (request) =>
      request.path === path ? { status: 201, body: "created here" } : { status: 200, body: "ok" };
    const { session, endpoint } = await merchantWithEndpoint(path);
    await sendTestEvent(session, { scope: "merchant", endpointId: endpoint.endpointId, type: "order.paid" });
    await drain();
    const log = await listDeliveryLog(session, { scope: "merchant", endpointId: endpoint.endpointId });
    expect(log.data).toHaveLength(1);
    const entry = log.data[0];
    expect(entry).toMatchObject({ status: "delivered", type: "order.paid", test: true, resendOf: null });
    const detail = await getDelivery(session, {
      scope: "merchant",
      endpointId: endpoint.endpointId,
      deliveryId: entry?.id ?? "",
    });
    const [received] = requestsTo(path);
    expect(detail.body).toBe(received?.rawBody);
    expect(detail.attempts).toHaveLength(1);
    const attempt = detail.attempts[0];
    expect(attempt).toMatchObject({ n: 1, httpStatus: 201, error: null, responseBody: "created here" });
    expect(attempt?.url).toBe(endpoint.url);
    // Every header sent is shown with the value the receiver saw, the signature included.
    for (const header of attempt?.headers ?? []) {
      expect(received?.headers[header.name.toLowerCase()], header.name).toBe(header.value);
    }
    expect(attempt?.headers.map((h) => h.name)).toEqual([
      "Content-Type",
      "X-Service-Signature",
      "X-Service-Event-Type",
      "X-Service-Event-Id",
      "X-Service-Endpoint-Id",
      "X-Service-Signing-Version",
      "X-Service-Source",
      "User-Agent",
    ]);
    expect(
      verifyWebhookSignature(
        detail.body,
        attempt?.headers.find((h) => h.name === "X-Service-Signature")?.value,
        endpoint.signingSecret,
      ),
    ).toBe(true);
    // Never the secret.
    expect(JSON.stringify(detail)).not.toContain(endpoint.signingSecret);
  });

  it("/v1's delivery log keeps its documented attempt fields only", async () => {
    const developer = await createDeveloper();
    const key = await serviceContextFor(developer.key);
    const endpoint = await createEndpoint(key, {
      endpoint: CreateWebhookEndpointInput.parse({ url: receiver.url }),
    });
    receiver.reply = () => ({ status: 200, body: "ok" });
    await sendTestEvent(key, { endpointId: endpoint.endpointId, type: "user.verified" });
    await drain();
    const [delivery] = (await listDeliveries(key, { endpointId: endpoint.endpointId })).data;
    expect(Object.keys(delivery?.attempts[0] ?? {}).sort()).toEqual([
      "at",
      "durationMs",
      "error",
      "httpStatus",
      "n",
    ]);
    expect(() => WebhookDeliveryDto.strict().parse(delivery)).not.toThrow();
  });

  it("three failed attempts end max_attempts_reached, each with its own status and answer; Resend sends the same eventId again", async () => {
    const path = "/flaky";
    let failing = true;
    receiver.reply = (request) =>
      request.path === path && failing
        ? { status: 503, body: "down for maintenance" }
        : { status: 200, body: "ok" };
    const { session, endpoint } = await merchantWithEndpoint(path);
    const ref = { scope: "merchant" as const, endpointId: endpoint.endpointId };
    await sendTestEvent(session, { ...ref, type: "order.created" });
    const [pending] = (await listDeliveryLog(session, ref)).data;
    expect(pending?.status).toBe("pending");
    // Still scheduled: Resend would race its own attempt.
    await expect(resendDelivery(session, { ...ref, deliveryId: pending?.id ?? "" })).rejects.toMatchObject({
      code: "webhook_delivery_in_progress",
      options: { param: "deliveryId" },
    });
    await drain();
    const [failed] = (await listDeliveryLog(session, ref)).data;
    expect(failed?.status).toBe("max_attempts_reached");
    const detail = await getDelivery(session, { ...ref, deliveryId: failed?.id ?? "" });
    expect(detail.attempts.map((a) => [a.n, a.httpStatus, a.error, a.responseBody])).toEqual([
      [1, 503, "HTTP 503", "down for maintenance"],
      [2, 503, "HTTP 503", "down for maintenance"],
      [3, 503, "HTTP 503", "down for maintenance"],
    ]);

    failing = false;
    const resent = await resendDelivery(session, { ...ref, deliveryId: failed?.id ?? "" });
    expect(resent).toMatchObject({ status: "pending", eventId: failed?.eventId, resendOf: failed?.id });
    await drain();
    const log = (await listDeliveryLog(session, ref)).data;
    expect(log.map((d) => [d.id, d.status])).toEqual([
      [resent.id, "delivered"],
      [failed?.id, "max_attempts_reached"],
    ]);
    const bodies = requestsTo(path).map((r) => r.rawBody);
    expect(bodies).toHaveLength(4);
    expect(new Set(bodies).size).toBe(1);
  });

  it("Recover sends again every failed delivery since a time, once: not those already sent again, not older ones", async () => {
    const path = "/recover";
    let failing = true;
    receiver.reply = (request) =>
      request.path === path && failing ? { status: 500, body: "no" } : { status: 200, body: "ok" };
    const { session, endpoint } = await merchantWithEndpoint(path);
    const ref = { scope: "merchant" as const, endpointId: endpoint.endpointId };
    for (const type of ["order.created", "order.paid", "order.status_updated"] as const)
      await sendTestEvent(session, { ...ref, type });
    await drain();
    const failed = (await listDeliveryLog(session, ref)).data;
    expect(failed.map((d) => d.status)).toEqual([
      "max_attempts_reached",
      "max_attempts_reached",
      "max_attempts_reached",
    ]);
    const [newest, middle, oldest] = failed;
    // The oldest happened "yesterday"; one was already resent (and failed again: its resend is the newest try).
    await db
      .update(webhookDeliveries)
      .set({ createdAt: new Date(Date.now() - 24 * 3600_000) })
      .where(eq(webhookDeliveries.id, oldest?.id ?? ""));
    await resendDelivery(session, { ...ref, deliveryId: middle?.id ?? "" });
    await drain();
    failing = false;
    const since = new Date(Date.now() - 3600_000).toISOString();
    const result = await recoverDeliveries(session, { ...ref, since });
    // newest, and middle's resend (it failed too); not middle itself, not the one before `since`.
    expect(result.recovered).toBe(2);
    await drain();
    const log = (await listDeliveryLog(session, ref)).data;
    const recovered = log.filter((d) => d.status === "delivered");
    expect(recovered.map((d) => d.eventId).sort()).toEqual([newest?.eventId, middle?.eventId].sort());
    expect(log.some((d) => d.resendOf === oldest?.id)).toBe(false);
    expect((await recoverDeliveries(session, { ...ref, since })).recovered).toBe(0);
  });

  it("a paused endpoint takes no Resend and no Recover (webhook_endpoint_paused)", async () => {
    const path = "/paused";
    receiver.reply = (request) => (request.path === path ? { status: 500 } : { status: 200 });
    const { session, endpoint } = await merchantWithEndpoint(path);
    const ref = { scope: "merchant" as const, endpointId: endpoint.endpointId };
    await sendTestEvent(session, { ...ref, type: "order.created" });
    await drain();
    const [failed] = (await listDeliveryLog(session, ref)).data;
    await updateEndpoint(session, { ...ref, patch: { enabled: false } });
    await expect(resendDelivery(session, { ...ref, deliveryId: failed?.id ?? "" })).rejects.toMatchObject({
      code: "webhook_endpoint_paused",
    });
    await expect(
      recoverDeliveries(session, { ...ref, since: new Date(0).toISOString() }),
    ).rejects.toMatchObject({ code: "webhook_endpoint_paused" });
  });

  it("filters by status and by event type", async () => {
    const path = "/filters";
    receiver.reply = (request, index) =>
      request.path === path && request.rawBody.includes('"order.paid"')
        ? { status: 500 }
        : { status: 200, body: String(index) };
    const { session, endpoint } = await merchantWithEndpoint(path);
    const ref = { scope: "merchant" as const, endpointId: endpoint.endpointId };
    await sendTestEvent(session, { ...ref, type: "order.created" });
    await sendTestEvent(session, { ...ref, type: "order.paid" });
    await drain();
    const failures = (await listDeliveryLog(session, { ...ref, status: "max_attempts_reached" })).data;
    expect(failures.map((d) => d.type)).toEqual(["order.paid"]);
    const created = (await listDeliveryLog(session, { ...ref, type: "order.created" })).data;
    expect(created.map((d) => d.status)).toEqual(["delivered"]);
    expect((await listDeliveryLog(session, { ...ref, type: "order.status_updated" })).data).toEqual([]);
  });

  it("endpoint health counts attempts and successes per hour over 24 hours, and the list carries the 24-hour totals", async () => {
    const path = "/health";
    let calls = 0;
    receiver.reply = (request) => (request.path === path && calls++ < 2 ? { status: 500 } : { status: 200 });
    const { session, endpoint } = await merchantWithEndpoint(path);
    const ref = { scope: "merchant" as const, endpointId: endpoint.endpointId };
    await sendTestEvent(session, { ...ref, type: "order.created" });
    await sendTestEvent(session, { ...ref, type: "order.paid" });
    await drain();
    const health = await getEndpointHealth(session, ref);
    expect(health.hours).toHaveLength(24);
    // Two failures, then the retry of the first and the first attempt of the second succeed (or the reverse).
    expect([health.attempts, health.successes]).toEqual([4, 2]);
    const current = health.hours.at(-1);
    expect(current?.attempts).toBe(4);
    expect(new Date(current?.hour ?? "").getTime()).toBe(Math.floor(Date.now() / 3600_000) * 3600_000);
    const overview = await listEndpointOverview(session, { scope: "merchant" });
    expect(overview.data.map((e) => [e.endpointId, e.last24h])).toEqual([
      [endpoint.endpointId, { attempts: 4, successes: 2 }],
    ]);
  });

  it("the test fire preview is a sample envelope with __test of the chosen type, and a merchant endpoint cannot preview user.*", async () => {
    const { session } = await merchantWithEndpoint();
    const preview = JSON.parse(
      (await previewTestEvent(session, { scope: "merchant", type: "order.paid" })).envelope,
    );
    expect(preview).toMatchObject({ type: "order.paid", __test: true, apiVersion: "2026-05-12" });
    expect(preview.data.paidAt).toBeTypeOf("string");
    await expect(
      previewTestEvent(session, { scope: "merchant", type: "user.verified" }),
    ).rejects.toMatchObject({
      code: "invalid_request",
      options: { param: "type" },
    });
  });
});

describe("who may read and act on the log", () => {
  async function failedDelivery(): Promise<{
    session: ServiceContext;
    endpointId: string;
    deliveryId: string;
  }> {
    receiver.reply = (request) => (request.path === "/owned" ? { status: 500 } : { status: 200 });
    const { session, endpoint } = await merchantWithEndpoint("/owned");
    await sendTestEvent(session, {
      scope: "merchant",
      endpointId: endpoint.endpointId,
      type: "order.created",
    });
    await drain();
    const [delivery] = (
      await listDeliveryLog(session, { scope: "merchant", endpointId: endpoint.endpointId })
    ).data;
    return { session, endpointId: endpoint.endpointId, deliveryId: delivery?.id ?? "" };
  }

  it("another account's endpoint or delivery is not found, never an empty log", async () => {
    const mine = await failedDelivery();
    const other = await merchantWithEndpoint();
    const ref = { scope: "merchant" as const, endpointId: mine.endpointId };
    await expect(listDeliveryLog(other.session, ref)).rejects.toMatchObject({
      code: "webhook_endpoint_not_found",
    });
    await expect(getEndpointHealth(other.session, ref)).rejects.toMatchObject({
      code: "webhook_endpoint_not_found",
    });
    await expect(getDelivery(other.session, { ...ref, deliveryId: mine.deliveryId })).rejects.toMatchObject({
      code: "webhook_endpoint_not_found",
    });
    await expect(
      resendDelivery(other.session, { ...ref, deliveryId: mine.deliveryId }),
    ).rejects.toMatchObject({
      code: "webhook_endpoint_not_found",
    });
    await expect(
      recoverDeliveries(other.session, { ...ref, since: new Date(0).toISOString() }),
    ).rejects.toMatchObject({
      code: "webhook_endpoint_not_found",
    });
    // A delivery of another endpoint, through one's own endpoint: not found either.
    await expect(
      getDelivery(other.session, {
        scope: "merchant",
        endpointId: other.endpoint.endpointId,
        deliveryId: mine.deliveryId,
      }),
    ).rejects.toMatchObject({ code: "webhook_delivery_not_found", options: { param: "deliveryId" } });
    // The other scope's view of one's own endpoint: not found.
    const developer = await createDeveloper();
    await expect(
      listDeliveryLog(await serviceContextFor(developer.key), {
        scope: "developer",
        endpointId: mine.endpointId,
      }),
    ).rejects.toMatchObject({ code: "webhook_endpoint_not_found" });
  });

  it("Resend and Recover are dashboard-only: an API key is refused whatever its scopes (docs/webhooks.md)", async () => {
    const developer = await createDeveloper();
    const key = await serviceContextFor(developer.key);
    receiver.reply = () => ({ status: 500 });
    const endpoint = await createEndpoint(key, {
      endpoint: CreateWebhookEndpointInput.parse({ url: receiver.url }),
    });
    await sendTestEvent(key, { endpointId: endpoint.endpointId, type: "user.verified" });
    await drain();
    const [delivery] = (await listDeliveries(key, { endpointId: endpoint.endpointId })).data;
    const ref = {
      scope: "developer" as const,
      endpointId: endpoint.endpointId,
      deliveryId: delivery?.id ?? "",
    };
    await expect(resendDelivery(key, ref)).rejects.toMatchObject({ code: "insufficient_scope" });
    await expect(recoverDeliveries(key, { ...ref, since: new Date(0).toISOString() })).rejects.toMatchObject({
      code: "insufficient_scope",
    });
    // A user key on merchant endpoints: the same refusal.
    const merchant = await createMerchant({ verified: true });
    const userKey = await serviceContextFor(merchant.userKey);
    await expect(
      recoverDeliveries(userKey, {
        scope: "merchant",
        endpointId: endpoint.endpointId,
        since: new Date(0).toISOString(),
      }),
    ).rejects.toMatchObject({ code: "insufficient_scope" });
    // The developer account's own dashboard session may.
    const { acceptCurrentTerms } = await import("@/server/accounts/cancellation");
    const { currentTerms } = await import("@/server/gate/terms");
    await acceptCurrentTerms(await sessionContextFor(developer.accountId), {
      version: currentTerms().version,
    });
    const session = await sessionContextFor(developer.accountId);
    receiver.reply = () => ({ status: 200 });
    const resent = await resendDelivery(session, ref);
    expect(resent.resendOf).toBe(delivery?.id);
  });
});
