import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { freePort } from "./production-server";

/**
 * A PostgreSQL cluster of its own (Debian's `pg_createcluster`, trust auth on loopback, a free port), for a test
 * that restarts PostgreSQL for real without touching the server every other test file uses. Needs root and
 * Debian's postgresql-common (as on CI); `canCreateScratchCluster()` says whether this machine has both.
 */
export type ScratchCluster = {
  url: string;
  /** `pg_ctlcluster ... restart` (fast shutdown: every connection is terminated, then the server starts again). */
  restart: () => Promise<void>;
  drop: () => void;
};

const VERSION_DIR = "/etc/postgresql";

export function canCreateScratchCluster(): boolean {
  return process.getuid?.() === 0 && existsSync("/usr/bin/pg_createcluster") && existsSync(VERSION_DIR);
}

export async function createScratchCluster(): Promise<ScratchCluster> {
  const version = execFileSync("ls", [VERSION_DIR]).toString().trim().split("\n")[0] ?? "15";
  const name = `marea_${randomBytes(4).toString("hex")}`;
  const port = await freePort();
  const run = (command: string, args: string[]) =>
    execFileSync(command, args, { stdio: ["ignore", "ignore", "pipe"] });
  run("pg_createcluster", [version, name, "--port", String(port), "--", "--auth=trust"]);
  run("pg_ctlcluster", ["--skip-systemctl-redirect", version, name, "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    // Asynchronous: the load on this process's event loop goes on while PostgreSQL restarts.
    restart: async () => {
      await promisify(execFile)("pg_ctlcluster", ["--skip-systemctl-redirect", version, name, "restart"]);
    },
    drop: () => run("pg_dropcluster", [version, name, "--stop"]),
  };
}
