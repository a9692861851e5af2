import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import fc from "fast-check";
import { createBenchDatabase, startServer, stopProcess, waitForHttp } from "./lib";

/**
 * `npx tsx bench/hostile.ts`: the hostile-input run of docs/api.md ("Hostile and malformed input") against the
 * built app under the production start (server/host/main.ts), over HTTP, on a fresh PostgreSQL database (dropped afterwards). The requests are
 * those of the property test (server/testing/hostile.ts, generated from the served /v1/openapi.json), sent one at
 * a time; prints how many were answered what and every kind of problem found. HOSTILE_RUNS (10,000),
 * HOSTILE_SEED (18), BENCH_SKIP_BUILD=1 reuses `.next/`. Exits 1 when any answer is a problem.
 */
const PORT = Number(process.env.BENCH_PORT ?? 3212);
const RUNS = Number(process.env.HOSTILE_RUNS ?? 10_000);
const SEED = Number(process.env.HOSTILE_SEED ?? 18);

type Counts = Record<string, number>;

async function main(): Promise<number> {
  const { databaseUrl, drop } = await createBenchDatabase("marea_hostile");
  const dataDir = mkdtempSync(`${os.tmpdir()}/marea-hostile-`);
  // The fixtures are made through this process's services, on the server's database, with the server's key
  // for secrets at rest (webhook endpoints encrypt theirs).
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    SECRETS_KEY: randomBytes(32).toString("hex"),
    LOG_LEVEL: "error",
  });
  const serverEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(PORT),
    APP_URL: `http://127.0.0.1:${PORT}`,
  };
  let next: ReturnType<typeof startServer> | undefined;
  try {
    if (process.env.BENCH_SKIP_BUILD !== "1") {
      process.stdout.write("building (next build)...\n");
      const build = spawnSync("npx", ["next", "build"], { env: serverEnv, stdio: "ignore" });
      if (build.status !== 0) throw new Error("next build failed");
    }
    next = startServer({ cwd: process.cwd(), port: PORT, env: serverEnv });
    const baseUrl = `http://127.0.0.1:${PORT}`;
    await waitForHttp(`${baseUrl}/healthz`);

    const { hostileRequests } = await import("@/server/testing/hostile");
    const { createHostileRun, inconsistencies, sendAndCheck, victimState } = await import(
      "@/server/testing/hostile-run"
    );
    const { API_ROUTES } = await import("@/server/wiring/rest");
    const { closeDb } = await import("@/server/db/client");
    type Send = import("@/server/testing/hostile-run").Send;

    const send: Send = async (request) => {
      const response = await fetch(`${baseUrl}${request.path}`, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: "manual",
      });
      return { status: response.status, headers: response.headers, text: await response.text() };
    };
    const doc = JSON.parse((await send({ method: "GET", path: "/v1/openapi.json", headers: {} })).text);
    const run = await createHostileRun(send);
    const before = await victimState(send, run.victim);
    const routes = new Map(API_ROUTES.map((route) => [route.operationId, route]));
    const requests = fc.sample(hostileRequests(doc, run.fixtures), { seed: SEED, numRuns: RUNS });

    const byClass: Counts = {};
    const byKind: Counts = {};
    const examples: string[] = [];
    let frameworkRedirects = 0;
    const started = Date.now();
    for (const request of requests) {
      const { answer, problems } = await sendAndCheck(doc, routes, send, request);
      const statusClass = `${String(answer.status)[0]}xx`;
      byClass[statusClass] = (byClass[statusClass] ?? 0) + 1;
      // Next answers a path with `//` (or `\`) with a 308 before any application code (docs/api.md).
      if (answer.status === 308 && (request.path.split("?")[0] ?? "").includes("//")) {
        frameworkRedirects++;
        continue;
      }
      for (const problem of problems) {
        const kind = kindOf(problem);
        byKind[kind] = (byKind[kind] ?? 0) + 1;
        if (examples.length < 20) {
          examples.push(`${request.method} ${request.path.slice(0, 120)} [${request.note}] -> ${problem}`);
        }
      }
    }
    const seconds = (Date.now() - started) / 1000;
    const victimChanged = JSON.stringify(await victimState(send, run.victim)) !== JSON.stringify(before);
    const broken = await inconsistencies();
    await closeDb();

    const lines = [
      `requests: ${requests.length} (seed ${SEED}) in ${seconds.toFixed(1)} s, against the production start on PostgreSQL`,
      `by status class: ${Object.entries(byClass)
        .sort()
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
      `5xx: ${byClass["5xx"] ?? 0}`,
      `outside the envelope (non-2xx not the envelope, or requestId != X-Request-Id): ${byKind.envelope ?? 0}`,
      `2xx not matching the declared schema: ${byKind.schema ?? 0}`,
      `status or code not declared by the operation: ${byKind.undeclared ?? 0}`,
      `message not in the language asked for: ${byKind.language ?? 0}`,
      `read back changed after a write: ${byKind.readBack ?? 0}`,
      `other problems: ${byKind.other ?? 0}`,
      `framework 308 for a path with // (Next, before the app; not counted above): ${frameworkRedirects}`,
      `victim account's data unchanged: ${victimChanged ? "NO" : "yes"}`,
      `database inconsistencies: ${broken.length}${broken.length > 0 ? ` (${broken.slice(0, 5).join("; ")})` : ""}`,
      ...examples.map((example) => `  ${example}`),
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    const problems = Object.values(byKind).reduce((sum, n) => sum + n, 0);
    return problems === 0 && !victimChanged && broken.length === 0 ? 0 : 1;
  } finally {
    if (next) stopProcess(next);
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function kindOf(problem: string): string {
  if (problem.startsWith("status 5")) return "server";
  if (/envelope|not JSON|requestId|X-Request-Id/.test(problem)) return "envelope";
  if (problem.startsWith("2xx body")) return "schema";
  if (/not declared/.test(problem)) return "undeclared";
  if (problem.startsWith("message not in")) return "language";
  if (/reads back changed/.test(problem)) return "readBack";
  return "other";
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
