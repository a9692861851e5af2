import path from "node:path";
import { sql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { drizzle } from "drizzle-orm/postgres-js";
import type { Db } from "./client";

export const MIGRATIONS_FOLDER = path.resolve(process.cwd(), "drizzle");

// Any constant: several server processes (or hosts) starting at once take turns applying migrations.
const MIGRATION_LOCK_ID = 727_011;

/**
 * Applies drizzle/ to PostgreSQL on ONE dedicated connection (docs/operations.md, "Running" and "Poolers"): give
 * it DIRECT_DATABASE_URL when DATABASE_URL is a pooler. A long migration is not cut by the pool's statement
 * timeout.
 */
export async function migratePostgres(url: string): Promise<void> {
  const postgres = (await import("postgres")).default;
  const { postgresOptions } = await import("./client");
  const client = postgres(url, postgresOptions({ max: 1, statementTimeout: false, prepare: false }));
  try {
    await applyMigrations(drizzle(client) as unknown as Db);
  } finally {
    await client.end({ timeout: 5 });
  }
}

export async function migratePglite(db: Db): Promise<void> {
  await applyMigrations(db);
}

/**
 * drizzle's migrator, in ONE transaction that first takes a transaction-scoped advisory lock. drizzle's own
 * creates its bookkeeping table and reads the last migration applied outside its transaction, and was run under a
 * session-level lock: two hosts starting at once both created the table (one failed on `duplicate key` in CREATE
 * TABLE IF NOT EXISTS) and both read "nothing applied yet"; and a session lock taken through a pooler in
 * transaction mode stayed held on whatever server connection it landed on. Here the second process waits on the
 * lock until the first commits, then finds everything applied; the lock goes with the transaction, whatever
 * connection carries it. Same bookkeeping as drizzle-kit's (`drizzle.__drizzle_migrations`).
 */
async function applyMigrations(db: Db): Promise<void> {
  const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`);
    await tx.execute(sql`create schema if not exists drizzle`);
    await tx.execute(sql`
      create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)
    `);
    const rows = (await tx.execute(
      sql`select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`,
    )) as unknown;
    const list = (Array.isArray(rows) ? rows : ((rows as { rows?: unknown[] }).rows ?? [])) as Array<{
      created_at: string | number | null;
    }>;
    const last = list[0] ? Number(list[0].created_at) : null;
    for (const migration of migrations) {
      if (last !== null && last >= migration.folderMillis) continue;
      for (const statement of migration.sql) await tx.execute(sql.raw(statement));
      await tx.execute(
        sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`,
      );
    }
  });
}
