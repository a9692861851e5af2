import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Db } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { emitEvent } from "@/server/webhooks/events";
import { DELIVERY_CHANNEL } from "@/server/webhooks/wake";
import type { BenchEnv, BenchRow } from "./env";
import { printFigures } from "./lib";

/**
 * Webhook delivery with the in-process engine on PostgreSQL (bench/README.md, "Benchmarks": scenarios (w1)
 * and (w2)).
 *
 * Events are committed from this process exactly as a domain change commits them: `emitEvent` inside a
 * transaction over postgres.js (the outbox row, the delivery row and the NOTIFY commit together). The clock
 * starts when the COMMIT returns and stops when the receiver (node:http, in this process, same clock) has
 * read the request. The server's worker learns of the commit through LISTEN/NOTIFY, claims and delivers.
 *
 * 1. Latency: one event at a time, 50 per second, p50 and p99 of commit -> receiver (targets p50 <= 10 ms,
 *    p99 <= 250 ms).
 * 2. Throughput: a backlog of BENCH_WEBHOOK_COUNT (default 5,000) deliveries released at once; deliveries per
 *    second from the release to the last arrival (target >= 800/s); p50/p99 there are times since the release.
 */
type Arrival = { at: number };

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

async function startReceiver(): Promise<{ server: Server; port: number; arrivals: Map<string, Arrival> }> {
  const arrivals = new Map<string, Arrival>();
  const server = createServer((req, res) => {
    const id = String(req.headers["x-service-event-id"] ?? "");
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (!arrivals.has(id)) arrivals.set(id, { at: performance.now() });
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, arrivals };
}

async function api<T>(env: BenchEnv, method: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${env.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${env.developerKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

export async function runWebhookBench(env: BenchEnv): Promise<BenchRow[]> {
  const receiver = await startReceiver();
  const client = postgres(env.databaseUrl, { max: 8, onnotice: () => {} });
  const db = drizzle(client) as unknown as Db;
  try {
    await api(env, "POST", "/v1/webhook_endpoints", {
      url: `http://127.0.0.1:${receiver.port}/bench`,
      subscribedEvents: ["user.verified"],
      description: "bench",
    });
    const user = await api<{ user: { id: string; developerKeyId: string } }>(env, "POST", "/v1/users", {
      email: `bench-hooks-${Date.now()}@example.com`,
    });
    const userId = user.user.id;
    const developerKeyId = user.user.developerKeyId;
    const emitOne = async (tx: Db) =>
      emitEvent(
        tx,
        {
          type: "user.verified",
          accountId: userId,
          data: { userId, developerKeyId, verifiedAt: new Date().toISOString() },
        },
        new Date(),
      );

    // Warm-up: the server's first deliveries compile code paths and open connections.
    const warm: string[] = [];
    for (let i = 0; i < 50; i++) warm.push((await inTransaction(db, (tx) => emitOne(tx))).eventId);
    await waitFor(() => warm.every((id) => receiver.arrivals.has(id)), 30_000);

    // 1. Latency, one event at a time.
    const latencyCount = Number(process.env.BENCH_WEBHOOK_LATENCY_COUNT ?? 300);
    const committed = new Map<string, number>();
    const startedLatency = performance.now();
    for (let i = 0; i < latencyCount; i++) {
      const event = await inTransaction(db, (tx) => emitOne(tx));
      committed.set(event.eventId, performance.now());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const latencyDone = await waitFor(
      () => [...committed.keys()].every((id) => receiver.arrivals.has(id)),
      30_000,
    );
    const latencySeconds = (performance.now() - startedLatency) / 1000;
    const latencies = [...committed.entries()]
      .map(([id, at]) => (receiver.arrivals.get(id)?.at ?? Number.NaN) - at)
      .filter((v) => Number.isFinite(v))
      .sort((a, b) => a - b);
    const latencyRow: BenchRow = {
      name: "(w1) webhook commit -> receiver, 1 at a time",
      reqPerSec: latencyCount / latencySeconds,
      p50: Math.round(percentile(latencies, 50) * 10) / 10,
      p99: Math.round(percentile(latencies, 99) * 10) / 10,
      errors: latencyDone ? 0 : latencyCount - latencies.length,
      non2xx: 0,
    };

    // 2. Throughput: a backlog is committed due an hour from now (so committing it is not what is measured),
    // then released at once: every delivery due now, one NOTIFY. Deliveries/s from the release to the last arrival.
    const total = Number(process.env.BENCH_WEBHOOK_COUNT ?? 5000);
    const batch = 100;
    const backlog = new Set<string>();
    const later = new Date(Date.now() + 3_600_000);
    let next = 0;
    const writer = async () => {
      while (next < total) {
        const size = Math.min(batch, total - next);
        next += size;
        const events = await inTransaction(db, async (tx) => {
          const out = [];
          for (let i = 0; i < size; i++)
            out.push(
              await emitEvent(
                tx,
                {
                  type: "user.verified",
                  accountId: userId,
                  data: { userId, developerKeyId, verifiedAt: new Date().toISOString() },
                },
                later,
              ),
            );
          return out;
        });
        for (const e of events) backlog.add(e.eventId);
      }
    };
    await Promise.all([writer(), writer(), writer(), writer()]);
    await client`update webhook_deliveries set next_attempt_at = now() where next_attempt_at > now() + interval '30 minutes'`;
    const started = performance.now();
    await client`select pg_notify(${DELIVERY_CHANNEL}, '')`;
    const throughputDone = await waitFor(
      () => [...backlog].every((id) => receiver.arrivals.has(id)),
      120_000,
    );
    const lastArrival = Math.max(...[...backlog].map((id) => receiver.arrivals.get(id)?.at ?? 0));
    const seconds = (lastArrival - started) / 1000;
    const delays = [...backlog]
      .map((id) => (receiver.arrivals.get(id)?.at ?? Number.NaN) - started)
      .filter((v) => Number.isFinite(v))
      .sort((a, b) => a - b);
    const rate = delays.length / seconds;
    const throughputRow: BenchRow = {
      name: `(w2) webhook deliveries/s, ${total} released at once`,
      reqPerSec: rate,
      p50: Math.round(percentile(delays, 50)),
      p99: Math.round(percentile(delays, 99)),
      errors: throughputDone ? 0 : total - delays.length,
      non2xx: 0,
      ratio: { to: "800 deliveries/s", value: rate / 800, target: 1 },
    };

    const rows = [latencyRow, throughputRow];
    printFigures(rows);
    process.stdout.write(
      `webhooks: commit->receiver p50 ${latencyRow.p50} ms (target <= 10), p99 ${latencyRow.p99} ms (target <= 250); ` +
        `${rate.toFixed(0)} deliveries/s (target >= 800)\n`,
    );
    return rows;
  } finally {
    await client.end({ timeout: 5 });
    receiver.server.closeAllConnections();
    await new Promise((resolve) => receiver.server.close(resolve));
  }
}
