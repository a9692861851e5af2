import { index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * One row per scheduled job and period (docs/operations.md, "Scheduled jobs"): the process that inserts it runs
 * the job for that period, on whatever host, and no other does. A run whose process died is taken over once its
 * lease ends; a failed run lets go of its lease at once so that a retry (any process's) can take it.
 */
export const scheduledJobRuns = pgTable(
  "scheduled_job_runs",
  {
    job: text("job").notNull(),
    periodStart: timestamp("period_start", { withTimezone: true, mode: "date" }).notNull(),
    /** hostname:pid of the process that ran it (or runs it). */
    host: text("host").notNull(),
    status: text("status", { enum: ["running", "done", "failed"] }).notNull(),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }).notNull(),
    leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "date" }).notNull(),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
    error: text("error"),
  },
  (t) => [
    primaryKey({ columns: [t.job, t.periodStart] }),
    index("scheduled_job_runs_start_idx").on(t.startedAt),
  ],
);
