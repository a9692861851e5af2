import { PgTransaction } from "drizzle-orm/pg-core";
import type { Db } from "@/server/db/client";

/**
 * Transactions (docs/architecture.md, "Transactions and savepoints"). `inTransaction` runs `work` in a
 * transaction, or JOINS the caller's when `db` already is one: the /v1 pipeline wraps an Idempotency-Key
 * request in a transaction, and the work must commit with its stored response, all or nothing. Use it for a
 * change of several rows. `inSavepoint` always opens a nested unit (a savepoint inside a transaction): for a
 * step that may fail on purpose and be retried while the outer work goes on (publish's slug attempts).
 */
export async function inTransaction<T>(db: Db, work: (db: Db) => Promise<T>): Promise<T> {
  if (db instanceof PgTransaction) return work(db as unknown as Db);
  return db.transaction((tx) => work(tx as unknown as Db));
}

/** A transaction of its own, or a savepoint when `db` is already a transaction: its failure undoes only it. */
export async function inSavepoint<T>(db: Db, work: (db: Db) => Promise<T>): Promise<T> {
  return db.transaction((tx) => work(tx as unknown as Db));
}

/** True when `db` is a transaction (prepared statements belong to a session: a transaction builds its own). */
export function isTransaction(db: Db): boolean {
  return db instanceof PgTransaction;
}

type PostgresError = {
  code: string;
  table_name?: unknown;
  table?: unknown;
  constraint_name?: unknown;
  constraint?: unknown;
};

/**
 * The PostgreSQL error of a failed query, looking through driver wrappers (drizzle wraps the driver's error as
 * the `cause`), or null when the failure is not one.
 */
function postgresErrorOf(error: unknown): PostgresError | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return current as PostgresError;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** PostgreSQL error code of a failed query, looking through driver wrappers. */
export function pgErrorCode(error: unknown): string | null {
  return postgresErrorOf(error)?.code ?? null;
}

/**
 * True when a query failed with a unique violation on `table` (postgres.js names it `table_name`, PGlite
 * `table`), and, when `constraint` is given, on that index (`constraint_name` / `constraint`).
 */
export function isUniqueViolationOn(error: unknown, table: string, constraint?: string): boolean {
  const found = postgresErrorOf(error);
  if (found?.code !== "23505" || (found.table_name !== table && found.table !== table)) return false;
  return constraint === undefined || found.constraint_name === constraint || found.constraint === constraint;
}

/** PostgreSQL's deadlock victim: the transaction rolled back whole and can simply run again. */
export function isDeadlock(error: unknown): boolean {
  return pgErrorCode(error) === "40P01";
}

/**
 * Runs `work` (a whole transaction) again when PostgreSQL picked it as a deadlock's victim, up to `attempts`
 * times. Only for work that is safe to repeat because the victim's changes were all rolled back.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isDeadlock(error) || attempt >= attempts) throw error;
    }
  }
}
