import postgres from "postgres";
import { env } from "@/server/env";
import { log } from "@/server/lib/log";
import { postgresOptions, reconnectBackoff } from "./client";

/**
 * `LISTEN` on PostgreSQL: ONE dedicated session per process, shared by every channel the process listens on (the
 * delivery worker's wake-ups, the public pages' invalidations), that survives the database going away
 * (docs/operations.md, "Database outages" and "Several machines").
 *
 * - The session is opened on DIRECT_DATABASE_URL (else DATABASE_URL): LISTEN taken through a pooler in transaction
 *   mode lands on whatever server connection is free and hears nothing (docs/operations.md, "Poolers").
 * - postgres.js's own `listen()` re-listens once when its connection closes and gives up silently if that one
 *   attempt fails (the database still away), leaving the process deaf for good. Here the connection is ours: when
 *   it closes, LISTEN is taken again with backoff until it succeeds, and each subscriber's `onListening` runs
 *   after every success so it can catch up on what it may have missed meanwhile (a NOTIFY sent while nobody
 *   listened is lost).
 * - The session lives while someone subscribes: the last `unsubscribe` closes it.
 */
export type NotificationHandlers = {
  onNotify: (payload: string) => void;
  /** After LISTEN is taken: the first time (`again` false) and after every loss of the session (`again` true). */
  onListening?: (info: { again: boolean }) => void;
};

type Subscription = { channel: string; handlers: NotificationHandlers; ready: boolean; everReady: boolean };

type Hub = { subscribe: (channel: string, handlers: NotificationHandlers) => () => Promise<void> };

const holder = globalThis as unknown as { __mareaListenHub?: Hub };

/**
 * Subscribes to a NOTIFY channel on this process's LISTEN session (PostgreSQL only; opened on first use).
 * Returns the unsubscribe function.
 */
export function subscribeNotifications(channel: string, handlers: NotificationHandlers): () => Promise<void> {
  const url = env().DIRECT_DATABASE_URL;
  if (!url) throw new Error("LISTEN needs PostgreSQL (DATABASE_URL)");
  holder.__mareaListenHub ??= createHub(url, () => {
    holder.__mareaListenHub = undefined;
  });
  return holder.__mareaListenHub.subscribe(channel, handlers);
}

function createHub(url: string, onEmpty: () => void): Hub {
  let stopped = false;
  let attempts = 0;
  let timer: NodeJS.Timeout | null = null;
  let taking = false;
  let takeAgain = false;
  const subscriptions = new Set<Subscription>();
  const listened = new Set<string>();
  const client = postgres(
    url,
    postgresOptions({
      max: 1,
      // One long-lived session: never recycled (a recycled connection would drop LISTEN without a close event
      // to take it again), no prepared statements, and no statement timeout to cut it.
      idle_timeout: null,
      max_lifetime: null,
      prepare: false,
      statementTimeout: false,
      onnotify: (notified: string, payload: string) => {
        for (const subscription of subscriptions) {
          if (subscription.channel !== notified) continue;
          try {
            subscription.handlers.onNotify(payload);
          } catch (error) {
            log("warn", "LISTEN: a notification handler failed", { channel: notified, error });
          }
        }
      },
      onclose: () => {
        listened.clear();
        for (const subscription of subscriptions) subscription.ready = false;
        if (!stopped) schedule();
      },
    }),
  );

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
    if (taking) {
      takeAgain = true;
      return;
    }
    taking = true;
    const channels = [...new Set([...subscriptions].map((s) => s.channel))];
    try {
      for (const channel of channels) {
        if (listened.has(channel)) continue;
        await client.unsafe(`listen "${channel.replace(/"/g, '""')}"`);
        listened.add(channel);
      }
      if (attempts > 0) log("info", "LISTEN taken again", { channels, attempts });
      attempts = 0;
      for (const subscription of subscriptions) {
        if (subscription.ready || !listened.has(subscription.channel)) continue;
        subscription.ready = true;
        const again = subscription.everReady;
        subscription.everReady = true;
        try {
          subscription.handlers.onListening?.({ again });
        } catch (error) {
          log("warn", "LISTEN: a catch-up handler failed", { channel: subscription.channel, error });
        }
      }
    } catch (error) {
      attempts++;
      if (attempts === 1) log("warn", "LISTEN lost: taking it again with backoff", { channels, error });
      schedule();
    } finally {
      taking = false;
      if (takeAgain && !stopped) {
        takeAgain = false;
        void take();
      }
    }
  }

  return {
    subscribe: (channel, handlers) => {
      const subscription: Subscription = { channel, handlers, ready: false, everReady: false };
      subscriptions.add(subscription);
      if (!stopped && !timer) void take();
      return async () => {
        if (!subscriptions.delete(subscription) || subscriptions.size > 0) return;
        stopped = true;
        onEmpty();
        if (timer) clearTimeout(timer);
        await client.end({ timeout: 2 });
      };
    },
  };
}
