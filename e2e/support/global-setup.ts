import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { startMailSink } from "./mail-sink";

const ROOT = path.resolve(import.meta.dirname, "../..");
const ARTIFACTS = path.join(ROOT, "e2e/artifacts");

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Stops the server and everything it spawned: it runs in its own process group. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    return;
  }
  const timedOut = await Promise.race([
    exited.then(() => false),
    new Promise((r) => setTimeout(() => r(true), 8000)),
  ]);
  if (timedOut) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/**
 * One environment for the whole browser suite: a fresh PostgreSQL database, a real SMTP sink, and ONE built app
 * (the production start, server/host/main.ts, over the build `npm test` made beforehand) on a free loopback port. Tests find them through E2E_* variables.
 * Returns the teardown: stop the app, close the sink, drop the database.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  if (!existsSync(path.join(ROOT, ".next/BUILD_ID")))
    throw new Error("No production build: run `npx next build` first (npm test does).");
  mkdirSync(ARTIFACTS, { recursive: true });

  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const database = `marea_e2e_${randomBytes(6).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${database}`);
  const databaseUrl = withDatabase(adminUrl, database);

  const cleanups: (() => Promise<void>)[] = [
    async () => {
      await admin.unsafe(`drop database if exists ${database} with (force)`);
      await admin.end();
    },
  ];
  const teardown = async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.error("e2e teardown:", error);
      }
    }
  };

  try {
    const sink = await startMailSink();
    cleanups.push(sink.close);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "marea-e2e-"));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));

    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL: baseUrl,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      SMTP_URL: sink.smtpUrl,
      UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
      WEBHOOK_RETRY_SCHEDULE: "0s,2s,4s",
      // The tests stand in for a proxy on loopback: each sends its own X-Forwarded-For (fixtures.ts, clientIp), so
      // the per-IP limits of one test never count another's (docs/security.md, "Client addresses").
      TRUSTED_PROXIES: "127.0.0.1, ::1",
      LOG_LEVEL: "warn",
    };
    delete env.PGLITE_DIR;
    const log = createWriteStream(path.join(ARTIFACTS, "server.log"));
    // The production start, as `npm start` runs it (server/host/main.ts).
    const child = spawn(process.execPath, ["--import", "tsx", "server/host/main.ts"], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    cleanups.push(async () => {
      await stopGroup(child);
      log.end();
    });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });

    const deadline = Date.now() + 90_000;
    for (;;) {
      try {
        if ((await fetch(`${baseUrl}/healthz`)).status === 200) break;
      } catch {
        // not listening yet
      }
      if (child.exitCode !== null)
        throw new Error(`the server exited (${child.exitCode}); see e2e/artifacts/server.log`);
      if (Date.now() > deadline)
        throw new Error("the server did not answer /healthz in 90 s; see e2e/artifacts/server.log");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }

    process.env.E2E_BASE_URL = baseUrl;
    process.env.E2E_MAIL_URL = sink.httpUrl;
    process.env.E2E_DATABASE_URL = databaseUrl;
    process.env.E2E_DATA_DIR = dataDir;
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
