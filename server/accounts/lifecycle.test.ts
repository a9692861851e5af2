import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbReady } from "@/server/db/client";
import { accounts } from "@/server/gate/tables";
import { listOutbox } from "@/server/mail/service";
import { latestVerificationCode } from "@/server/orders/testing";
import { call } from "@/server/testing/api";
import { asAdapter, operatorContext } from "@/server/testing/context";
import { webhookDeliveries, webhookEvents } from "@/server/webhooks/tables";
import { createTestEndpoint, type Receiver, setTestEnv, startReceiver } from "@/server/webhooks/testing";
import { type DeliveryWorker, startDeliveryWorker } from "@/server/webhooks/worker";
import {
  cancelAccountsWithoutCurrentTerms,
  cancelStaleUnverifiedAccounts,
  revokeDeveloperKeyAndCascade,
} from "./cancellation";
import { bootstrapUser, createDeveloper } from "./testing";

setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1" });
const DAY = 86_400_000;

let worker: DeliveryWorker;
let receiver: Receiver;
let developer: { key: string; keyId: string; accountId: string };

beforeAll(async () => {
  worker = startDeliveryWorker({ pollMs: 100 });
  receiver = await startReceiver();
  developer = await createDeveloper();
  await createTestEndpoint(developer.key, {
    url: receiver.url,
    subscribedEvents: ["user.verified", "user.cancelled", "order.created"],
  });
});

afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
});

async function cancellationOf(userId: string): Promise<{ reason: string; developerKeyId: string }> {
  await receiver.waitFor((requests) =>
    requests.some((r) => r.rawBody.includes(userId) && r.rawBody.includes('"user.cancelled"')),
  );
  const request = receiver.requests.find(
    (r) => r.rawBody.includes(userId) && r.rawBody.includes('"user.cancelled"'),
  );
  return (JSON.parse(request?.rawBody ?? "{}") as { data: { reason: string; developerKeyId: string } }).data;
}

async function accountStatus(userId: string): Promise<string | undefined> {
  const [row] = await (await dbReady())
    .select({ status: accounts.status })
    .from(accounts)
    .where(eq(accounts.id, userId));
  return row?.status;
}

async function setCreatedAt(userId: string, createdAt: Date): Promise<void> {
  await (await dbReady()).update(accounts).set({ createdAt }).where(eq(accounts.id, userId));
}

// docs/api.md, "Account lifecycle": verification.
describe("email verification", () => {
  it("a wrong code is 400 invalid_verification_code; an idempotent retry replays that 400", async () => {
    const user = await bootstrapUser(developer.key);
    const headers = { "idempotency-key": "verify-wrong" };
    const first = await call<{ error: { code: string; param: string } }>("POST", "/v1/me/verify", {
      key: user.userKey,
      body: { code: "000000" === (await latestVerificationCode(user.email)) ? "111111" : "000000" },
      headers,
    });
    expect(first.status).toBe(400);
    expect(first.body.error).toMatchObject({ code: "invalid_verification_code", param: "code" });
    const replay = await call("POST", "/v1/me/verify", {
      key: user.userKey,
      body: JSON.parse(
        JSON.stringify({
          code: "000000" === (await latestVerificationCode(user.email)) ? "111111" : "000000",
        }),
      ),
      headers,
    });
    expect(replay.status).toBe(400);
    expect(replay.text).toBe(JSON.stringify(first.body));
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  it("a wrong code sent with an Idempotency-Key stays counted: verifyEmail commits its own writes, whatever the route", async () => {
    const user = await bootstrapUser(developer.key);
    const code = await latestVerificationCode(user.email);
    const wrong = code === "123456" ? "654321" : "123456";
    const tries = async () => {
      const [row] = await (await dbReady())
        .select({ attempts: accounts.verificationAttempts, tries: accounts.verificationTries })
        .from(accounts)
        .where(eq(accounts.id, user.userId));
      return row;
    };
    const send = () =>
      call("POST", "/v1/me/verify", {
        key: user.userKey,
        body: { code: wrong },
        headers: { "idempotency-key": "counted-wrong" },
      });
    expect((await send()).status).toBe(400);
    expect(await tries()).toEqual({ attempts: 1, tries: 1 });
    // The replay answers the stored refusal without running the operation again: still one try.
    expect((await send()).headers.get("idempotent-replayed")).toBe("true");
    expect(await tries()).toEqual({ attempts: 1, tries: 1 });
  });

  it("attempts are limited: after 5 wrong codes even the right one fails until a new code is requested", async () => {
    const user = await bootstrapUser(developer.key);
    const code = await latestVerificationCode(user.email);
    const wrong = code === "123456" ? "654321" : "123456";
    for (let i = 0; i < 5; i++) {
      // Fresh Idempotency-Keys: a rolled-back failure must still count the attempt.
      const res = await call("POST", "/v1/me/verify", {
        key: user.userKey,
        body: { code: wrong },
        headers: { "idempotency-key": `guess-${i}` },
      });
      expect(res.status).toBe(400);
    }
    expect((await call("POST", "/v1/me/verify", { key: user.userKey, body: { code } })).status).toBe(400);
    expect(await accountStatus(user.userId)).toBe("unverified");
  });

  it("an expired code is refused", async () => {
    const user = await bootstrapUser(developer.key);
    const code = await latestVerificationCode(user.email);
    await (await dbReady())
      .update(accounts)
      .set({ verificationExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(accounts.id, user.userId));
    expect((await call("POST", "/v1/me/verify", { key: user.userKey, body: { code } })).status).toBe(400);
  });

  it("resend-verification answers 202 and mails a new code; the old code stops working; once a minute at most", async () => {
    const user = await bootstrapUser(developer.key);
    const oldCode = await latestVerificationCode(user.email);
    await (await dbReady())
      .update(accounts)
      .set({ verificationExpiresAt: new Date(Date.now() + DAY - 120_000) })
      .where(eq(accounts.id, user.userId));
    const resent = await call("POST", "/v1/me/resend-verification", { key: user.userKey });
    expect(resent.status).toBe(202);
    expect(resent.body).toEqual({ status: "sent" });
    const throttled = await call("POST", "/v1/me/resend-verification", { key: user.userKey });
    expect(throttled.body).toEqual({ status: "throttled" });
    expect(await listOutbox(await dbReady(), { to: user.email })).toHaveLength(2);
    const newCode = await latestVerificationCode(user.email);
    if (newCode !== oldCode) {
      expect(
        (await call("POST", "/v1/me/verify", { key: user.userKey, body: { code: oldCode } })).status,
      ).toBe(400);
    }
    expect((await call("POST", "/v1/me/verify", { key: user.userKey, body: { code: newCode } })).status).toBe(
      200,
    );
  });
});

// docs/api.md, "Account lifecycle": one user.cancelled per cause, with its reason.
describe("cancellation reasons", () => {
  it("30d_unverified: the job at 29 days cancels nothing, at 31 days cancels the account", async () => {
    const user = await bootstrapUser(developer.key);
    const createdAt = new Date("2026-01-01T00:00:00Z");
    await setCreatedAt(user.userId, createdAt);
    const db = await dbReady();
    await cancelStaleUnverifiedAccounts(db, new Date(createdAt.getTime() + 29 * DAY));
    expect(await accountStatus(user.userId)).toBe("unverified");
    await cancelStaleUnverifiedAccounts(db, new Date(createdAt.getTime() + 31 * DAY));
    expect(await accountStatus(user.userId)).toBe("cancelled");
    expect((await cancellationOf(user.userId)).reason).toBe("30d_unverified");
  });

  it("90d_no_tos: new terms gate writes with tos_not_accepted; accepting lifts it; not accepting for 90 days cancels", async () => {
    const accepter = await bootstrapUser(developer.key);
    const refuser = await bootstrapUser(developer.key);
    for (const u of [accepter, refuser]) {
      const code = await latestVerificationCode(u.email);
      expect((await call("POST", "/v1/me/verify", { key: u.userKey, body: { code } })).status).toBe(200);
    }
    // Published long enough ago that the injected job clock (+89/+91 days) is still in the past: the
    // cancellation's delivery is then due at once.
    const publishedAt = new Date("2026-08-01T00:00:00Z");
    setTestEnv({ TOS_VERSION: "2026-08-01", TOS_PUBLISHED_AT: publishedAt.toISOString() });
    try {
      const blocked = await call<{ error: { type: string; code: string } }>("POST", "/v1/storefronts", {
        key: refuser.userKey,
        body: { name: "Tienda", language: "es", currency: "MXN" },
      });
      expect(blocked.status).toBe(403);
      expect(blocked.body.error).toMatchObject({ type: "tos_not_accepted", code: "tos_not_accepted" });
      expect((await call("GET", "/v1/me", { key: refuser.userKey })).status).toBe(200);

      const accepted = await call("POST", "/v1/me/accept-terms", {
        key: accepter.userKey,
        body: { version: "2026-08-01" },
      });
      expect(accepted.status).toBe(200);
      const allowed = await call("POST", "/v1/storefronts", {
        key: accepter.userKey,
        body: { name: "Tienda", language: "es", currency: "MXN" },
      });
      expect(allowed.status).toBe(201);

      const db = await dbReady();
      await cancelAccountsWithoutCurrentTerms(db, new Date(publishedAt.getTime() + 89 * DAY));
      expect(await accountStatus(refuser.userId)).toBe("verified");
      await cancelAccountsWithoutCurrentTerms(db, new Date(publishedAt.getTime() + 91 * DAY));
      expect(await accountStatus(refuser.userId)).toBe("cancelled");
      expect(await accountStatus(accepter.userId)).toBe("verified");
      expect((await cancellationOf(refuser.userId)).reason).toBe("90d_no_tos");
      // The operator-made developer account (verified, developer keys only) is not bound by the gate: it stays.
      expect(await accountStatus(developer.accountId)).toBe("verified");
    } finally {
      setTestEnv({ TOS_VERSION: undefined, TOS_PUBLISHED_AT: undefined });
    }
  });

  it("key_revoked: revoking the developer key cancels its unverified accounts and stops order events of the rest", async () => {
    const dev = await createDeveloper();
    const devReceiver = await startReceiver();
    try {
      await createTestEndpoint(dev.key, {
        url: devReceiver.url,
        subscribedEvents: ["user.cancelled", "order.created"],
      });
      const unverified = await bootstrapUser(dev.key);
      const verified = await bootstrapUser(dev.key);
      const code = await latestVerificationCode(verified.email);
      expect((await call("POST", "/v1/me/verify", { key: verified.userKey, body: { code } })).status).toBe(
        200,
      );

      const result = await asAdapter(await operatorContext(), (ctx) =>
        revokeDeveloperKeyAndCascade(ctx, { keyId: dev.keyId }),
      );
      expect(result.cancelledAccounts).toBe(1);
      expect(await accountStatus(unverified.userId)).toBe("cancelled");
      expect(await accountStatus(verified.userId)).toBe("verified");
      await devReceiver.waitFor((requests) => requests.some((r) => r.rawBody.includes(unverified.userId)));
      const cancelled = JSON.parse(devReceiver.requests[0]?.rawBody ?? "{}") as { data: { reason: string } };
      expect(cancelled.data.reason).toBe("key_revoked");

      // The verified merchant keeps working, but its order events no longer flow to the developer.
      const { createStorefrontWithProduct } = await import("@/server/orders/testing");
      const { storefrontId, productId } = await createStorefrontWithProduct(verified.userKey);
      const order = await call<{ order: { id: string } }>("POST", `/v1/storefronts/${storefrontId}/orders`, {
        key: verified.userKey,
        body: {
          items: [{ productId, amount: 1 }],
          customer: { name: "Ana", phone: "555-0101" },
          paymentMethod: { name: "Cash" },
        },
      });
      expect(order.status).toBe(201);
      const db = await dbReady();
      const [queued] = await db
        .select({ n: count() })
        .from(webhookDeliveries)
        .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventRowId))
        .where(and(eq(webhookEvents.type, "order.created"), eq(webhookEvents.accountId, verified.userId)));
      expect(queued?.n).toBe(0);
      expect(devReceiver.requests.some((r) => r.rawBody.includes(order.body.order.id))).toBe(false);
    } finally {
      await devReceiver.close();
    }
  });
});
