import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { env } from "@/server/env";
import { metrics } from "@/server/observability/metrics";
import { withFewerRoundTrips } from "./round-trips";

/**
 * The one database type services use: postgres.js and PGlite clients, and transactions of either, fit it. No
 * relational schema: nothing uses `db.query.*`, so db/ names no feature's tables (docs/architecture.md, "Layers").
 */
export type Db = PgDatabase<PgQueryResultHKT>;

type DbState = {
  kind: "postgres" | "pglite";
  db: Db;
  ready: Promise<Db>;
  close: () => Promise<void>;
};

// One instance per process, kept on globalThis so Next's module re-evaluation never opens a second
// PGlite on the same folder (docs/operations.md, "Running": one process per embedded database folder).
const holder = globalThis as unknown as { __mareaDb?: DbState };

export function databaseKind(): "postgres" | "pglite" {
  return env().DATABASE_URL ? "postgres" : "pglite";
}

/** The database, created on first use and migrated before it is handed out. */
export function dbReady(): Promise<Db> {
  return state().ready;
}

/** The client without waiting for migrations: only for code that runs after `dbReady()` resolved. */
export function getDb(): Db {
  return state().db;
}

export async function closeDb(): Promise<void> {
  const current = holder.__mareaDb;
  holder.__mareaDb = undefined;
  if (current) await current.close();
}

function state(): DbState {
  if (!holder.__mareaDb) {
    const created = createState();
    holder.__mareaDb = created;
    // A database that was unreachable at start-up must not stay broken: the next call tries again.
    created.ready.catch(() => {
      if (holder.__mareaDb === created) holder.__mareaDb = undefined;
      created.close().catch(() => {});
    });
  }
  return holder.__mareaDb;
}

function createState(): DbState {
  const url = env().DATABASE_URL;
  return url ? createPostgresState(url) : createPgliteState();
}

function createPostgresState(url: string): DbState {
  const config = env();
  const preparedStatements = config.DATABASE_PREPARED_STATEMENTS === "true";
  // `prepare: false` also for the driver's own statements: behind a pooler in transaction mode a named statement
  // may reach another server connection than the one it was prepared on (docs/operations.md, "Poolers").
  const client = postgres(
    url,
    postgresOptions({ max: config.DATABASE_POOL_SIZE, prepare: preparedStatements, statementTimeout: true }),
  );
  // The pool's gauges (docs/operations.md, "Observability"), when metrics are on.
  const pool = metrics()?.pool ?? null;
  if (pool) pool.max = config.DATABASE_POOL_SIZE;
  // Prepared statements, BEGIN sent with a transaction's first statement, and the pool-wait bound (round-trips.ts).
  const db = drizzlePostgres(
    withFewerRoundTrips(client, {
      preparedStatements,
      poolWaitMs: config.DATABASE_POOL_WAIT_MS,
      pool,
    }),
  ) as unknown as Db;
  const ready = (async () => {
    const { migratePostgres } = await import("./migrate");
    // On a session of its own (DIRECT_DATABASE_URL when DATABASE_URL is a pooler): docs/operations.md, "Poolers".
    await migratePostgres(config.DIRECT_DATABASE_URL ?? url);
    return db;
  })();
  return { kind: "postgres", db, ready, close: () => client.end({ timeout: 5 }) };
}

/**
 * postgres.js options for every connection the service opens (docs/operations.md, "Database outages"):
 *
 * - `connect_timeout`: a connection that cannot be opened fails its statement instead of waiting;
 * - `backoff`: after a failed connection, the next attempt comes within a second (postgres.js's own grows to
 *   20 s, and a pool that had seen the database away then took up to that long to come back);
 * - `statement_timeout` (a startup parameter, so it costs no round trip): a statement the server cannot finish
 *   in time fails, and nothing waits on it; migrations run on their own connection without it.
 *
 * The driver itself is patched (patches/postgres+3.4.9.patch): a connection lost under a statement fails that
 * statement instead of throwing from a timer, and a reserved connection dies with its socket.
 */
export function postgresOptions(
  overrides: { max: number; statementTimeout?: boolean } & Record<string, unknown>,
): postgres.Options<Record<string, postgres.PostgresType>> {
  const config = env();
  const { statementTimeout = true, ...rest } = overrides;
  return {
    onnotice: () => {},
    connect_timeout: config.DATABASE_CONNECT_TIMEOUT_MS / 1000,
    backoff: reconnectBackoff,
    ...(statementTimeout && config.DATABASE_STATEMENT_TIMEOUT_MS > 0
      ? { connection: { statement_timeout: config.DATABASE_STATEMENT_TIMEOUT_MS } }
      : {}),
    ...rest,
  };
}

/** Seconds before reconnect attempt `retries`: 50 ms doubling to at most 1 s, with jitter. */
export function reconnectBackoff(retries: number): number {
  return Math.min(0.05 * 2 ** retries, 1) * (0.5 + Math.random() / 2);
}

function createPgliteState(): DbState {
  const dataDir = pgliteDataDir();
  if (!dataDir.startsWith("memory://")) {
    mkdirSync(path.dirname(dataDir), { recursive: true });
    acquirePgliteLock(dataDir);
  }
  const client = new PGlite(dataDir);
  // One connection, in-process: the pool gauges show its size only.
  const pool = metrics()?.pool;
  if (pool) pool.max = 1;
  const db = drizzlePglite(client) as unknown as Db;
  const ready = (async () => {
    await client.waitReady;
    const { migratePglite } = await import("./migrate");
    await migratePglite(db);
    return db;
  })();
  return {
    kind: "pglite",
    db,
    ready,
    close: async () => {
      await client.close();
      if (!dataDir.startsWith("memory://")) releasePgliteLock(dataDir);
    },
  };
}

export function pgliteDataDir(): string {
  const override = env().PGLITE_DIR;
  if (override) return override;
  return path.resolve(env().DATA_DIR, "pglite");
}

function lockPath(dataDir: string): string {
  return `${dataDir}.lock`;
}

/** The pid holding the PGlite folder, if that process is alive. */
export function pgliteLockHolder(dataDir = pgliteDataDir()): number | null {
  const file = lockPath(dataDir);
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, "utf8").trim());
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (pid === process.pid) return pid;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

function acquirePgliteLock(dataDir: string): void {
  const holderPid = pgliteLockHolder(dataDir);
  if (holderPid !== null && holderPid !== process.pid) {
    throw new Error(
      `The embedded database at ${dataDir} is open in process ${holderPid}. Exactly one process may open it; ` +
        "the CLI reaches a running server through its admin endpoint instead.",
    );
  }
  writeFileSync(lockPath(dataDir), String(process.pid));
}

function releasePgliteLock(dataDir: string): void {
  if (pgliteLockHolder(dataDir) === process.pid) rmSync(lockPath(dataDir), { force: true });
}

/** Rows of a raw `db.execute(sql)` on either driver (postgres.js returns an array, PGlite `{ rows }`). */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

/**
 * True when an error means the database cannot be reached or answer in time (connection refused, closed or timed
 * out, no pooled connection free in time, a statement over its timeout): the doors answer 503
 * `service_unavailable` with Retry-After (docs/operations.md, "Database outages").
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const e = current as { code?: string; message?: string; cause?: unknown };
    if (
      e.code &&
      [
        "ECONNREFUSED",
        "ECONNRESET",
        "EPIPE",
        "ETIMEDOUT",
        "EHOSTUNREACH",
        "ENETUNREACH",
        "EAI_AGAIN",
        "POOL_WAIT_TIMEOUT",
        "CONNECT_TIMEOUT",
        "CONNECTION_CLOSED",
        "CONNECTION_ENDED",
        "CONNECTION_DESTROYED",
        // query_canceled (statement_timeout, or a pooled statement that never reached a connection in time),
        // admin_shutdown, crash_shutdown, cannot_connect_now
        "57014",
        "57P01",
        "57P02",
        "57P03",
        "08006",
        "08001",
        "08003",
        "53300",
      ].includes(e.code)
    )
      return true;
    if (e.message && /PGlite is closed|database system is (starting|shutting) up/i.test(e.message))
      return true;
    current = e.cause;
  }
  return false;
}
