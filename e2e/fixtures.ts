import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";

export type NextServer = {
  baseUrl: string;
  dataDir: string;
  env: Record<string, string | undefined>;
  stop: () => Promise<void>;
};

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

/**
 * How the built app is started: `production` is `npm start`'s server (server/host/main.ts: /v1 and /healthz on
 * node:http, the rest through Next), `next` is plain `next start` (hosts that run Next alone: /v1 through the
 * App Router's catch-all). Both serve the same pipeline.
 */
export type StartMode = "production" | "next";

/** The command line of each start mode, run from the repository's root. */
export function startCommand(mode: StartMode, port: number): { command: string; args: string[] } {
  return mode === "production"
    ? { command: process.execPath, args: ["--import", "tsx", "server/host/main.ts"] }
    : {
        command: path.resolve("node_modules/.bin/next"),
        args: ["start", "-H", "127.0.0.1", "-p", String(port)],
      };
}

/**
 * Starts the built app (built by `npm test` beforehand; the production start unless `mode` says `next`) on a
 * free loopback port, in its own process group, on the test file's PostgreSQL database or, in PGlite runs, on
 * a fresh embedded data folder.
 */
export async function startNextServer(
  extraEnv: Record<string, string> = {},
  mode: StartMode = "production",
): Promise<NextServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "marea-e2e-"));
  const env: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(port),
    HOST: "127.0.0.1",
    APP_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    ...extraEnv,
  };
  delete env.PGLITE_DIR;
  const { command, args } = startCommand(mode, port);
  const child: ChildProcess = spawn(command, args, {
    env: env as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const res = await fetch(`${baseUrl}/healthz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`the server (${mode}) did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    baseUrl,
    dataDir,
    env,
    stop: async () => {
      if (child.pid && child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        process.kill(-child.pid, "SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Debian's Chromium driven by playwright-core (README.md, "The two commands"). The flags run it headless in a
 * container (no sandbox, no GPU) and keep it from reaching the network on its own (no QUIC, background
 * networking, component updates or sync).
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * Runs the CLI beside `server` (asynchronously: a blocked event loop lets the server close an idle keep-alive
 * socket that the next fetch would then reuse). Prints one JSON object, returned parsed.
 */
export function runCli(
  server: NextServer,
  args: string[],
): Promise<{ status: number | null; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.resolve("node_modules/.bin/tsx"), ["server/cli/main.ts", ...args], {
      env: server.env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.on("error", reject);
    child.on("close", (status) =>
      resolve({ status, json: JSON.parse(stdout.trim() || "{}") as Record<string, unknown> }),
    );
  });
}
