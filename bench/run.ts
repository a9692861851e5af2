import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { BenchEnv, BenchRow } from "./env";
import {
  assertPortFree,
  benchServerEnv,
  createBenchDatabase,
  createBenchDeveloperKey,
  load,
  NEXT_PROCESS,
  printFigures,
  setServerProcess,
  startNext,
  startServer,
  stopProcess,
  waitForHttp,
} from "./lib";

/**
 * `npm run bench`: the production start (`npm start`'s server, server/host/main.ts) on a fresh PostgreSQL
 * database, the framework floor measured in the same run, then every scenario. Prints req/s, p50, p99 and the
 * ratios to the baselines; writes bench/results/. BENCH_DURATION_SEC shortens each load (default 10);
 * BENCH_ONLY=pipeline,catalog,storefront,webhooks,graphql,mcp,editor,dashboard-webhooks,products-table,events,photos,starts
 * picks scenarios.
 */
const PORT = Number(process.env.BENCH_PORT ?? 3210);
const only = (
  process.env.BENCH_ONLY ??
  "pipeline,catalog,storefront,webhooks,graphql,mcp,editor,dashboard-webhooks,products-table,events,photos,starts"
).split(",");

async function main(): Promise<void> {
  const { databaseUrl, drop } = await createBenchDatabase("marea_bench");
  // APP_URL is where the bench reaches the server: /mcp answers only the host names it is configured with.
  const serverEnv = {
    ...benchServerEnv(databaseUrl, path.resolve(".data/bench")),
    PORT: String(PORT),
    APP_URL: `http://127.0.0.1:${PORT}`,
  };
  const processes = [];
  try {
    if (process.env.BENCH_SKIP_BUILD !== "1") {
      process.stdout.write("building (next build)...\n");
      const build = spawnSync("npx", ["next", "build"], { env: serverEnv, stdio: "ignore" });
      if (build.status !== 0) throw new Error("next build failed");
    }
    await assertPortFree(PORT);
    // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the server process there when it stops.
    const profileDir = process.env.BENCH_CPU_PROF;
    // BENCH_START=next measures `next start` instead (Next alone, the start before the production one).
    const isNextStart = process.env.BENCH_START === "next";
    const server = (isNextStart ? startNext : startServer)({
      cwd: process.cwd(),
      port: PORT,
      env: serverEnv,
      profileDir: profileDir ? path.resolve(profileDir) : undefined,
    });
    processes.push(server);
    setServerProcess(server.pid, isNextStart ? NEXT_PROCESS : undefined);
    const baseUrl = `http://127.0.0.1:${PORT}`;
    await waitForHttp(`${baseUrl}/healthz`);

    const developerKey = await createBenchDeveloperKey(databaseUrl, "bench");

    // Warm up the routes (first requests compile and cache).
    for (let i = 0; i < 50; i++) {
      await fetch(`${baseUrl}/bench/floor`).then((r) => r.arrayBuffer());
      await fetch(`${baseUrl}/v1/me`, { headers: { authorization: `Bearer ${developerKey}` } }).then((r) =>
        r.arrayBuffer(),
      );
    }
    const floor = await load("(b) Next route handler, constant", { url: `${baseUrl}/bench/floor` });
    const env: BenchEnv = { baseUrl, databaseUrl, developerKey, floor };
    const rows: BenchRow[] = [floor];

    if (only.includes("pipeline")) {
      const me = await load("(a) GET /v1/me, whole pipeline", {
        url: `${baseUrl}/v1/me`,
        headers: { authorization: `Bearer ${developerKey}` },
      });
      const { startTsxProcess } = await import("@/server/testing/processes");
      const bare = await startTsxProcess(
        "bench/bare-server.ts",
        ["0"],
        { DATABASE_URL: databaseUrl },
        /ready (\d+)/,
      );
      const bareFigures = await load("(c) bare node:http + postgres.js", {
        url: `http://127.0.0.1:${bare.match[1]}/`,
        headers: { authorization: `Bearer ${developerKey}` },
      });
      await bare.stop();
      rows.push(
        { ...me, ratio: { to: "(b)", value: me.reqPerSec / floor.reqPerSec, target: 3 } },
        {
          ...me,
          name: "(a) vs (c)",
          ratio: { to: "(c)", value: me.reqPerSec / bareFigures.reqPerSec, target: 1 },
        },
        // Not served by the server process: its CPU figure would be the idle server.
        { ...bareFigures, serverCpuMsPerRequest: undefined },
      );
      const verdict = me.p99 <= floor.p99 / 2 ? "ok" : "OVER";
      process.stdout.write(`(a) p99 ${me.p99} ms vs (b) p99 ${floor.p99} ms / 2 (target <=): ${verdict}\n`);
    }
    if (only.includes("catalog")) rows.push(...(await runScenario("./catalog", "runCatalogBench", env)));
    if (only.includes("storefront")) {
      rows.push(...(await runScenario("./storefront", "runStorefrontBench", env)));
    }
    if (only.includes("webhooks")) rows.push(...(await runScenario("./webhooks", "runWebhookBench", env)));
    if (only.includes("graphql")) rows.push(...(await runScenario("./graphql", "runGraphQLBench", env)));
    if (only.includes("mcp")) rows.push(...(await runScenario("./mcp", "runMcpBench", env)));
    if (only.includes("editor")) {
      rows.push(...(await runScenario("./dashboard-storefront", "runStorefrontEditorBench", env)));
    }
    if (only.includes("dashboard-webhooks"))
      rows.push(...(await runScenario("./dashboard-webhooks", "runDashboardWebhooksBench", env)));
    if (only.includes("products-table")) {
      rows.push(...(await runScenario("./products-table", "runProductsTableBench", env)));
    }
    if (only.includes("events")) rows.push(...(await runScenario("./events", "runEventsBench", env)));
    if (only.includes("photos")) rows.push(...(await runScenario("./photos", "runPhotosBench", env)));
    // Last: it starts `next start` beside the production start, for the same pages through both.
    if (only.includes("starts")) rows.push(...(await runScenario("./starts", "runStartsBench", env)));

    process.stdout.write("\n");
    printFigures(rows);
    mkdirSync("bench/results", { recursive: true });
    writeFileSync(
      "bench/results/latest.json",
      JSON.stringify({ at: new Date().toISOString(), rows }, null, 2),
    );
  } finally {
    for (const child of processes) stopProcess(child);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await drop();
  }
}

async function runScenario(modulePath: string, exportName: string, env: BenchEnv): Promise<BenchRow[]> {
  try {
    const mod = (await import(modulePath)) as Record<string, (env: BenchEnv) => Promise<BenchRow[]>>;
    const run = mod[exportName];
    if (!run) return [];
    return await run(env);
  } catch (error) {
    process.stderr.write(
      `scenario ${modulePath} failed: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    return [];
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
