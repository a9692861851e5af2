/**
 * A standalone delivery worker process: `npx tsx server/webhooks/run-worker.ts`. Runs the same in-process
 * engine as the server (claims with SKIP LOCKED under leases), so extra workers can be added beside the web
 * servers on one PostgreSQL database. Used by the crash-recovery and two-worker tests. Prints
 * `worker ready <id> pid=<pid>` once running (tsx runs the script in a child process: signal that pid) and `worker stopped attempts=<n>` after SIGTERM.
 */
import { closeDb, dbReady } from "@/server/db/client";
import { startDeliveryWorker } from "./worker";

async function main(): Promise<void> {
  await dbReady();
  const worker = startDeliveryWorker();
  process.stdout.write(`worker ready ${worker.id} pid=${process.pid}\n`);
  const keepAlive = setInterval(() => {}, 60_000);
  process.once("SIGTERM", () => {
    void (async () => {
      await worker.stop();
      clearInterval(keepAlive);
      process.stdout.write(`worker stopped attempts=${worker.stats().attempts}\n`);
      await closeDb();
      process.exit(0);
    })();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
