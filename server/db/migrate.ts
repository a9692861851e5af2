import path from "node:path";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import { migrate as migratePgliteFolder } from "drizzle-orm/pglite/migrator";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate as migratePostgresFolder } from "drizzle-orm/postgres-js/migrator";
import type { Db } from "./client";

export const MIGRATIONS_FOLDER = path.resolve(process.cwd(), "drizzle");

// Any constant: several server processes starting at once take turns applying migrations.
const MIGRATION_LOCK_ID = 727_011;

/**
 * Applies drizzle/ to PostgreSQL on ONE dedicated connection that holds the advisory lock while it migrates:
 * several server processes starting at once take turns, and a long migration is not cut by the pool's
 * statement timeout.
 */
export async function migratePostgres(url: string): Promise<void> {
  const postgres = (await import("postgres")).default;
  const { postgresOptions } = await import("./client");
  const lockClient = postgres(url, postgresOptions({ max: 1, statementTimeout: false }));
  try {
    await lockClient`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    await migratePostgresFolder(drizzle(lockClient), { migrationsFolder: MIGRATIONS_FOLDER });
    await lockClient`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
  } finally {
    await lockClient.end({ timeout: 5 });
  }
}

export async function migratePglite(db: Db): Promise<void> {
  await migratePgliteFolder(db as unknown as PgliteDatabase, { migrationsFolder: MIGRATIONS_FOLDER });
}
