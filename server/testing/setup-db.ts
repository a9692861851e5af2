import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, inject } from "vitest";
import { closeDb } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { withDatabase } from "./global-setup";

// Runs before every test file: point the service at a database of its own.
const kind = inject("testDb");
let databaseName: string | null = null;

if (kind === "pglite") {
  delete process.env.DATABASE_URL;
  delete process.env.DIRECT_DATABASE_URL;
  process.env.PGLITE_DIR = "memory://";
} else {
  const adminUrl = inject("adminDatabaseUrl");
  databaseName = `marea_t_${randomBytes(6).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${databaseName} template ${inject("templateDatabase")}`);
  await admin.end();
  // The pool through PgBouncer in transaction mode, sessions (LISTEN, migrations) direct: docs/operations.md,
  // "Poolers".
  process.env.DATABASE_URL = withDatabase(inject("pooledDatabaseUrl"), databaseName);
  process.env.DIRECT_DATABASE_URL = withDatabase(adminUrl, databaseName);
}
process.env.DATA_DIR ??= `/tmp/marea-test-${process.pid}`;
resetEnvForTests();

afterAll(async () => {
  await closeDb();
  if (databaseName) {
    const admin = postgres(inject("adminDatabaseUrl"), { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${databaseName} with (force)`);
    await admin.end();
  }
});

export function testDatabaseKind(): "postgres" | "pglite" {
  return kind;
}
