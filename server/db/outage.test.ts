import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { env } from "@/server/env";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { type CutMode, startTcpProxy, type TcpProxy } from "@/server/testing/tcp-proxy";
import { isDatabaseUnavailable, postgresOptions } from "./client";
import { withFewerRoundTrips } from "./round-trips";

/**
 * The driver under a database that goes away (docs/operations.md, "Database outages"): the service's own
 * postgres.js options and wrapper, through a TCP proxy that cuts every connection. Nothing may hang, nothing may
 * throw outside a promise, and the pool is back as soon as the database is.
 */
describe.skipIf(testDatabaseKind() !== "postgres")("the pool when the database goes away", () => {
  let proxy: TcpProxy;
  let client: postgres.Sql;
  let db: ReturnType<typeof drizzle>;
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);

  beforeAll(async () => {
    process.on("uncaughtException", onUncaught);
    const target = new URL(process.env.DATABASE_URL ?? "");
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    // The pool as the service makes it: through the pooler in the PostgreSQL pass, prepared statements as set.
    const prepared = env().DATABASE_PREPARED_STATEMENTS === "true";
    client = postgres(
      proxy.url(process.env.DATABASE_URL ?? ""),
      postgresOptions({ max: 4, prepare: prepared }),
    );
    db = drizzle(withFewerRoundTrips(client, { preparedStatements: prepared, poolWaitMs: 1500 }));
    await db.execute(sql`select 1`);
  });
  afterEach(async () => {
    await proxy.restore();
    expect(uncaught).toEqual([]);
  });
  afterAll(async () => {
    process.off("uncaughtException", onUncaught);
    await client.end({ timeout: 2 });
    await proxy.close();
  });

  const selectOne = () => db.execute(sql`select ${1}::int as one`);

  /** Resolves with how long `work` took to settle, and how (an error is returned, not thrown). */
  async function settle(work: () => Promise<unknown>): Promise<{ ms: number; error: unknown }> {
    const started = performance.now();
    try {
      await work();
      return { ms: performance.now() - started, error: null };
    } catch (error) {
      return { ms: performance.now() - started, error };
    }
  }

  async function firstSuccessAfter(started: number, limitMs: number): Promise<number> {
    for (;;) {
      const { error } = await settle(selectOne);
      if (!error) return performance.now() - started;
      if (performance.now() - started > limitMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  for (const mode of ["reset", "refuse"] as CutMode[]) {
    it(`${mode}: every statement during the cut fails within the bound as "unavailable", none hangs`, async () => {
      await Promise.all(Array.from({ length: 8 }, selectOne));
      await proxy.cut(mode);
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => settle(selectOne)));
      for (const outcome of outcomes) {
        expect(outcome.error).not.toBeNull();
        expect(isDatabaseUnavailable(outcome.error)).toBe(true);
        // connect timeout (3 s) and pool wait (1.5 s here) bound every statement
        expect(outcome.ms).toBeLessThan(5000);
      }
    });

    it(`${mode}: the pool answers within 2 s of the database's return, after a cut long enough to back off`, async () => {
      await proxy.cut(mode);
      // Keep asking while it is away, as live traffic would: each failed connection attempt backs off.
      const until = performance.now() + 3000;
      while (performance.now() < until) {
        await settle(selectOne);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const returned = performance.now();
      await proxy.restore();
      expect(await firstSuccessAfter(returned, 5000)).toBeLessThan(2000);
      // and every connection of the pool works again, not just one
      await Promise.all(Array.from({ length: 12 }, selectOne));
    });
  }

  it("a transaction whose connection dies fails, later statements on it fail at once, and the process survives (postgres.js #1208)", async () => {
    const outcome = await settle(() =>
      db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await proxy.cut("reset");
        await new Promise((resolve) => setTimeout(resolve, 50));
        const late = await settle(() => tx.execute(sql`select 2`));
        expect(late.error).not.toBeNull();
        expect(late.ms).toBeLessThan(1000);
        await tx.execute(sql`select 3`);
      }),
    );
    expect(isDatabaseUnavailable(outcome.error)).toBe(true);
    expect(outcome.ms).toBeLessThan(3000);
    await proxy.restore();
    expect(await firstSuccessAfter(performance.now(), 3000)).toBeLessThan(2000);
    // Let any timer the dead connection left behind fire: it must not throw.
    await new Promise((resolve) => setTimeout(resolve, 100));
  });

  it("statements queued behind a busy reserved connection settle when it dies (no query left pending)", async () => {
    const one = postgres(
      proxy.url(process.env.DATABASE_URL ?? ""),
      postgresOptions({ max: 1, prepare: env().DATABASE_PREPARED_STATEMENTS === "true" }),
    );
    try {
      const reserved = await one.reserve();
      await reserved`select 1`;
      // Fill its pipeline so further statements wait in the reservation's own queue.
      const queued = Array.from({ length: 200 }, (_, i) =>
        settle(() => reserved`select ${i}::int, pg_sleep(0.001)`),
      );
      await proxy.cut("reset");
      const outcomes = await Promise.all(queued);
      expect(outcomes.every((o) => o.ms < 3000)).toBe(true);
      expect(outcomes.some((o) => o.error !== null)).toBe(true);
      reserved.release();
      await proxy.restore();
      const [row] = await one`select 42 as answer`;
      expect(row?.answer).toBe(42);
    } finally {
      await one.end({ timeout: 2 });
    }
  });

  it("a statement given up while its connection was opening leaves that connection to the pool", async () => {
    // The pool's only connection is opened for a statement that the pool-wait bound gives up meanwhile (a
    // partition: the connection attempt hangs). When the connection opens, it must serve the next statement.
    const one = postgres(
      proxy.url(process.env.DATABASE_URL ?? ""),
      postgresOptions({ max: 1, prepare: env().DATABASE_PREPARED_STATEMENTS === "true" }),
    );
    const oneDb = drizzle(withFewerRoundTrips(one, { preparedStatements: true, poolWaitMs: 300 }));
    try {
      await proxy.cut("blackhole");
      const given = await settle(() => oneDb.execute(sql`select 1`));
      expect(isDatabaseUnavailable(given.error)).toBe(true);
      expect(given.ms).toBeLessThan(2000);
      await proxy.restore();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const next = await settle(() => oneDb.execute(sql`select 2 as two`));
      expect(next.error).toBeNull();
    } finally {
      await one.end({ timeout: 2 });
    }
  });

  it("a reservation waiting for the only connection is not stranded when that connection dies (postgres.js #1195)", async () => {
    const one = postgres(
      proxy.url(process.env.DATABASE_URL ?? ""),
      postgresOptions({ max: 1, prepare: env().DATABASE_PREPARED_STATEMENTS === "true" }),
    );
    const oneDb = drizzle(withFewerRoundTrips(one, { preparedStatements: true, poolWaitMs: 4000 }));
    try {
      const first = settle(() =>
        oneDb.transaction(async (tx) => {
          await tx.execute(sql`select pg_sleep(0.3)`);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = settle(() =>
        oneDb.transaction(async (tx) => {
          await tx.execute(sql`select 2`);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      await proxy.cut("reset");
      await new Promise((resolve) => setTimeout(resolve, 200));
      await proxy.restore();
      const [a, b] = await Promise.all([first, second]);
      expect(a.error).not.toBeNull();
      // The waiting transaction either got a fresh connection after the return, or failed: never hung.
      expect(b.ms).toBeLessThan(4500);
      const after = await settle(() => oneDb.transaction((tx) => tx.execute(sql`select 3`)));
      expect(after.error).toBeNull();
    } finally {
      await one.end({ timeout: 2 });
    }
  });
});
