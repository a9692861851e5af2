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

/** PostgreSQL error code of a failed query, looking through driver wrappers (drizzle wraps the cause). */
export function pgErrorCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/**
 * True when a query failed with a unique violation on `table`: postgres.js names the table `table_name`,
 * PGlite `table`; drizzle wraps either as the `cause`.
 */
export function isUniqueViolationOn(error: unknown, table: string): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const e = current as { code?: unknown; table_name?: unknown; table?: unknown; cause?: unknown };
    if (e.code === "23505") return e.table_name === table || e.table === table;
    current = e.cause;
  }
  return false;
}
