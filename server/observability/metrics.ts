import cluster from "node:cluster";
import client from "prom-client";
import { env } from "@/server/env";

/**
 * The Prometheus metrics of one process (docs/operations.md, "Observability"). Off unless METRICS_TOKEN or
 * METRICS_PORT is set: then `metrics()` is null and every caller skips its counting.
 *
 * The production start (server/host/main.ts) and Next's bundle (instrumentation.ts and the services) are two
 * module graphs in one process. prom-client is a server-external package (next.config.ts), so both load the same
 * copy and its global registry; the metric objects are kept on `globalThis` under a registered symbol, so both
 * graphs count into the same ones. In a cluster (WEB_CONCURRENCY > 1) the primary asks every worker for its
 * registry and answers their sum (prom-client's AggregatorRegistry).
 */

export type QueueFacts = { open: number; due: number; oldestDueAgeSeconds: number };

/** What the pool wrapper (server/db/round-trips.ts) counts, read at scrape time. */
export type PoolFacts = {
  max: number;
  /** Transactions holding a reserved connection. */
  reserved: number;
  /** Transactions waiting for a connection to reserve. */
  waitingReserve: number;
  /** Pooled statements issued and not settled; those not handed to a connection yet are waiting. */
  pending: Set<{ state?: unknown }>;
};

export type Metrics = {
  httpRequests: client.Counter<"door" | "route" | "method" | "status">;
  httpDuration: client.Histogram<"door" | "route" | "method" | "status">;
  webhookAttempts: client.Counter<"outcome">;
  webhookAttemptDuration: client.Histogram<"outcome">;
  jobRuns: client.Counter<"job" | "outcome">;
  jobDuration: client.Histogram<"job" | "outcome">;
  pool: PoolFacts;
  /** Set by instrumentation.ts: the delivery queue, queried when scraped. */
  queueProbe?: () => Promise<QueueFacts>;
};

const KEY = Symbol.for("marea.metrics");
const holder = globalThis as { [KEY]?: Metrics | null };

export function metricsEnabled(): boolean {
  const config = env();
  return Boolean(config.METRICS_TOKEN || config.METRICS_PORT);
}

/** This process's metrics, or null when metrics are off. */
export function metrics(): Metrics | null {
  if (holder[KEY] !== undefined) return holder[KEY];
  holder[KEY] = metricsEnabled() ? create() : null;
  return holder[KEY];
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function create(): Metrics {
  const registry = client.register;
  client.collectDefaultMetrics({ register: registry });
  // A cluster's worker answers the primary's requests for its registry (server/host/metrics-server.ts).
  if (cluster.isWorker) new client.AggregatorRegistry();
  const pool: PoolFacts = { max: 0, reserved: 0, waitingReserve: 0, pending: new Set() };
  const created: Metrics = {
    httpRequests: new client.Counter({
      name: "marea_http_requests_total",
      help: "HTTP requests answered, by door, route pattern, method and status",
      labelNames: ["door", "route", "method", "status"],
    }),
    httpDuration: new client.Histogram({
      name: "marea_http_request_duration_seconds",
      help: "Time from a request's arrival to the end of its answer, by door, route pattern, method and status",
      labelNames: ["door", "route", "method", "status"],
      buckets: LATENCY_BUCKETS,
    }),
    webhookAttempts: new client.Counter({
      name: "marea_webhook_attempts_total",
      help: "Webhook delivery attempts by outcome (success, http_error, timeout, connection, blocked, error, skipped)",
      labelNames: ["outcome"],
    }),
    webhookAttemptDuration: new client.Histogram({
      name: "marea_webhook_attempt_duration_seconds",
      help: "Duration of webhook delivery attempts (the receiver's answer or the failure), by outcome",
      labelNames: ["outcome"],
      buckets: LATENCY_BUCKETS,
    }),
    jobRuns: new client.Counter({
      name: "marea_job_runs_total",
      help: "Scheduled job runs by job and outcome (ok, error)",
      labelNames: ["job", "outcome"],
    }),
    jobDuration: new client.Histogram({
      name: "marea_job_duration_seconds",
      help: "Scheduled job run durations by job and outcome",
      labelNames: ["job", "outcome"],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
    }),
    pool,
  };

  // The delivery queue, asked once per scrape for its three gauges (every process sees the same queue: in a
  // cluster the sum would count it N times, so these aggregate as "max").
  let probe: { at: number; facts: Promise<QueueFacts | null> } | undefined;
  const queueFacts = (): Promise<QueueFacts | null> => {
    const now = Date.now();
    if (!probe || now - probe.at > 1000) {
      const run = created.queueProbe;
      probe = { at: now, facts: run ? run().catch(() => null) : Promise.resolve(null) };
    }
    return probe.facts;
  };
  const queueGauge = (name: string, help: string, pick: (facts: QueueFacts) => number) =>
    new client.Gauge({
      name,
      help,
      aggregator: "max",
      async collect() {
        const facts = await queueFacts();
        // A scrape while the database is away: the gauge says nothing rather than 0.
        if (facts) this.set(pick(facts));
        else this.reset();
      },
    });
  queueGauge(
    "marea_webhook_queue_open",
    "Webhook deliveries still to attempt (pending, or failed with a retry scheduled)",
    (f) => f.open,
  );
  queueGauge("marea_webhook_queue_due", "Webhook deliveries due now and not yet attempted", (f) => f.due);
  queueGauge(
    "marea_webhook_queue_oldest_due_age_seconds",
    "How long the oldest due delivery has been waiting past its due time (0: none due)",
    (f) => f.oldestDueAgeSeconds,
  );

  const poolGauge = (name: string, help: string, read: () => number) =>
    new client.Gauge({
      name,
      help,
      collect() {
        this.set(read());
      },
    });
  poolGauge(
    "marea_db_pool_max",
    "Database connections this process may open (DATABASE_POOL_SIZE)",
    () => pool.max,
  );
  poolGauge(
    "marea_db_pool_reserved",
    "Database connections held by a transaction right now",
    () => pool.reserved,
  );
  poolGauge(
    "marea_db_pool_waiters",
    "Statements and transactions waiting for a database connection right now",
    () => {
      let waiting = pool.waitingReserve;
      for (const query of pool.pending) if (!query.state) waiting++;
      return waiting;
    },
  );
  poolGauge(
    "marea_db_statements_in_flight",
    "Pooled statements issued and not answered yet (waiting or running)",
    () => pool.pending.size,
  );
  return created;
}

/** The text a scrape answers: this process's registry, or in a cluster's primary the sum of its workers'. */
export async function metricsText(): Promise<string> {
  return client.register.metrics();
}

export const METRICS_CONTENT_TYPE = client.register.contentType;

/** Times `run`, counting it as a job run (server/jobs/runner.ts). */
export async function observeJob<T>(job: string, run: () => Promise<T>): Promise<T> {
  const m = metrics();
  if (!m) return run();
  const end = m.jobDuration.startTimer({ job });
  try {
    const result = await run();
    m.jobRuns.inc({ job, outcome: "ok" });
    end({ outcome: "ok" });
    return result;
  } catch (error) {
    m.jobRuns.inc({ job, outcome: "error" });
    end({ outcome: "error" });
    throw error;
  }
}
