import { dbReady } from "@/server/db/client";
import { runScheduledJob } from "@/server/jobs/scheduler";
import { deliverWebhookFunction, dispatchSweepFunction, inngest } from "@/server/webhooks/functions";
import { JOB_NAMES, JOBS } from "./jobs";

// The Inngest engine (docs/webhooks.md, "Engines"), apart from jobs.ts so that only app/api/inngest loads the
// Inngest client and its dependencies.

/** When each job runs under Inngest (UTC); jobs not listed run daily at 03:30. */
const JOB_CRONS: Record<string, string> = {
  "purge-deliveries": "15 3 * * *",
  // Unaccepted public orders hold stock: cancel them within 10 minutes of their expiry (docs/api.md).
  "expire-public-orders": "*/10 * * * *",
  "purge-idempotency-keys": "0 * * * *",
  "purge-rate-limits": "45 3 * * *",
};

/** Each job as an Inngest cron function (the Inngest engine; docs/webhooks.md, "Engines"). */
export const jobFunctions = JOB_NAMES.map((name) =>
  inngest.createFunction(
    { id: `job-${name}`, name: `Job: ${name}`, triggers: [{ cron: JOB_CRONS[name] ?? "30 3 * * *" }] },
    async ({ step }) => step.run(name, async () => runScheduledJob(JOBS, await dbReady(), name, new Date())),
  ),
);

/** Every function app/api/inngest serves: the webhook deliveries, their sweep, every job. */
export const inngestFunctions = [deliverWebhookFunction, dispatchSweepFunction, ...jobFunctions];
