import { spawnSync } from "node:child_process";
import path from "node:path";
import { prepareCatalogLoads } from "./catalog";
import type { BenchEnv } from "./env";
import {
  benchServerEnv,
  createBenchDatabase,
  createBenchDeveloperKey,
  type Figures,
  type LoadOptions,
  load,
  NEXT_PROCESS,
  productionStartOf,
  SERVER_PROCESS,
  startNext,
  startServer,
  stopProcess,
  waitForHttp,
} from "./lib";
import { createBenchStorefront } from "./storefront";

/**
 * A/B: two checkouts of this app (or one, with two sets of node flags) served side by side on one fresh
 * PostgreSQL database, under the same loads, interleaved: each round runs every load on A and on B back to
 * back, alternating which goes first. On a machine whose speed drifts by 20-40% from minute to minute (the
 * sandbox this was written on), only figures taken next to each other compare; one `npm run bench` before and
 * one after a change do not.
 *
 *   npx tsx bench/ab.ts <dirA> <dirB>      e.g. a `git worktree` of main, and this checkout
 *
 * Loads: the framework floor (b), PATCH storefront (d) and product create with an Idempotency-Key (e), as in
 * `npm run bench`. Prints, per load and side, the median over rounds of req/s, p99 and the server's CPU ms per
 * request, and B's CPU per request as a fraction of A's (all of it, and the main thread's). A first round warms both
 * servers up and is not counted. BENCH_AB_ROUNDS (default 3), BENCH_DURATION_SEC
 * (default 10), BENCH_AB_NODE_OPTIONS_A / _B (extra NODE_OPTIONS for one side's server), BENCH_AB_ENV_A / _B
 * (`NAME=value` pairs for one side's server, e.g. `DATABASE_POOL_SIZE=4`), BENCH_AB_NODE_A / _B (the node binary
 * one side's server runs on: `BENCH_AB_NODE_A=/usr/bin/node` against the project's Node 24), BENCH_AB_LOADS (default `b,d,e`;
 * `d2` adds PATCH with an Idempotency-Key; `s` the cached public page of scenario (s)), BENCH_SKIP_BUILD=1 (both
 * already built).
 */
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 3);

type Side = {
  name: "A" | "B";
  dir: string;
  port: number;
  baseUrl: string;
  group: number;
  processName: string;
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

async function main(): Promise<void> {
  const [dirA, dirB] = process.argv.slice(2).map((dir) => path.resolve(dir));
  if (!dirA || !dirB) throw new Error("usage: tsx bench/ab.ts <dirA> <dirB>");
  const { databaseUrl, drop } = await createBenchDatabase("marea_ab");
  const children = [];
  try {
    const sides: Side[] = [];
    for (const [index, dir] of [dirA, dirB].entries()) {
      const name = index === 0 ? "A" : "B";
      const env = {
        ...benchServerEnv(databaseUrl, path.join(dir, ".data/bench")),
        NODE_OPTIONS: [process.env.NODE_OPTIONS, process.env[`BENCH_AB_NODE_OPTIONS_${name}`]]
          .filter(Boolean)
          .join(" "),
        // BENCH_AB_ENV_A="DATABASE_POOL_SIZE=4": settings of one side only.
        ...Object.fromEntries(
          (process.env[`BENCH_AB_ENV_${name}`] ?? "")
            .split(/\s+/)
            .filter(Boolean)
            .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
        ),
      };
      if (process.env.BENCH_SKIP_BUILD !== "1") {
        process.stdout.write(`building ${name} (${dir})...\n`);
        const build = spawnSync("npx", ["next", "build"], { cwd: dir, env, stdio: "ignore" });
        if (build.status !== 0) throw new Error(`next build failed in ${dir}`);
      }
      const port = 3220 + index;
      // Each checkout as it starts in production: its custom server, or `next start` for one from before it.
      const hasProductionStart = productionStartOf(dir) !== null;
      const child = hasProductionStart
        ? startServer({ cwd: dir, port, env, node: process.env[`BENCH_AB_NODE_${name}`] })
        : startNext({ cwd: dir, port, env });
      children.push(child);
      const baseUrl = `http://127.0.0.1:${port}`;
      // One at a time: both run migrations at start-up (under an advisory lock).
      await waitForHttp(`${baseUrl}/healthz`);
      sides.push({
        name,
        dir,
        port,
        baseUrl,
        group: child.pid as number,
        processName: hasProductionStart ? SERVER_PROCESS : NEXT_PROCESS,
      });
    }
    const [a, b] = sides as [Side, Side];

    const developerKey = await createBenchDeveloperKey(databaseUrl, "ab");

    const env: BenchEnv = {
      baseUrl: a.baseUrl,
      databaseUrl,
      developerKey,
      floor: { name: "", reqPerSec: 0, p50: 0, p99: 0, errors: 0, non2xx: 0 },
    };
    const catalog = await prepareCatalogLoads(env);
    // B warms up too (A was warmed by the preparation).
    for (let i = 0; i < 30; i++) await fetch(`${b.baseUrl}/bench/floor`).then((r) => r.arrayBuffer());
    // (s): the cached public page of scenario (s), rendered and cached on each side before it is measured.
    const pickedLoads = process.env.BENCH_AB_LOADS ?? "b,d,e";
    const store = pickedLoads.split(",").includes("s") ? await createBenchStorefront(env) : null;
    for (const side of store ? sides : [])
      for (let i = 0; i < 3; i++)
        await fetch(`${side.baseUrl}/s/${store?.slug}`).then((r) => r.arrayBuffer());

    const allLoads: Array<{
      tag: string;
      options: (side: Side) => LoadOptions;
      before?: () => Promise<void>;
    }> = [
      { tag: "(b) floor", options: (side) => ({ url: `${side.baseUrl}/bench/floor` }) },
      { tag: "(d) PATCH", options: (side) => catalog.patch(side.baseUrl) },
      {
        tag: "(d2) PATCH+key",
        options: (side) => ({ ...catalog.patchIdempotent(side.baseUrl), durationSec: undefined }),
      },
      {
        tag: "(e) product",
        options: (side) => catalog.product(side.baseUrl),
        before: catalog.resetProductCounters,
      },
      { tag: "(s) store page", options: (side) => ({ url: `${side.baseUrl}/s/${store?.slug}` }) },
    ];
    // BENCH_AB_LOADS=b,d,d2,e picks loads (default b,d,e).
    const picked = pickedLoads.split(",").map((tag) => `(${tag})`);
    const loads = allLoads.filter((entry) => picked.includes(entry.tag.split(" ")[0] as string));
    const results = new Map<string, Figures[]>();
    // Round 0 is not counted: a fresh server needs tens of seconds of load before its figures settle (the JIT,
    // the heap), longer than the warm-up of one load.
    for (let round = 0; round <= ROUNDS; round++) {
      for (const { tag, options, before } of loads) {
        for (const side of round % 2 === 0 ? [a, b] : [b, a]) {
          await before?.();
          const figures = await load(`${tag} ${side.name}`, {
            ...options(side),
            processGroup: side.group,
            processName: side.processName,
          });
          const key = `${tag} ${side.name}`;
          if (round > 0) results.set(key, [...(results.get(key) ?? []), figures]);
          process.stdout.write(
            `round ${round}${round === 0 ? " (warm-up)" : ""} ${key.padEnd(14)} ${figures.reqPerSec.toFixed(0).padStart(6)} req/s  p50 ${figures.p50} p90 ${figures.p90} p99 ${String(figures.p99).padStart(4)} max ${figures.max} ms  cpu ${figures.serverCpuMsPerRequest?.toFixed(2)} ms/req (main thread ${figures.serverMainThreadCpuMsPerRequest?.toFixed(2)})  non2xx ${figures.non2xx}\n`,
          );
        }
      }
    }

    process.stdout.write(`\nA = ${a.dir}\nB = ${b.dir}\nmedians over ${ROUNDS} rounds:\n`);
    const floorRate = (side: Side) =>
      median((results.get(`(b) floor ${side.name}`) ?? []).map((f) => f.reqPerSec));
    for (const { tag } of loads) {
      const cells = [a, b].map((side) => {
        const runs = results.get(`${tag} ${side.name}`) ?? [];
        const rate = median(runs.map((f) => f.reqPerSec));
        const cpu = median(runs.map((f) => f.serverCpuMsPerRequest ?? Number.NaN));
        const mainThread = median(runs.map((f) => f.serverMainThreadCpuMsPerRequest ?? Number.NaN));
        const p99 = median(runs.map((f) => f.p99));
        return {
          rate,
          cpu,
          mainThread,
          text: `${side.name}: ${rate.toFixed(0)} req/s (${(rate / floorRate(side)).toFixed(2)}x its floor), p99 ${p99} ms, cpu ${cpu.toFixed(2)} ms/req (main thread ${mainThread.toFixed(2)})`,
        };
      });
      const [cellA, cellB] = cells as [(typeof cells)[0], (typeof cells)[0]];
      process.stdout.write(
        `${tag.padEnd(12)} ${cellA.text} | ${cellB.text} | B/A cpu ${(cellB.cpu / cellA.cpu).toFixed(2)}, main thread ${(cellB.mainThread / cellA.mainThread).toFixed(2)}\n`,
      );
    }
    await catalog.end();
  } finally {
    for (const child of children) stopProcess(child);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await drop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
