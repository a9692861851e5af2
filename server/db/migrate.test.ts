import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import postgres from "postgres";
import { describe, expect, inject, it } from "vitest";
import { withDatabase } from "@/server/testing/global-setup";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { MIGRATIONS_FOLDER, migratePostgres } from "./migrate";

// docs/operations.md, "Running": hosts starting at once on an empty database take turns migrating. drizzle's own
// migrator crashed one of two hosts on `duplicate key` in CREATE TABLE IF NOT EXISTS, and its session lock taken
// through a pooler in transaction mode serialized nothing.
describe.skipIf(testDatabaseKind() !== "postgres")("migrations from several hosts at once", () => {
  it("four processes migrating one empty database at once, three through PgBouncer in transaction mode: each migration applied once, none fails", async () => {
    const admin = postgres(inject("adminDatabaseUrl"), { max: 1, onnotice: () => {} });
    const name = `marea_mig_${randomBytes(5).toString("hex")}`;
    await admin.unsafe(`create database ${name}`);
    try {
      const direct = withDatabase(inject("adminDatabaseUrl"), name);
      const pooled = withDatabase(inject("pooledDatabaseUrl"), name);
      const outcomes = await Promise.allSettled([
        migratePostgres(pooled),
        migratePostgres(pooled),
        migratePostgres(pooled),
        migratePostgres(direct),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "fulfilled"]);
      const client = postgres(direct, { max: 1, onnotice: () => {} });
      const [row] = await client<
        { n: number }[]
      >`select count(*)::int as n from drizzle.__drizzle_migrations`;
      const files = readdirSync(MIGRATIONS_FOLDER).filter((f) => f.endsWith(".sql"));
      expect(row?.n).toBe(files.length);
      // and no lock is left behind on a server connection the pooler keeps (it blocked the next start for good)
      const [held] = await client<{ n: number }[]>`
        select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = 727011`;
      expect(held?.n).toBe(0);
      await client.end();
    } finally {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  }, 120_000);
});
