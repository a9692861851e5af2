import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "./production-server";

/**
 * Debian's PgBouncer (`apt-get install -y pgbouncer`, 1.18 on Debian 12) in transaction mode in front of the test
 * run's PostgreSQL (docs/operations.md, "Poolers"): a `*` entry sends every database name to the server of
 * `targetUrl`, trust authentication, a free port, its files in a temporary folder. It refuses to run as root, so
 * under root it runs as `postgres`. `PGBOUNCER_PATH` names another binary.
 */
export type PgBouncer = { url: string; port: number; stop: () => Promise<void>; log: () => string };

export async function startPgBouncer(targetUrl: string): Promise<PgBouncer> {
  const binary = process.env.PGBOUNCER_PATH ?? "/usr/sbin/pgbouncer";
  if (!existsSync(binary))
    throw new Error(
      `PgBouncer is not installed (${binary}): the PostgreSQL pass runs every test through it. ` +
        "Install Debian's package (`apt-get install -y pgbouncer`) or set PGBOUNCER_PATH.",
    );
  const target = new URL(targetUrl);
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), "marea-pgbouncer-"));
  const users = ["postgres", "root", decodeURIComponent(target.username || "postgres")];
  writeFileSync(path.join(dir, "users.txt"), [...new Set(users)].map((u) => `"${u}" ""`).join("\n"));
  writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${target.hostname} port=${target.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "users.txt")}`,
      "pool_mode = transaction",
      "max_client_conn = 900",
      "default_pool_size = 20",
      // Each test file's database is dropped at its end: its idle server connections must not pile up.
      "server_idle_timeout = 5",
      "server_login_retry = 1",
      `logfile = ${path.join(dir, "pgbouncer.log")}`,
      `pidfile = ${path.join(dir, "pgbouncer.pid")}`,
    ].join("\n"),
  );
  const asRoot = process.getuid?.() === 0;
  const ids = asRoot ? postgresIds() : null;
  if (ids) chownRecursive(dir, ids.uid, ids.gid);
  const child: ChildProcess = spawn(binary, [path.join(dir, "pgbouncer.ini")], {
    stdio: ["ignore", "ignore", "pipe"],
    ...(ids ? { uid: ids.uid, gid: ids.gid } : {}),
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const log = () => {
    try {
      return readFileSync(path.join(dir, "pgbouncer.log"), "utf8") + stderr;
    } catch {
      return stderr;
    }
  };
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`PgBouncer did not start:\n${log()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = new URL(targetUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    port,
    log,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGINT");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

function chownRecursive(dir: string, uid: number, gid: number): void {
  chownSync(dir, uid, gid);
  for (const file of ["users.txt", "pgbouncer.ini"]) chownSync(path.join(dir, file), uid, gid);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
