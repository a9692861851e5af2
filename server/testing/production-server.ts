import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";

/** The production start's command line, as `npm start` runs it after `next build` (package.json). */
export const PRODUCTION_START = ["--import", "tsx", "server/host/main.ts"];

export type ProductionServer = {
  baseUrl: string;
  port: number;
  /** The pid of the process we started: the server itself, or the cluster primary with WEB_CONCURRENCY > 1. */
  pid: number;
  child: ChildProcess;
  output: () => string;
  /** Sends `signal` to the server (not its group) and resolves with its exit code once it is gone. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
};

export async function freePort(): Promise<number> {
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

/** True when `next build` has left a build in this checkout (`npm test` builds before vitest). */
export function hasProductionBuild(): boolean {
  return existsSync(path.resolve(".next/BUILD_ID"));
}

/**
 * Starts the production start (server/host/main.ts over `.next`) on a free loopback port in its own process
 * group, and resolves once `/healthz` answers 200. `env` adds to (or, with undefined, removes from) this
 * process's environment.
 */
export async function startProductionServer(
  env: Record<string, string | undefined> = {},
  timeoutMs = 60_000,
): Promise<ProductionServer> {
  if (!hasProductionBuild())
    throw new Error("No production build: run `npx next build` first (npm test does).");
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const merged: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(port),
    HOST: "127.0.0.1",
    APP_URL: baseUrl,
    LOG_LEVEL: "warn",
    ...env,
  };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  const child = spawn(process.execPath, PRODUCTION_START, {
    env: merged as NodeJS.ProcessEnv,
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
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${baseUrl}/healthz`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null)
      throw new Error(`the production server exited (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) {
      killGroup(child, "SIGKILL");
      throw new Error(`the production server did not answer /healthz in ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  return {
    baseUrl,
    port,
    pid: child.pid ?? 0,
    child,
    output: () => output,
    stop: async (signal: NodeJS.Signals = "SIGTERM") => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const code = await Promise.race([
        exited,
        new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 30_000)),
      ]);
      if (code === "timeout") {
        killGroup(child, "SIGKILL");
        return null;
      }
      // Workers of a cluster are in the same group: none may outlive the test.
      killGroup(child, "SIGKILL");
      return code;
    },
  };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}
