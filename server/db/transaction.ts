import { PgTransaction } from "drizzle-orm/pg-core";
import type { Db } from "@/server/db/client";

/**
 * Runs `work` in a transaction. When `db` already is one (the /v1 pipeline wraps Idempotency-Key requests in
 * a transaction), `work` joins it instead of opening a savepoint: an error still rolls everything back, and
 * the hot paths (product create, storefront PATCH) save two round trips.
 */
export async function inTransaction<T>(db: Db, work: (db: Db) => Promise<T>): Promise<T> {
  if (db instanceof PgTransaction) return work(db as unknown as Db);
  return db.transaction((tx) => work(tx as unknown as Db));
}

/**
 * The PostgreSQL error of a failed query, looking through driver wrappers (drizzle wraps the driver's error as
 * the `cause`), or null when the failure is not one.
 */
function postgresErrorOf(error: unknown): { code: string; table_name?: unknown; table?: unknown } | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return current as { code: string };
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** PostgreSQL error code of a failed query, looking through driver wrappers. */
export function pgErrorCode(error: unknown): string | null {
  return postgresErrorOf(error)?.code ?? null;
}

/** True when a query failed with a unique violation on `table` (postgres.js names it `table_name`, PGlite `table`). */
export function isUniqueViolationOn(error: unknown, table: string): boolean {
  const found = postgresErrorOf(error);
  return found?.code === "23505" && (found.table_name === table || found.table === table);
}
