import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { type Db, dbReady, queryRows } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { env } from "@/server/env";
import { startTsxProcess } from "@/server/testing/processes";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { claimDueDeliveries } from "./delivery";
import { emitEvent } from "./events";
import { createTestEndpoint, eventually, type Receiver, setTestEnv, startReceiver } from "./testing";
import { startDeliveryWorker } from "./worker";

// docs/webhooks.md, "Engines": several workers, leases that expire, at-least-once, never lost.
setTestEnv({
  UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
  WEBHOOK_RETRY_SCHEDULE: "0ms,1s,2s",
  WEBHOOK_TIMEOUT_MS: "2000",
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

/** A developer endpoint at a fresh receiver path, and a function emitting `n` user.verified events to it. */
async function scenario(label: string) {
  const dev = await createDeveloper();
  const user = await bootstrapUser(dev.key);
  const path = `/${label}-${Math.random().toString(36).slice(2, 8)}`;
  const endpoint = await createTestEndpoint(dev.key, {
    url: `http://127.0.0.1:${receiver.port}${path}`,
    subscribedEvents: ["user.verified"],
  });
  const requests = () => receiver.requests.filter((r) => r.path === path);
  const emitMany = async (n: number) => {
    const ids: string[] = [];
    for (let start = 0; start < n; start += 100) {
      await inTransaction(db, async (tx) => {
        for (let i = start; i < Math.min(n, start + 100); i++) {
          const e = await emitEvent(
            tx,
            {
              type: "user.verified",
              accountId: user.userId,
              data: { userId: user.userId, developerKeyId: dev.keyId, verifiedAt: new Date().toISOString() },
            },
            new Date(),
          );
          ids.push(e.eventId);
        }
      });
    }
    return ids;
  };
  const statusCounts = async () =>
    queryRows<{ status: string; n: number }>(
      db,
      sql`select status, count(*)::int as n from webhook_deliveries where endpoint_id = ${endpoint.endpointId} group by status`,
    );
  return { dev, user, path, endpoint, requests, emitMany, statusCounts };
}

function uniqueEventIds(requests: Array<{ eventId: string | null }>): Set<string> {
  return new Set(requests.map((r) => r.eventId ?? ""));
}

describe("in one process (PostgreSQL and PGlite)", () => {
  it("two workers, 1,000 deliveries: each attempt made once (counted at the receiver by eventId)", async () => {
    const s = await scenario("two-in-process");
    const a = startDeliveryWorker({ pollMs: 50, concurrency: 16 });
    const b = startDeliveryWorker({ pollMs: 50, concurrency: 16 });
    try {
      const ids = await s.emitMany(1000);
      await receiver.waitFor(() => uniqueEventIds(s.requests()).size === 1000, 60_000);
      await eventually(
        async () => (await s.statusCounts()).find((c) => c.status === "delivered")?.n === 1000,
        10_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Each attempt made once: the workers made exactly the attempts recorded, no more.
      const [made] = await queryRows<{ n: number; errors: string[] }>(
        db,
        sql`select (select coalesce(sum(attempt_count), 0) from webhook_deliveries
                    where endpoint_id = ${s.endpoint.endpointId})::int as n,
              (select coalesce(array_agg(distinct a->>'error'), '{}') from webhook_deliveries d,
                 jsonb_array_elements(d.attempts) a
               where d.endpoint_id = ${s.endpoint.endpointId} and a->>'error' is not null) as errors`,
      );
      // No request without a recorded attempt (a timed-out attempt may not even reach the receiver).
      expect(s.requests().length).toBeLessThanOrEqual(made?.n ?? -1);
      expect(a.stats().attempts + b.stats().attempts).toBe(made?.n);
      expect(uniqueEventIds(s.requests())).toEqual(new Set(ids));
      // On PostgreSQL nothing fails, so that is exactly one request per delivery. PGlite runs in this thread,
      // beside the receiver, and a busy event loop can push an answer past the timeout: a real retry.
      if (testDatabaseKind() === "postgres") expect(s.requests()).toHaveLength(1000);
      else expect(made?.errors.every((e) => e.startsWith("timeout"))).toBe(true);
      expect(a.stats().attempts).toBeGreaterThan(0);
      expect(b.stats().attempts).toBeGreaterThan(0);
    } finally {
      await a.stop();
      await b.stop();
    }
  }, 90_000);

  it("a dead worker's claims are taken over when its lease expires; none is lost", async () => {
    const s = await scenario("lease-takeover");
    const ids = await s.emitMany(40);
    // A worker claims everything, then "dies" without recording anything.
    const claimed = await claimDueDeliveries(db, {
      owner: "dead-worker:1",
      limit: 100,
      now: new Date(),
      leaseMs: 1500,
    });
    expect(claimed.length).toBeGreaterThanOrEqual(40);
    const started = Date.now();
    const worker = startDeliveryWorker({ pollMs: 100 });
    try {
      // Nothing is delivered while the lease holds ...
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(s.requests()).toHaveLength(0);
      // ... and everything once it expired.
      await receiver.waitFor(() => uniqueEventIds(s.requests()).size === 40, 15_000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
      expect(uniqueEventIds(s.requests())).toEqual(new Set(ids));
      await eventually(async () => (await s.statusCounts()).find((c) => c.status === "delivered")?.n === 40);
    } finally {
      await worker.stop();
    }
  }, 30_000);
});

describe.skipIf(testDatabaseKind() !== "postgres")(
  "separate worker processes (PostgreSQL only: one database, several OS processes)",
  () => {
    const workerEnv = () => ({
      // The pool through the test setup's PgBouncer, LISTEN direct (docs/operations.md, "Poolers").
      DATABASE_URL: env().DATABASE_URL,
      DIRECT_DATABASE_URL: env().DIRECT_DATABASE_URL,
      DATA_DIR: env().DATA_DIR,
      UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
      WEBHOOK_RETRY_SCHEDULE: "0ms,1s,2s",
      WEBHOOK_TIMEOUT_MS: "2000",
      WEBHOOK_WORKER_CONCURRENCY: "8",
      WEBHOOK_WORKER_POLL_MS: "200",
      LOG_LEVEL: "error",
      SMTP_URL: undefined,
    });
    const startWorker = () =>
      startTsxProcess(
        "server/webhooks/run-worker.ts",
        [],
        workerEnv(),
        /worker ready (\S+) pid=(\d+)/,
        60_000,
      );

    it("crash recovery: SIGKILL in the middle of 500 deliveries, restart, all 500 delivered, none lost", async () => {
      const s = await scenario("crash");
      receiver.reply = (r) => (r.path === s.path ? { delayMs: 15 } : {});
      try {
        const first = await startWorker();
        const ids = await s.emitMany(500);
        await receiver.waitFor(() => s.requests().length >= 120, 30_000);
        // SIGKILL the worker itself (tsx runs the script in a child of the process we spawned).
        const exited = new Promise((resolve) => first.child.once("exit", resolve));
        process.kill(Number(first.match[2]), "SIGKILL");
        await exited;
        // It died holding claims: those deliveries must still arrive, after its leases expire.
        const leased = await queryRows<{ n: number }>(
          db,
          sql`select count(*)::int as n from webhook_deliveries
              where endpoint_id = ${s.endpoint.endpointId} and lease_owner is not null`,
        );
        expect(leased[0]?.n).toBeGreaterThan(0);
        const seenAtKill = uniqueEventIds(s.requests()).size;
        expect(seenAtKill).toBeLessThan(500);

        const second = await startWorker();
        try {
          // The dead worker's leases (timeout + 10 s) expire, then its claims are delivered too.
          await receiver.waitFor(() => uniqueEventIds(s.requests()).size === 500, 60_000);
          expect(uniqueEventIds(s.requests())).toEqual(new Set(ids));
          await eventually(
            async () => (await s.statusCounts()).find((c) => c.status === "delivered")?.n === 500,
            15_000,
          );
          // At-least-once: only attempts in flight at the kill may repeat (at most the worker's concurrency).
          expect(s.requests().length - 500).toBeLessThanOrEqual(8);
        } finally {
          await second.stop();
        }
      } finally {
        receiver.reply = () => ({});
      }
    }, 120_000);

    it("two worker processes, 1,000 deliveries: each attempt made once", async () => {
      const s = await scenario("two-processes");
      const a = await startWorker();
      const b = await startWorker();
      let stoppedA = "";
      let stoppedB = "";
      try {
        const ids = await s.emitMany(1000);
        await receiver.waitFor(() => uniqueEventIds(s.requests()).size === 1000, 60_000);
        await eventually(
          async () => (await s.statusCounts()).find((c) => c.status === "delivered")?.n === 1000,
          15_000,
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(s.requests()).toHaveLength(1000);
        expect(uniqueEventIds(s.requests())).toEqual(new Set(ids));
      } finally {
        await a.stop();
        await b.stop();
        stoppedA = a.output();
        stoppedB = b.output();
      }
      const attemptsOf = (out: string) => Number(/attempts=(\d+)/.exec(out)?.[1] ?? "-1");
      expect(attemptsOf(stoppedA) + attemptsOf(stoppedB)).toBe(1000);
      expect(attemptsOf(stoppedA)).toBeGreaterThan(0);
      expect(attemptsOf(stoppedB)).toBeGreaterThan(0);
    }, 120_000);
  },
);
