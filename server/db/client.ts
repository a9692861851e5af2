import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { env } from "@/server/env";
import { withFewerRoundTrips } from "./round-trips";
import * as schema from "./schema";

/** The one database type services use: postgres.js and PGlite clients, and transactions of either, fit it. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

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
  const client = postgres(url, {
    max: env().DATABASE_POOL_SIZE,
    onnotice: () => {},
    connect_timeout: 5,
  });
  // Prepared statements, and BEGIN sent with a transaction's first statement (round-trips.ts).
  const preparedStatements = env().DATABASE_PREPARED_STATEMENTS === "true";
  const db = drizzlePostgres(withFewerRoundTrips(client, { preparedStatements }), {
    schema,
  }) as unknown as Db;
  const ready = (async () => {
    const { migratePostgres } = await import("./migrate");
    await migratePostgres(db, url);
    return db;
  })();
  return { kind: "postgres", db, ready, close: () => client.end({ timeout: 5 }) };
}

function createPgliteState(): DbState {
  const dataDir = pgliteDataDir();
  if (!dataDir.startsWith("memory://")) {
    mkdirSync(path.dirname(dataDir), { recursive: true });
    acquirePgliteLock(dataDir);
  }
  const client = new PGlite(dataDir);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
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

/** True when an error means the database cannot be reached (connection refused, closed, timed out). */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const e = current as { code?: string; message?: string; cause?: unknown };
    if (
      e.code &&
      [
        "ECONNREFUSED",
        "ECONNRESET",
        "ETIMEDOUT",
        "CONNECT_TIMEOUT",
        "CONNECTION_CLOSED",
        "CONNECTION_ENDED",
        "CONNECTION_DESTROYED",
        "57P01",
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
