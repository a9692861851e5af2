import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { dbReady, queryRows } from "@/server/db/client";
import { ErrorEnvelope } from "@/server/errors";
import { gql, testYoga } from "@/server/graphql/testing";
import { createSession } from "@/server/sessions/service";
import { createMerchant } from "@/server/storefronts/testing";
import { call } from "@/server/testing/api";
import { sessionContextFor } from "@/server/testing/context";
import { recoverDeliveries, resendDelivery } from "@/server/webhooks/delivery-log";
import { createEndpoint, sendTestEvent } from "@/server/webhooks/endpoints";
import { CreateWebhookEndpointInput } from "@/server/webhooks/schema";
import { setTestEnv } from "@/server/webhooks/testing";
import { handleTrpcRequest } from "@/server/wiring/trpc";
import { purgeAccountRateLimits, WEBHOOK_ACTION_LIMITS } from "./service";

// docs/security.md, "Limits": the per-account limits of what no API key is counted for (L4 of the security review:
// a session could call tRPC and GraphQL without end, and fire webhook tests at any host without end).

setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1" });

async function merchantWithEndpoint(now: () => Date = () => new Date()) {
  const merchant = await createMerchant({ verified: true });
  const session = await sessionContextFor(merchant.userId, now);
  const endpoint = await createEndpoint(session, {
    scope: "merchant",
    endpoint: CreateWebhookEndpointInput.parse({ url: "https://receiver.example/hook" }),
  });
  return { merchant, session, ref: { scope: "merchant" as const, endpointId: endpoint.endpointId } };
}

/** The session windows are real minutes: start the counting with at least `needMs` of one left. */
async function freshMinuteFor(needMs: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

async function failure(promise: Promise<unknown>) {
  return promise.then(
    () => null,
    (error: { code?: string; options?: { retryAfterMs?: number } }) => error,
  );
}

describe("L4: webhook test fires, resends and recoveries", () => {
  it("L4: 10 a minute per account, counted together across test fires, resends and recoveries; another account is not affected", async () => {
    // The middle of a minute, so the ten fit in it.
    let clock = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000);
    const { session, ref } = await merchantWithEndpoint(() => clock);
    for (let i = 0; i < 8; i++) await sendTestEvent(session, { ...ref, type: "order.created" });
    await expect(
      recoverDeliveries(session, { ...ref, since: new Date(0).toISOString() }),
    ).resolves.toMatchObject({
      recovered: 0,
    });
    // A resend of an unknown delivery is refused after counting (refused attempts count too).
    await expect(resendDelivery(session, { ...ref, deliveryId: "dlv_nothing" })).rejects.toMatchObject({
      code: "webhook_delivery_not_found",
    });
    const refused = await failure(sendTestEvent(session, { ...ref, type: "order.created" }));
    expect(refused).toMatchObject({ code: "webhook_action_rate_limited" });
    expect(refused?.options?.retryAfterMs).toBe(30_000);
    expect(
      await failure(recoverDeliveries(session, { ...ref, since: new Date(0).toISOString() })),
    ).toMatchObject({
      code: "webhook_action_rate_limited",
    });
    const other = await merchantWithEndpoint(() => clock);
    await expect(
      sendTestEvent(other.session, { ...other.ref, type: "order.created" }),
    ).resolves.toHaveProperty("eventId");
    // The next minute takes ten more.
    clock = new Date(clock.getTime() + 60_000);
    await expect(sendTestEvent(session, { ...ref, type: "order.paid" })).resolves.toHaveProperty("eventId");
  });

  it(`L4: at most ${WEBHOOK_ACTION_LIMITS.perHour} an hour per account, however they are spread over its minutes`, async () => {
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    let clock = new Date(hour);
    const { session, ref } = await merchantWithEndpoint(() => clock);
    for (let minute = 0; minute < WEBHOOK_ACTION_LIMITS.perHour / WEBHOOK_ACTION_LIMITS.perMinute; minute++) {
      clock = new Date(hour + minute * 60_000 + 1000);
      for (let i = 0; i < WEBHOOK_ACTION_LIMITS.perMinute; i++)
        await sendTestEvent(session, { ...ref, type: "order.created" });
    }
    clock = new Date(hour + 20 * 60_000);
    const refused = await failure(sendTestEvent(session, { ...ref, type: "order.created" }));
    expect(refused).toMatchObject({ code: "webhook_action_rate_limited" });
    expect(refused?.options?.retryAfterMs).toBe(40 * 60_000);
  });

  it("L4: through /v1 (a developer key) the refusal is 429 in the envelope with Retry-After", async () => {
    const developer = await createDeveloper();
    const created = await call<{ endpointId: string }>("POST", "/v1/webhook_endpoints", {
      key: developer.key,
      body: { url: "https://receiver.example/v1-hook", subscribedEvents: ["user.verified"] },
    });
    expect(created.status).toBe(201);
    let last = null as Awaited<ReturnType<typeof call>> | null;
    for (let i = 0; i <= WEBHOOK_ACTION_LIMITS.perMinute; i++)
      last = await call("POST", `/v1/webhook_endpoints/${created.body.endpointId}/test`, {
        key: developer.key,
        body: { type: "user.verified" },
      });
    expect(last?.status).toBe(429);
    expect(ErrorEnvelope.parse(last?.body).error).toMatchObject({
      code: "webhook_action_rate_limited",
      type: "rate_limited",
      recoverable: true,
    });
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(last?.headers.get("retry-after"))).toBeLessThanOrEqual(60);
  });
});

/** The `input` of a tRPC batch of `size` calls without input. */
function batchInput(size: number): string {
  return encodeURIComponent(
    JSON.stringify(Object.fromEntries(Array.from({ length: size }, (_, i) => [String(i), {}]))),
  );
}

describe("L4: dashboard session requests", () => {
  async function cookieOf(accountId: string): Promise<string> {
    const session = await createSession(await dbReady(), accountId, new Date());
    return `marea_session=${session.token}`;
  }

  it("L4: tRPC over HTTP: past the account's limit every call answers 429 in tRPC's shape with the catalogue error and Retry-After", async () => {
    setTestEnv({ SESSION_REQUESTS_PER_MINUTE: "3" });
    try {
      await freshMinuteFor(10_000);
      const merchant = await createMerchant({ verified: true });
      const cookie = await cookieOf(merchant.userId);
      const query = () =>
        handleTrpcRequest(
          new Request(
            `http://localhost:3000/api/trpc/webhooks.overview,webhooks.overview?batch=1&input=${batchInput(2)}`,
            {
              headers: { cookie },
            },
          ),
        );
      const statuses: number[] = [];
      let last: Response | null = null;
      for (let i = 0; i < 4; i++) {
        last = await query();
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      const body = (await last?.json()) as Array<{
        error: { data: { error: { code: string } }; code: number };
      }>;
      expect(body).toHaveLength(2);
      for (const item of body) expect(item.error.data.error.code).toBe("session_rate_limited");
      expect(Number(last?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // Another account's session is not affected.
      const other = await createMerchant({ verified: true });
      const theirs = await handleTrpcRequest(
        new Request("http://localhost:3000/api/trpc/webhooks.overview?input=%7B%7D", {
          headers: { cookie: await cookieOf(other.userId) },
        }),
      );
      expect(theirs.status).toBe(200);
    } finally {
      setTestEnv({ SESSION_REQUESTS_PER_MINUTE: undefined });
    }
  });

  it("L4: a tRPC batch of more than 10 calls is refused (a batch counts once)", async () => {
    const merchant = await createMerchant({ verified: true });
    const cookie = await cookieOf(merchant.userId);
    const batch = (size: number) =>
      handleTrpcRequest(
        new Request(
          `http://localhost:3000/api/trpc/${Array(size).fill("webhooks.overview").join(",")}?batch=1&input=${batchInput(size)}`,
          { headers: { cookie } },
        ),
      );
    expect((await batch(10)).status).toBe(200);
    expect((await batch(11)).status).toBe(400);
  });

  it("L4: GraphQL with the cookie: past the account's limit, 429 session_rate_limited in the envelope with Retry-After", async () => {
    setTestEnv({ SESSION_REQUESTS_PER_MINUTE: "2" });
    try {
      await freshMinuteFor(10_000);
      const yoga = testYoga();
      const merchant = await createMerchant({ verified: true });
      const cookie = await cookieOf(merchant.userId);
      const answers = [];
      for (let i = 0; i < 3; i++)
        answers.push(await gql("{ storefronts { edges { node { id } } } }", { yoga, headers: { cookie } }));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
      const refused = answers[2];
      expect(ErrorEnvelope.parse(refused?.body).error.code).toBe("session_rate_limited");
      expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // An API key is counted in its own buckets, not the session's.
      expect(
        (await gql("{ storefronts { edges { node { id } } } }", { yoga, key: merchant.userKey })).status,
      ).toBe(200);
    } finally {
      setTestEnv({ SESSION_REQUESTS_PER_MINUTE: undefined });
    }
  });

  it("L4: old windows are purged by the purge-rate-limits job", async () => {
    const db = await dbReady();
    const now = new Date();
    const { session, ref } = await merchantWithEndpoint(() => new Date(now.getTime() - 3 * 3_600_000));
    await sendTestEvent(session, { ...ref, type: "order.created" });
    expect(await purgeAccountRateLimits(db, now)).toBeGreaterThanOrEqual(2);
    const [left] = await queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from account_rate_limits where window_start < ${Math.floor(now.getTime() / 1000) - 7200}`,
    );
    expect(left?.n).toBe(0);
  });
});
