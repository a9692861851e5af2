import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { withFewerRoundTrips } from "./round-trips";

// server/db/round-trips.ts tunes the postgres.js client (PostgreSQL only; PGlite has no sockets).
describe.skipIf(testDatabaseKind() !== "postgres")("postgres.js client tuned for round trips", () => {
  // One connection, so what a statement leaves behind on "the" connection is observable.
  const client = postgres(process.env.DATABASE_URL ?? "", { max: 1, onnotice: () => {} });
  const db = drizzle(withFewerRoundTrips(client, { preparedStatements: true }));
  afterAll(() => client.end({ timeout: 5 }));

  const count = async (table: string) => {
    const [row] = await client.unsafe(`select count(*)::int as n from ${table}`);
    return Number(row?.n);
  };

  it('a transaction whose session the server ends fails at once, commits nothing, and the next one runs (docs/operations.md, "Database outages")', async () => {
    // Straight to PostgreSQL (not through the test setup's pooler), so the server really closes this socket.
    const direct = postgres(process.env.DIRECT_DATABASE_URL ?? process.env.DATABASE_URL ?? "", {
      max: 1,
      onnotice: () => {},
    });
    const admin = postgres(process.env.DIRECT_DATABASE_URL ?? process.env.DATABASE_URL ?? "", { max: 1 });
    try {
      const tuned = drizzle(withFewerRoundTrips(direct, { preparedStatements: true }));
      await direct.unsafe("create table if not exists rt_terminated (id int primary key)");
      const started = Date.now();
      const failed = await tuned
        .transaction(async (tx) => {
          await tx.execute(sql`insert into rt_terminated values (${1})`);
          const [me] = await tx.execute<{ pid: number }>(sql`select pg_backend_pid() as pid`);
          await admin.unsafe("select pg_terminate_backend($1)", [me?.pid ?? 0]);
          await tx.execute(sql`insert into rt_terminated values (${2})`);
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(failed).toBeInstanceOf(Error);
      // No ROLLBACK left waiting on the dead session: the failure comes back as soon as the server says so.
      expect(Date.now() - started).toBeLessThan(3000);
      await tuned.transaction(async (tx) => {
        await tx.execute(sql`insert into rt_terminated values (${3})`);
      });
      const rows = await direct.unsafe("select id from rt_terminated order by id");
      expect(rows.map((row) => row.id)).toEqual([3]);
    } finally {
      await direct.unsafe("drop table if exists rt_terminated").catch(() => undefined);
      await direct.end({ timeout: 5 });
      await admin.end({ timeout: 5 });
    }
  });

  it("a parameterized query is prepared once per connection, then reused", async () => {
    for (let i = 0; i < 3; i++) await db.execute(sql`select ${i}::int as round_trip_marker`);
    const prepared = await client.unsafe(
      "select count(*)::int as n from pg_prepared_statements where statement like '%round_trip_marker%' and statement not like '%pg_prepared_statements%'",
    );
    expect(Number(prepared[0]?.n)).toBe(1);
  });

  it("a transaction commits its statements; an error inside rolls all of them back", async () => {
    await client.unsafe("create table rt_items (id int primary key)");
    await db.transaction(async (tx) => {
      await tx.execute(sql`insert into rt_items values (${1})`);
      await tx.execute(sql`insert into rt_items values (${2})`);
    });
    expect(await count("rt_items")).toBe(2);
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(sql`insert into rt_items values (${3})`);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await count("rt_items")).toBe(2);
    // The connection is usable afterwards, outside any transaction.
    const [state] = await client.unsafe("select now() = statement_timestamp() as outside");
    expect(state?.outside).toBe(true);
  });

  it("nested transactions are savepoints: an inner failure keeps the outer work", async () => {
    await client.unsafe("create table rt_nested (id int primary key)");
    await db.transaction(async (tx) => {
      await tx.execute(sql`insert into rt_nested values (${1})`);
      await expect(
        tx.transaction(async (inner) => {
          await inner.execute(sql`insert into rt_nested values (${2})`);
          throw new Error("inner fails");
        }),
      ).rejects.toThrow("inner fails");
      await tx.transaction(async (inner) => {
        await inner.execute(sql`insert into rt_nested values (${3})`);
      });
    });
    const rows = await client.unsafe("select id from rt_nested order by id");
    expect(rows.map((r) => r.id)).toEqual([1, 3]);
  });

  it("a last statement left un-awaited travels with COMMIT, and its failure means nothing was committed", async () => {
    await client.unsafe("create table rt_last (id int primary key)");
    const { last } = await db.transaction(async (tx) => {
      await tx.execute(sql`insert into rt_last values (${1})`);
      const pending = tx.execute(sql`insert into rt_last values (${1})`).then(() => undefined); // duplicate key
      pending.catch(() => undefined);
      return { last: pending };
    });
    await expect(last).rejects.toThrow();
    expect(await count("rt_last")).toBe(0);
  });
});
