import path from "node:path";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import { migrate as migratePgliteFolder } from "drizzle-orm/pglite/migrator";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { migrate as migratePostgresFolder } from "drizzle-orm/postgres-js/migrator";
import type { Db } from "./client";

export const MIGRATIONS_FOLDER = path.resolve(process.cwd(), "drizzle");

// Any constant: several server processes starting at once take turns applying migrations.
const MIGRATION_LOCK_ID = 727_011;

/** Applies drizzle/ to PostgreSQL under an advisory lock held on a dedicated connection. */
export async function migratePostgres(db: Db, url: string): Promise<void> {
  const postgres = (await import("postgres")).default;
  const lockClient = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await lockClient`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    await migratePostgresFolder(db as unknown as PostgresJsDatabase, { migrationsFolder: MIGRATIONS_FOLDER });
    await lockClient`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
  } finally {
    await lockClient.end({ timeout: 5 });
  }
}

export async function migratePglite(db: Db): Promise<void> {
  await migratePgliteFolder(db as unknown as PgliteDatabase, { migrationsFolder: MIGRATIONS_FOLDER });
}
