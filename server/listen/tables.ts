import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { accounts } from "@/server/gate/tables";
import { webhookEvents } from "@/server/webhooks/tables";

/**
 * `marea listen` sessions (docs/webhooks.md, "Local development: marea listen"): a stream of the account's events
 * to one developer's machine, which forwards them to a local URL signed with the session's own secret.
 */
export const listenSessions = pgTable(
  "listen_sessions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** The key that opened it (a session is opened by a CLI with a key); revoking the key closes the stream. */
    keyId: text("key_id"),
    /** Whose events it receives: `developer` (a developer key's) or `merchant` (a user key's), as GET /v1/events. */
    scope: text("scope", { enum: ["developer", "merchant"] }).notNull(),
    /** Where the CLI says it forwards (shown in the dashboard; the service never calls it). */
    forwardTo: text("forward_to").notNull(),
    events: text("events").array().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    /** Last time a stream of this session was connected (updated at most every 30 s while it is). */
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true, mode: "date" }).notNull(),
    closedAt: timestamp("closed_at", { withTimezone: true, mode: "date" }),
    closedReason: text("closed_reason", { enum: ["cli", "dashboard", "idle", "key_revoked"] }),
    /** The connection that owns the stream now: a new connection takes over, the old one ends. */
    streamToken: text("stream_token"),
    /** How many events were written to this session's streams: the next one's `seq`. */
    sentCount: integer("sent_count").notNull().default(0),
  },
  (t) => [index("listen_sessions_account_idx").on(t.accountId, t.id)],
);

/**
 * The events due to a session, written with the event (server/webhooks/events.ts). `seq` is the order in which the
 * stream wrote it (null: not written since the last reconnection); `acked` once a reconnection's `Last-Event-ID`
 * showed the CLI received it. A reconnection acks up to that event's `seq` and sends the rest again: nothing lost,
 * nothing twice (docs/webhooks.md, "Reconnecting").
 */
export const listenSessionEvents = pgTable(
  "listen_session_events",
  {
    sessionId: text("session_id")
      .notNull()
      .references(() => listenSessions.id, { onDelete: "cascade" }),
    eventRowId: text("event_row_id")
      .notNull()
      .references(() => webhookEvents.id, { onDelete: "cascade" }),
    seq: integer("seq"),
    acked: boolean("acked").notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.sessionId, t.eventRowId] }),
    // What the stream still has to write, oldest first.
    index("listen_session_events_unsent_idx")
      .on(t.sessionId, t.eventRowId)
      .where(sql`seq is null and not acked`),
    // The purge of events deletes by event.
    index("listen_session_events_event_idx").on(t.eventRowId),
  ],
);
