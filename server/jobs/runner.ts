import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { observeJob } from "@/server/observability/metrics";

/** A scheduled job: what `npm run cli -- jobs list` says of it, and what it does at `now`. */
export type Job = { description: string; run: (db: Db, now: Date) => Promise<Record<string, unknown>> };

/** Jobs by name (server/wiring/jobs.ts holds the app's). */
export type JobTable = Readonly<Record<string, Job>>;

/** Runs the job `name` of `jobs` now; an unknown name is `invalid_request` naming the jobs there are. */
export async function runJob(
  jobs: JobTable,
  db: Db,
  name: string,
  now: Date,
): Promise<Record<string, unknown>> {
  const job = jobs[name];
  if (!job)
    throw new AppError("invalid_request", {
      param: "job",
      detail: `Unknown job "${name}". Jobs: ${Object.keys(jobs).join(", ")}`,
    });
  // Counted and timed by job and outcome (docs/operations.md, "Observability").
  return { job: name, ...(await observeJob(name, () => job.run(db, now))) };
}
