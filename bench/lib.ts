import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import postgres from "postgres";

export type Figures = {
  name: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  p90?: number;
  max?: number;
  errors: number;
  non2xx: number;
  /** CPU time of the server process per request (ms), from /proc; steadier than req/s on a noisy machine. */
  serverCpuMsPerRequest?: number;
  /** The part of it on the server's main thread (JavaScript; GC helper and libuv threads excluded). */
  serverMainThreadCpuMsPerRequest?: number;
  /** CPU time of every local `postgres` process per request (ms), when PostgreSQL runs on this machine. */
  databaseCpuMsPerRequest?: number;
  /** CPU time of this process (autocannon, the load generator) per request (ms). */
  clientCpuMsPerRequest?: number;
  /** Responses by status code, e.g. `{"201": 3012}` (absent for figures not measured with autocannon). */
  statuses?: Record<string, number>;
};

export type LoadOptions = {
  url: string;
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  headers?: Record<string, string>;
  /** A fresh body (and headers) per request, e.g. a new Idempotency-Key each time. */
  setupRequest?: (request: { headers?: Record<string, string>; body?: string }) => {
    headers?: Record<string, string>;
    body?: string;
    /** Another path on the same host (e.g. spread load over several storefronts). */
    path?: string;
  };
  body?: string;
  durationSec?: number;
  connections?: number;
  /** Unmeasured seconds of the same load first (default BENCH_WARMUP_SEC). */
  warmupSec?: number;
  /** Count only the server of this process group (the pid `startProcess` returned), when several run. */
  processGroup?: number;
  /** The server process's name in /proc (default SERVER_PROCESS: the production start). */
  processName?: string;
};

let serverGroup: number | undefined;
let serverName: string | undefined;

/**
 * The bench's own server: its process group (its pid; CPU figures count only its processes) and, when it is
 * `next start` (BENCH_START=next), its process name.
 */
export function setServerProcess(group: number | undefined, name?: string): void {
  serverGroup = group;
  serverName = name;
}

/** The production start's process name (server/host/main.ts sets it); `next start`'s is NEXT_PROCESS. */
export const SERVER_PROCESS = "marea-server";
export const NEXT_PROCESS = "next-server";

/** Seconds of the same load run, unmeasured, before each measurement (BENCH_WARMUP_SEC, default 3). */
const WARMUP_SEC = Number(process.env.BENCH_WARMUP_SEC ?? 3);

/**
 * autocannon at 32 connections for 10 s unless told otherwise; returns req/s and latency percentiles (ms).
 * The same load runs unmeasured for WARMUP_SEC first: the first seconds of a route under load measure the JIT
 * compiling it and the heap growing, not its steady state (a PATCH run straight after start-up showed p99
 * 127 ms, the same run warmed 81 ms).
 */
export async function load(name: string, options: LoadOptions): Promise<Figures> {
  const warmupSec = options.warmupSec ?? WARMUP_SEC;
  if (warmupSec > 0) await runAutocannon({ ...options, durationSec: warmupSec });
  const processName = options.processName ?? serverName ?? SERVER_PROCESS;
  // Only this bench's server: other checkouts on the machine may run processes of the same name.
  const group =
    options.processGroup ?? (processName === (serverName ?? SERVER_PROCESS) ? serverGroup : undefined);
  const cpuBefore = processCpuMs(processName, group);
  const databaseCpuBefore = processCpuMs("postgres");
  const clientCpuBefore = process.cpuUsage();
  const result = await runAutocannon(options);
  const cpuAfter = processCpuMs(processName, group);
  const databaseCpuAfter = processCpuMs("postgres");
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const total = result.requests.total;
  const perRequest = (before: number | undefined, after: number | undefined) =>
    before !== undefined && after !== undefined && total > 0 ? (after - before) / total : undefined;
  return {
    name,
    serverCpuMsPerRequest: perRequest(cpuBefore?.total, cpuAfter?.total),
    serverMainThreadCpuMsPerRequest: perRequest(cpuBefore?.mainThread, cpuAfter?.mainThread),
    databaseCpuMsPerRequest: perRequest(databaseCpuBefore?.total, databaseCpuAfter?.total),
    clientCpuMsPerRequest: total > 0 ? (clientCpu.user + clientCpu.system) / 1000 / total : undefined,
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    p90: result.latency.p90,
    max: result.latency.max,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [
        code,
        (stats as { count: number }).count,
      ]),
    ),
  };
}

function runAutocannon(options: LoadOptions) {
  return autocannon({
    url: options.url,
    method: options.method ?? "GET",
    headers: options.headers,
    body: options.body,
    connections: options.connections ?? 32,
    duration: options.durationSec ?? Number(process.env.BENCH_DURATION_SEC ?? 10),
    requests: options.setupRequest
      ? [
          {
            method: options.method ?? "GET",
            setupRequest: (request: autocannon.Request) => {
              const headers = (request.headers ?? {}) as Record<string, string>;
              const extra = options.setupRequest?.({ headers }) ?? {};
              return {
                ...request,
                headers: { ...headers, ...extra.headers },
                body: extra.body ?? request.body,
                ...("path" in extra && extra.path ? { path: extra.path } : {}),
              };
            },
          },
        ]
      : undefined,
  });
}

export function printFigures(
  rows: Array<Figures & { ratio?: { to: string; value: number; target?: number } }>,
): void {
  const lines = rows.map((r) => {
    const ratio = r.ratio
      ? ` ${r.ratio.value.toFixed(2)}x of ${r.ratio.to}${r.ratio.target !== undefined ? ` (target >= ${r.ratio.target})` : ""}`
      : "";
    const cpu =
      r.serverCpuMsPerRequest !== undefined
        ? `  cpu ${r.serverCpuMsPerRequest.toFixed(2)} ms/req (db ${r.databaseCpuMsPerRequest?.toFixed(2) ?? "-"}, client ${r.clientCpuMsPerRequest?.toFixed(2) ?? "-"})`
        : "";
    return `${r.name.padEnd(44)} ${r.reqPerSec.toFixed(0).padStart(7)} req/s  p50 ${String(r.p50).padStart(4)} ms  p99 ${String(r.p99).padStart(4)} ms${cpu}  errors ${r.errors} non2xx ${r.non2xx}${r.non2xx > 0 ? ` ${JSON.stringify(r.statuses)}` : ""}${ratio}`;
  });
  process.stdout.write(`${lines.join("\n")}\n`);
}

/**
 * The production start's file in a checkout: server/host/main.ts, server/http/main.ts in checkouts from before it
 * moved (bench/ab.ts compares them), null in those from before there was one (`next start`).
 */
export function productionStartOf(cwd: string): string | null {
  for (const file of ["server/host/main.ts", "server/http/main.ts"]) {
    if (existsSync(path.join(cwd, file))) return file;
  }
  return null;
}

/**
 * The production start (`npm start` without its build: server/host/main.ts) on 127.0.0.1:`port` in `cwd` (an
 * app already built there), in its own process group; with `profileDir`, a V8 CPU profile of the server is
 * written there when it stops. BENCH_NODE_FLAGS adds node command-line flags to the server.
 */
export function startServer(options: {
  cwd: string;
  port: number;
  env: NodeJS.ProcessEnv;
  profileDir?: string;
  /** The node binary (default: the bench's own, so `npm run bench` measures the project's Node 24). */
  node?: string;
}): ChildProcess {
  const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean);
  if (options.profileDir) nodeFlags.push("--cpu-prof", `--cpu-prof-dir=${options.profileDir}`);
  return startProcess(
    options.node ?? process.execPath,
    [...nodeFlags, "--import", "tsx", productionStartOf(options.cwd) ?? "server/host/main.ts"],
    { ...options.env, PORT: String(options.port), HOST: "127.0.0.1" },
    "production start",
    options.cwd,
  );
}

/**
 * `next start` (Next alone: /v1 through the App Router's catch-all), the start before the production one, for
 * comparisons in the same run; on 127.0.0.1:`port` in `cwd` (an app already built there), in its own process group; with
 * `profileDir`, a V8 CPU profile of the server is written there when it stops. BENCH_NODE_FLAGS adds node
 * command-line flags to the server, including those NODE_OPTIONS refuses (`--trace-gc`, say).
 */
export function startNext(options: {
  cwd: string;
  port: number;
  env: NodeJS.ProcessEnv;
  profileDir?: string;
}): ChildProcess {
  const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean);
  if (options.profileDir) nodeFlags.push("--cpu-prof", `--cpu-prof-dir=${options.profileDir}`);
  const args = ["start", "-H", "127.0.0.1", "-p", String(options.port)];
  return startProcess(
    process.execPath,
    [...nodeFlags, "node_modules/next/dist/bin/next", ...args],
    options.env,
    "next start",
    options.cwd,
  );
}

/** Starts a process in its own group so the whole tree can be killed. */
export function startProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logName: string,
  cwd?: string,
): ChildProcess {
  const child = spawn(command, args, { env, cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  // BENCH_SERVER_LOG=<file>: everything the server prints goes there too (e.g. with NODE_OPTIONS=--trace-gc).
  const logFile = process.env.BENCH_SERVER_LOG ? createWriteStream(process.env.BENCH_SERVER_LOG) : null;
  child.stdout?.on("data", (d: Buffer) => {
    lines.push(d.toString());
    logFile?.write(d);
  });
  child.stderr?.on("data", (d: Buffer) => {
    lines.push(d.toString());
    logFile?.write(d);
  });
  child.on("exit", (code) => {
    if (code && code !== 0 && code !== 143)
      process.stderr.write(`${logName} exited ${code}\n${lines.join("").slice(-2000)}\n`);
  });
  return child;
}

export function stopProcess(child: ChildProcess): void {
  if (child.pid && child.exitCode === null) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
}

/**
 * Throws when something already listens on 127.0.0.1:`port`: the bench would otherwise measure that server (another
 * checkout's bench, say) instead of its own. BENCH_PORT picks another.
 */
export async function assertPortFree(port: number): Promise<void> {
  const { createServer } = await import("node:net");
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", () =>
      reject(new Error(`127.0.0.1:${port} is in use: set BENCH_PORT to a free port`)),
    );
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
}

export async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** user+system CPU (ms) in a /proc stat line; `fields` start at its third field (state). */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

function cpuMsOf(fields: string[]): number {
  // Fields 14 and 15 of stat (utime, stime), in clock ticks of 10 ms; counted from the third field here.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * User+system CPU (ms) of the processes whose name starts with `prefix` (Linux /proc), only those of process
 * group `group` when given, or null when none. `mainThread` is the part spent on the processes' main threads
 * (for node: JavaScript, without GC helper and libuv threads).
 */
export function processCpuMs(prefix: string, group?: number): { total: number; mainThread: number } | null {
  let total = 0;
  let mainThread = 0;
  let found = false;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (!name.startsWith(prefix)) continue;
      const fields = statFields(stat);
      // Field 5 of stat, the process group, sits at 2 here.
      if (group !== undefined && Number(fields[2]) !== group) continue;
      total += cpuMsOf(fields);
      mainThread += cpuMsOf(statFields(readFileSync(`/proc/${entry}/task/${entry}/stat`, "utf8")));
      found = true;
    } catch {
      // the process went away
    }
  }
  return found ? { total, mainThread } : null;
}

/** Where bench databases are made (BENCH_ADMIN_DATABASE_URL). */
const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** A fresh PostgreSQL database named `<prefix>_<random>` next to ADMIN_URL's; `drop()` removes it. */
export async function createBenchDatabase(
  prefix: string,
): Promise<{ databaseUrl: string; drop: () => Promise<void> }> {
  const database = `${prefix}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${database}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return {
    databaseUrl: url.toString(),
    drop: async () => {
      await admin.unsafe(`drop database if exists ${database} with (force)`);
      await admin.end();
    },
  };
}

/**
 * A developer key with raised limits on the bench database, made the way an operator would (`dev-key create
 * --rpm`), through the service layer in this process.
 */
export async function createBenchDeveloperKey(databaseUrl: string, emailPrefix: string): Promise<string> {
  process.env.DATABASE_URL = databaseUrl;
  const { dbReady, closeDb } = await import("@/server/db/client");
  const { createDeveloperKey } = await import("@/server/accounts/operator");
  const { operatorContext } = await import("@/server/context");
  const { DEVELOPER_KEY_RANGES } = await import("@/server/accounts/limits");
  // The highest limits a key may have (the service refuses more).
  const developer = await createDeveloperKey(operatorContext({ db: await dbReady() }), {
    email: `${emailPrefix}-${randomBytes(3).toString("hex")}@example.com`,
    dailyLimit: DEVELOPER_KEY_RANGES.dailyLimit.max,
    rpm: DEVELOPER_KEY_RANGES.rpm.max,
  });
  await closeDb();
  return developer.key;
}

/**
 * The environment `next build` and `next start` get in a benchmark: production, the bench database, quiet logs,
 * and a benchmark build (MAREA_BENCH_BUILD=1: its own `.next-bench/`, with the framework floor route
 * `app/bench/floor/route.bench.ts` that production builds leave out; next.config.ts).
 */
export function benchServerEnv(databaseUrl: string, dataDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    MAREA_BENCH_BUILD: "1",
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: "error",
    UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
    DATA_DIR: dataDir,
    // The dashboard scenarios load one signed-in session far past any person's pace (docs/security.md, "Limits").
    SESSION_REQUESTS_PER_MINUTE: "100000000",
  };
}

/**
 * The framework's floor for a page (bench/README.md, "What a page costs"): `GET /bench/page`, a dynamic page with
 * nothing on it under the root layout, measured next to a dashboard page, and the page's ratio to it printed.
 */
export async function loadPageFloor(
  baseUrl: string,
  label: string,
  pages: Array<[string, Figures]>,
): Promise<Figures> {
  const floor = await load(`${label} GET /bench/page, an empty dynamic page`, {
    url: `${baseUrl}/bench/page`,
  });
  for (const [name, figures] of pages)
    process.stdout.write(
      `${name} / ${label}: ${(figures.reqPerSec / floor.reqPerSec).toFixed(2)} (for information)\n`,
    );
  return floor;
}
