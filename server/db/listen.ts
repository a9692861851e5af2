import postgres from "postgres";
import { log } from "@/server/lib/log";
import { postgresOptions, reconnectBackoff } from "./client";

/**
 * `LISTEN` on PostgreSQL that survives the database going away (docs/operations.md, "Database outages").
 *
 * postgres.js's own `listen()` re-listens once when its connection closes and gives up silently if that one
 * attempt fails (the database still away), leaving the process deaf for good. Here the connection is ours: when
 * it closes, LISTEN is taken again with backoff until it succeeds, and `onListening` runs after every success so
 * the caller can catch up on what it may have missed meanwhile (a NOTIFY sent while nobody listened is lost).
 */
export type Listener = { stop: () => Promise<void> };

export function listenWithReconnect(
  url: string,
  channel: string,
  handlers: { onNotify: (payload: string) => void; onListening?: () => void },
): Listener {
  let stopped = false;
  let attempts = 0;
  let timer: NodeJS.Timeout | null = null;
  const client = postgres(
    url,
    postgresOptions({
      max: 1,
      // One long-lived session: never recycled (a recycled connection would drop LISTEN without a close event
      // to take it again), and no statement timeout to cut it.
      idle_timeout: null,
      max_lifetime: null,
      statementTimeout: false,
      onnotify: (notified: string, payload: string) => {
        if (notified === channel) handlers.onNotify(payload);
      },
      onclose: () => {
        if (!stopped) schedule();
      },
    }),
  );

  const quoted = `"${channel.replace(/"/g, '""')}"`;

  function schedule(): void {
    if (stopped || timer) return;
    timer = setTimeout(
      () => {
        timer = null;
        void take();
      },
      attempts === 0 ? 0 : reconnectBackoff(attempts) * 1000,
    );
    timer.unref();
  }

  async function take(): Promise<void> {
    try {
      await client.unsafe(`listen ${quoted}`);
      if (attempts > 0) log("info", "LISTEN taken again", { channel, attempts });
      attempts = 0;
      handlers.onListening?.();
    } catch (error) {
      attempts++;
      if (attempts === 1) log("warn", "LISTEN lost: taking it again with backoff", { channel, error });
      schedule();
    }
  }

  schedule();

  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await client.end({ timeout: 2 });
    },
  };
}
