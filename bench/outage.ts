import { spawnSync } from "node:child_process";
import path from "node:path";
import { createBenchDatabase } from "./lib";

/**
 * `npx tsx bench/outage.ts`: the database-outage drill (docs/operations.md, "Database outages";
 * server/testing/outage-drill.ts) against the production start, repeated: PostgreSQL is cut for OUTAGE_CUT_MS
 * (8000) by a TCP proxy between the server and the database, OUTAGE_RUNS (5) times in each mode (`reset`:
 * every connection dropped, new ones dropped too; `refuse`: the port closed), while OUTAGE_CLIENTS (8) partners
 * place orders with an Idempotency-Key and retry on 5xx. A baseline run with no cut comes first, in the same run.
 * Prints, per run: requests over 10 s, the slowest request, time from the database's return to /healthz and
 * /v1/me answering 200, orders placed once / intended, duplicates, 409 in-progress answers after the return,
 * when the last retried order was answered, events delivered / committed and when the last one arrived, and the
 * server's uncaught exceptions. BENCH_SKIP_BUILD=1 skips `next build`.
 */
const RUNS = Number(process.env.OUTAGE_RUNS ?? 5);
const CUT_MS = Number(process.env.OUTAGE_CUT_MS ?? 8000);
const CLIENTS = Number(process.env.OUTAGE_CLIENTS ?? 8);

async function main(): Promise<void> {
  const { databaseUrl, drop } = await createBenchDatabase("marea_outage");
  process.env.DATABASE_URL = databaseUrl;
  process.env.UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS = "1";
  process.env.LOG_LEVEL = "error";
  const dataDir = path.resolve(".data/bench-outage");
  process.env.DATA_DIR = dataDir;
  const { startTcpProxy } = await import("@/server/testing/tcp-proxy");
  const { startProductionServer } = await import("@/server/testing/production-server");
  const { runOutageDrill } = await import("@/server/testing/outage-drill");
  const { startReceiver, createTestEndpoint } = await import("@/server/webhooks/testing");
  const { createDeveloper } = await import("@/server/accounts/testing");
  const { createMerchant } = await import("@/server/storefronts/testing");
  const { createStorefrontWithProduct } = await import("@/server/orders/testing");
  const { closeDb, dbReady } = await import("@/server/db/client");

  if (process.env.BENCH_SKIP_BUILD !== "1") {
    process.stdout.write("building (next build)...\n");
    const build = spawnSync("npx", ["next", "build"], {
      env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
      stdio: "ignore",
    });
    if (build.status !== 0) throw new Error("next build failed");
  }

  const target = new URL(databaseUrl);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const receiver = await startReceiver();
  const server = await startProductionServer({
    DATABASE_URL: proxy.url(databaseUrl),
    DATA_DIR: dataDir,
    UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
    LOG_LEVEL: "warn",
  });
  try {
    const developer = await createDeveloper();
    const merchant = await createMerchant({ developerKey: developer.key });
    await createTestEndpoint(developer.key, { url: receiver.url, subscribedEvents: ["order.created"] });
    const { storefrontId, productId } = await createStorefrontWithProduct(merchant.userKey, { stock: null });
    const setup = {
      baseUrl: server.baseUrl,
      proxy,
      db: await dbReady(),
      receiver,
      userKey: merchant.userKey,
      storefrontId,
      productId,
      serverOutput: server.output,
    };
    const drill = { clients: CLIENTS, beforeMs: 2000, afterMs: 3000 };
    const rows = [];
    rows.push({
      label: "baseline (no cut)",
      ...(await runOutageDrill(setup, { ...drill, mode: "reset", cutMs: 0, run: "baseline" })),
    });
    for (const mode of ["reset", "refuse"] as const)
      for (let i = 1; i <= RUNS; i++) {
        const figures = await runOutageDrill(setup, { ...drill, mode, cutMs: CUT_MS, run: `${mode}-${i}` });
        rows.push({ label: `${mode} #${i}, ${CUT_MS / 1000} s cut`, ...figures });
        process.stdout.write(`${rows.at(-1)?.label}: done\n`);
      }
    print(rows, CUT_MS);
  } finally {
    await server.stop();
    await receiver.close();
    await proxy.close();
    await closeDb();
    await drop();
  }
}

type Row = { label: string } & Awaited<
  ReturnType<typeof import("@/server/testing/outage-drill").runOutageDrill>
>;

function print(rows: Row[], cutMs: number): void {
  const baseline = rows[0];
  const header = [
    "run",
    ">10s",
    "max req ms",
    "health back ms",
    "/v1/me back ms",
    "orders once/intended",
    "dup",
    "409 after return",
    "retries done ms",
    "events delivered",
    "eventId conflicts",
    "last event ms",
    "uncaught",
  ];
  const lines = rows.map((r) => [
    r.label,
    r.slowRequests,
    r.maxRequestMs,
    r.label.startsWith("baseline") ? "-" : r.healthBackMs,
    r.label.startsWith("baseline") ? "-" : r.meBackMs,
    `${r.ordersPlaced}/${r.ordersIntended}`,
    r.duplicates,
    r.inProgressAfterReturn,
    r.label.startsWith("baseline") ? "-" : r.retriesDoneMs,
    `${r.eventsDelivered}/${r.eventsExpected}`,
    r.eventIdConflicts,
    r.label.startsWith("baseline") ? "-" : r.lastDeliveryMs,
    r.uncaughtExceptions,
  ]);
  process.stdout.write(`\n${[header, ...lines].map((l) => l.join(" | ")).join("\n")}\n`);
  const cuts = rows.slice(1);
  const worst = (pick: (r: Row) => number) => Math.max(...cuts.map(pick));
  process.stdout.write(
    `\nworst of ${cuts.length} cuts of ${cutMs / 1000} s: requests >10 s ${worst((r) => r.slowRequests)}, ` +
      `slowest request ${worst((r) => r.maxRequestMs)} ms (baseline ${baseline?.maxRequestMs} ms, ` +
      `${(worst((r) => r.maxRequestMs) / Math.max(1, baseline?.maxRequestMs ?? 1)).toFixed(1)}x), ` +
      `back within ${worst((r) => Math.max(r.healthBackMs, r.meBackMs))} ms, ` +
      `duplicates ${worst((r) => r.duplicates)}, missing orders ${worst((r) => r.ordersIntended - r.ordersPlaced)}, ` +
      `409 after return ${worst((r) => r.inProgressAfterReturn)}, retries done ${worst((r) => r.retriesDoneMs)} ms, ` +
      `events missing ${worst((r) => r.eventsExpected - r.eventsDelivered)}, last event ${worst((r) => r.lastDeliveryMs)} ms ` +
      `after the return, uncaught exceptions ${worst((r) => r.uncaughtExceptions)}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
