import { mkdirSync } from "node:fs";
import { publishAdminChannel, setCurrentAdminChannel } from "@/server/cli/admin-channel";
import { databaseKind, dbReady } from "@/server/db/client";
import { env, isInngestConfigured } from "@/server/env";
import { log } from "@/server/lib/log";
import { isDevMailEnabled } from "@/server/mail/dev-mail";
import type { ChangeRelay } from "@/server/storefronts/change-relay";

const holder = globalThis as unknown as { __mareaChangeRelay?: ChangeRelay };

/** Runs once per server process from instrumentation.ts. */
export async function startServer(): Promise<void> {
  const config = env();
  mkdirSync(config.DATA_DIR, { recursive: true });
  await dbReady();
  log("info", "database ready", { kind: databaseKind() });
  if (databaseKind() === "pglite") {
    setCurrentAdminChannel(publishAdminChannel(config.PORT));
  } else {
    // Every process hears the storefront changes of every other, on any host (docs/operations.md, "Public
    // storefront cache"), whether or not it runs the worker.
    const { startStorefrontChangeRelay } = await import("@/server/storefronts/change-relay");
    holder.__mareaChangeRelay ??= startStorefrontChangeRelay();
  }
  if (!config.SMTP_URL)
    log(
      "warn",
      isDevMailEnabled()
        ? "SMTP_URL is not set: mail is kept in the database and shown at /dev/mail, to this machine only"
        : "SMTP_URL is not set and /dev/mail is off: mail is kept in the database and never sent",
    );
  if (config.UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS === "1") {
    log(
      "warn",
      "UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS=1: webhook URLs may be http:// and loopback. Never in production.",
    );
  }
  if (config.WORKER === "off") {
    log("info", "WORKER=off: no background worker in this process");
  } else if (isInngestConfigured()) {
    const { startInngestDispatcher } = await import("@/server/webhooks/functions");
    startInngestDispatcher();
    log("info", "webhook deliveries and scheduled jobs run as Inngest functions at /api/inngest");
  } else {
    const [{ ensureDeliveryWorker }, { ensureJobScheduler }] = await Promise.all([
      import("@/server/webhooks/worker"),
      import("@/server/wiring/jobs"),
    ]);
    const worker = ensureDeliveryWorker();
    // This process's share of the scheduled jobs, once per period across every process and host.
    ensureJobScheduler();
    log("info", "in-process webhook worker started", { worker: worker.id });
  }
}

/**
 * Graceful shutdown's last step, once no request is left (server/host/main.ts): stop the in-process worker
 * (its attempts in flight finish or go back to the queue under their lease) and close the database.
 */
export async function stopServer(): Promise<void> {
  const [{ stopDeliveryWorker }, { stopJobScheduler }, { closeDb }] = await Promise.all([
    import("@/server/webhooks/worker"),
    import("@/server/wiring/jobs"),
    import("@/server/db/client"),
  ]);
  stopJobScheduler();
  await stopDeliveryWorker();
  const relay = holder.__mareaChangeRelay;
  holder.__mareaChangeRelay = undefined;
  await relay?.stop();
  await closeDb();
}
