import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { dbReady } from "@/server/db/client";
import { subscribeNotifications } from "@/server/db/listen";
import { log } from "@/server/lib/log";
import {
  EVERY_STOREFRONT,
  notifyStorefrontChanged,
  onStorefrontChanged,
  type StorefrontChange,
} from "./changes";

/**
 * Storefront changes between processes and hosts (docs/operations.md, "Public storefront cache"): every server
 * process on one PostgreSQL database hears every change the others make, and expires its public pages as the
 * process that made it does.
 *
 * - A change announced in this process (server/storefronts/changes.ts, after its commit) is sent with `NOTIFY`
 *   on the request pool (changes of the same moment go together in one statement; the payload names the
 *   sending process, which ignores its own).
 * - Every process `LISTEN`s on its LISTEN session (server/db/listen.ts, the one the delivery worker uses;
 *   DIRECT_DATABASE_URL when DATABASE_URL is a pooler) and announces what it hears as `remote` changes.
 * - A NOTIFY sent while a process did not listen is lost for it: so whenever LISTEN is taken (at start, and again
 *   after the session was lost), the process announces `EVERY_STOREFRONT`, and the page side expires every
 *   public page it holds.
 *
 * PostgreSQL only: the embedded database is one process, whose own announcements already reach its pages.
 */
export const STOREFRONT_CHANNEL = "marea_storefront_changes";

/** Changes per NOTIFY: each is an id and a slug, and PostgreSQL takes payloads under 8000 bytes. */
const BATCH = 40;

/** A NOTIFY that failed (the database away) is sent again for this long; past it, pages' revalidate covers it. */
const RETRY_FOR_MS = 60_000;

type Payload = { o: string; c: Array<[string] | [string, string]> };

export type ChangeRelay = { stop: () => Promise<void> };

export function startStorefrontChangeRelay(): ChangeRelay {
  const origin = randomBytes(8).toString("hex");
  const queue: StorefrontChange[] = [];
  let sending = false;
  let stopped = false;

  const offLocal = onStorefrontChanged((change, from) => {
    if (from !== "local" || change === EVERY_STOREFRONT || stopped) return;
    queue.push(change);
    if (!sending) {
      sending = true;
      setImmediate(() => void send());
    }
  });

  async function send(): Promise<void> {
    let failingSince: number | null = null;
    try {
      while (queue.length > 0 && !stopped) {
        const taken = queue.splice(0, BATCH);
        const payload: Payload = {
          o: origin,
          c: dedupe(taken).map((c) => (c.slug ? [c.storefrontId, c.slug] : [c.storefrontId])),
        };
        try {
          const db = await dbReady();
          await db.execute(sql`select pg_notify(${STOREFRONT_CHANNEL}, ${JSON.stringify(payload)})`);
          failingSince = null;
        } catch (error) {
          if (failingSince === null) log("warn", "storefront changes: NOTIFY failed, retrying", { error });
          failingSince ??= Date.now();
          if (Date.now() - failingSince > RETRY_FOR_MS) {
            log("error", "storefront changes not sent to other processes", { count: taken.length, error });
            failingSince = null;
          } else {
            queue.unshift(...taken);
            await new Promise((resolve) => setTimeout(resolve, 500).unref());
          }
        }
      }
    } finally {
      sending = false;
    }
  }

  const unsubscribe = subscribeNotifications(STOREFRONT_CHANNEL, {
    onNotify: (text) => {
      const payload = parsePayload(text);
      if (!payload || payload.o === origin) return;
      for (const [storefrontId, slug] of payload.c) notifyStorefrontChanged({ storefrontId, slug }, "remote");
    },
    onListening: ({ again }) => {
      // What was sent while this process was deaf is lost: every page it holds may be stale.
      if (again) log("info", "storefront changes: LISTEN taken again, expiring every public page");
      notifyStorefrontChanged(EVERY_STOREFRONT, "remote");
    },
  });

  return {
    stop: async () => {
      stopped = true;
      offLocal();
      await unsubscribe();
    },
  };
}

function dedupe(changes: StorefrontChange[]): StorefrontChange[] {
  const seen = new Map<string, StorefrontChange>();
  for (const change of changes) seen.set(`${change.storefrontId} ${change.slug ?? ""}`, change);
  return [...seen.values()];
}

function parsePayload(text: string): Payload | null {
  try {
    const value = JSON.parse(text) as Payload;
    if (typeof value?.o !== "string" || !Array.isArray(value.c)) return null;
    const changes = value.c.filter(
      (c): c is [string] | [string, string] =>
        Array.isArray(c) && typeof c[0] === "string" && (c[1] === undefined || typeof c[1] === "string"),
    );
    return { o: value.o, c: changes };
  } catch {
    return null;
  }
}
