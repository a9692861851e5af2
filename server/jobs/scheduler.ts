import { hostname } from "node:os";
import { sql } from "drizzle-orm";
import { type Db, dbReady, isDatabaseUnavailable, queryRows } from "@/server/db/client";
import { env } from "@/server/env";
import { log } from "@/server/lib/log";
import { type JobTable, runJob } from "./runner";

/**
 * The in-process scheduler (docs/operations.md, "Scheduled jobs"): every job runs once per period across every
 * process of every host on one database. Each process looks every minute for the jobs whose current period has
 * not run yet and claims them in ONE statement (a row per job and period in `scheduled_job_runs`, inserted by
 * exactly one process); it runs what it claimed and records the outcome. A claim whose process died is taken over
 * when its lease ends. Every run is logged with its host (`hostname:pid`).
 */

/** Each job's period; jobs not listed run hourly. */
const JOB_PERIODS_MS: Record<string, number> = {
  // Unaccepted public orders hold stock: cancel them within 10 minutes of their expiry (docs/api.md).
  "expire-public-orders": 10 * 60_000,
};
const DEFAULT_PERIOD_MS = 60 * 60_000;
const MAX_LEASE_MS = 10 * 60_000;
/** Runs older than this are dropped from `scheduled_job_runs`. */
const KEEP_RUNS_MS = 30 * 24 * 60 * 60_000;

/** The job's period (JOBS_PERIOD_SECONDS overrides every job's: tests and drills). */
export function jobPeriodMs(name: string): number {
  const override = env().JOBS_PERIOD_SECONDS;
  if (override) return override * 1000;
  return JOB_PERIODS_MS[name] ?? DEFAULT_PERIOD_MS;
}

/** Start of the period of `name` that holds `now` (periods are aligned on the epoch, so every host agrees). */
export function periodStart(name: string, now: Date): Date {
  const period = jobPeriodMs(name);
  return new Date(Math.floor(now.getTime() / period) * period);
}

/** This process, as runs and logs name it. */
export function hostId(): string {
  return `${hostname()}:${process.pid}`;
}

export type ClaimedRun = { job: string; periodStart: Date };

/** Claims, for this process, the jobs among `names` whose period holding `now` nobody has run or is running. */
export async function claimDueJobs(
  db: Db,
  names: readonly string[],
  now: Date,
  host = hostId(),
): Promise<ClaimedRun[]> {
  if (names.length === 0) return [];
  const rows = names.map((name) => {
    const start = periodStart(name, now);
    const leaseUntil = new Date(now.getTime() + Math.min(MAX_LEASE_MS, jobPeriodMs(name)));
    return sql`(${name}, ${start.toISOString()}::timestamptz, ${host}, 'running', ${now.toISOString()}::timestamptz, ${leaseUntil.toISOString()}::timestamptz)`;
  });
  const claimed = await queryRows<{ job: string; period_start: string | Date }>(
    db,
    sql`insert into scheduled_job_runs (job, period_start, host, status, started_at, lease_until)
        values ${sql.join(rows, sql`, `)}
        on conflict (job, period_start) do update
          set host = excluded.host, status = 'running', started_at = excluded.started_at,
              lease_until = excluded.lease_until, finished_at = null, error = null
          where scheduled_job_runs.status = 'running' and scheduled_job_runs.lease_until < excluded.started_at
        returning job, period_start`,
  );
  return claimed.map((r) => ({ job: r.job, periodStart: new Date(r.period_start) }));
}

async function finishRun(
  db: Db,
  run: ClaimedRun,
  outcome: { status: "done" | "failed"; error?: string },
  now: Date,
  host: string,
): Promise<void> {
  await db.execute(
    sql`update scheduled_job_runs set status = ${outcome.status}, finished_at = ${now.toISOString()}::timestamptz,
          error = ${outcome.error ?? null}
        where job = ${run.job} and period_start = ${run.periodStart.toISOString()}::timestamptz and host = ${host}`,
  );
}

/** Runs `name` now and logs it with its host; what the in-process scheduler and the Inngest crons call. */
export async function runScheduledJob(
  jobs: JobTable,
  db: Db,
  name: string,
  now: Date,
  period?: Date,
): Promise<Record<string, unknown>> {
  const started = Date.now();
  const result = await runJob(jobs, db, name, now);
  log("info", "scheduled job ran", {
    ...result,
    host: hostId(),
    ...(period ? { period: period.toISOString() } : {}),
    durationMs: Date.now() - started,
  });
  return result;
}

/**
 * Starts this process's share of the scheduled jobs: a look every minute (a quarter of the period when
 * JOBS_PERIOD_SECONDS is shorter), the first one a minute after start. Returns the function that stops it.
 */
export function startJobScheduler(jobs: JobTable, options: { db?: Db } = {}): () => void {
  const names = Object.keys(jobs);
  const host = hostId();
  const tickMs = Math.min(60_000, Math.max(250, Math.floor(Math.min(...names.map(jobPeriodMs)) / 4)));
  let running = true;
  let ticking = false;
  // A job that failed because the database was away runs again soon (30 s, doubling to 10 min), not a period
  // later: this process still holds its period's claim.
  const retryDelays = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();

  const runClaimed = async (db: Db, run: ClaimedRun): Promise<void> => {
    try {
      await runScheduledJob(jobs, db, run.job, new Date(), run.periodStart);
      retryDelays.delete(run.job);
      await finishRun(db, run, { status: "done" }, new Date(), host);
    } catch (error) {
      log("error", "scheduled job failed", {
        job: run.job,
        host,
        period: run.periodStart.toISOString(),
        error,
      });
      if (isDatabaseUnavailable(error) && running) {
        const delay = Math.min((retryDelays.get(run.job) ?? 15_000) * 2, 10 * 60_000);
        retryDelays.set(run.job, delay);
        const retry = setTimeout(() => {
          timers.delete(retry);
          void runClaimed(db, run);
        }, delay);
        retry.unref();
        timers.add(retry);
        return;
      }
      await finishRun(
        db,
        run,
        { status: "failed", error: String(error).slice(0, 500) },
        new Date(),
        host,
      ).catch(() => undefined);
    }
  };

  const tick = async (): Promise<void> => {
    if (ticking || !running) return;
    ticking = true;
    try {
      const db = options.db ?? (await dbReady());
      const now = new Date();
      const claimed = await claimDueJobs(db, names, now, host);
      if (claimed.length > 0)
        await db.execute(
          sql`delete from scheduled_job_runs where started_at < ${new Date(now.getTime() - KEEP_RUNS_MS).toISOString()}::timestamptz`,
        );
      for (const run of claimed) if (running) await runClaimed(db, run);
    } catch (error) {
      log("warn", "scheduled jobs: claim failed", { host, error });
    } finally {
      ticking = false;
    }
  };

  const first = setTimeout(() => void tick(), tickMs);
  const every = setInterval(() => void tick(), tickMs);
  first.unref();
  every.unref();
  return () => {
    running = false;
    clearTimeout(first);
    clearInterval(every);
    for (const timer of timers) clearTimeout(timer);
  };
}
