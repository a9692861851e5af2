import { randomBytes } from "node:crypto";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { startPgBouncer } from "./pgbouncer";

/**
 * PostgreSQL runs: one template database with every migration applied, cloned per test file (fast, and no
 * file sees another's rows). PGlite runs: nothing to prepare; each file opens its own in-memory database.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const kind = process.env.TEST_DB === "pglite" ? "pglite" : "postgres";
  project.provide("testDb", kind);
  if (kind === "pglite") {
    project.provide("templateDatabase", "");
    project.provide("adminDatabaseUrl", "");
    project.provide("pooledDatabaseUrl", "");
    return async () => {};
  }
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  // Every test reaches its database as production behind a pooler does (docs/operations.md, "Poolers"):
  // DATABASE_URL through PgBouncer in transaction mode, DIRECT_DATABASE_URL straight to PostgreSQL.
  const pgbouncer = await startPgBouncer(adminUrl);
  const template = `marea_tpl_${randomBytes(4).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${template}`);
  const templateUrl = withDatabase(adminUrl, template);
  const { migratePostgres } = await import("@/server/db/migrate");
  await migratePostgres(templateUrl);
  project.provide("templateDatabase", template);
  project.provide("adminDatabaseUrl", adminUrl);
  project.provide("pooledDatabaseUrl", pgbouncer.url);
  return async () => {
    await admin.unsafe(`drop database if exists ${template} with (force)`);
    await admin.end();
    await pgbouncer.stop();
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

declare module "vitest" {
  export interface ProvidedContext {
    testDb: "postgres" | "pglite";
    templateDatabase: string;
    adminDatabaseUrl: string;
    /** `adminDatabaseUrl` through the test run's PgBouncer (transaction mode). */
    pooledDatabaseUrl: string;
  }
}
