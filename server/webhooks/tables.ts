import { sql } from "drizzle-orm";
import { boolean, index, integer, json, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { accounts } from "@/server/gate/tables";

/**
 * Webhook endpoints (docs/webhooks.md, "Endpoints"). The signing secret is stored encrypted (SECRETS_KEY).
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    scope: text("scope", { enum: ["developer", "merchant"] }).notNull(),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    enabled: boolean("enabled").notNull().default(true),
    subscribedEvents: text("subscribed_events").array().notNull(),
    secretCiphertext: text("secret_ciphertext").notNull(),
    signingSecretVersion: integer("signing_secret_version").notNull().default(1),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
    lastDeliveryAt: timestamp("last_delivery_at", { withTimezone: true, mode: "date" }),
    lastDeliveryStatus: text("last_delivery_status", { enum: ["success", "failure"] }),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
  },
  (t) => [index("webhook_endpoints_account_idx").on(t.accountId, t.id)],
);

/** One row per event that happened, written in the transaction of the change (transactional outbox). */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: text("id").primaryKey(),
    /** The envelope's `eventId` (UUID v4), the receivers' dedupe key. */
    eventId: text("event_id").notNull(),
    type: text("type").notNull(),
    /** The account the event is about. */
    accountId: text("account_id"),
    /**
     * The exact envelope sent: type, eventId, timestamp, apiVersion, data, __test. `json`, not `jsonb`: json
     * keeps the text as written, so every attempt sends (and signs) the very same bytes in the same key order.
     */
    envelope: json("envelope").notNull(),
    isTest: boolean("is_test").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    /**
     * Who the event was due to, decided once when it was recorded, by the same statement that picks its
     * deliveries (events.ts, `emitEvent`): the account whose merchant endpoints get it (the storefront's owner,
     * `order.*` only) and the developer account whose developer endpoints get it, with the key that bootstrapped
     * the event's account. Null when nobody of that kind is entitled (and on test fires). `GET /v1/events` lists
     * by these (docs/webhooks.md, "After an outage").
     */
    merchantAccountId: text("merchant_account_id"),
    developerAccountId: text("developer_account_id"),
    developerKeyId: text("developer_key_id"),
  },
  (t) => [
    index("webhook_events_created_idx").on(t.createdAt),
    // The events list of each audience, newest first by id (docs/api.md, "Events").
    index("webhook_events_merchant_idx")
      .on(t.merchantAccountId, t.id)
      .where(sql`merchant_account_id is not null`),
    index("webhook_events_developer_idx")
      .on(t.developerAccountId, t.id)
      .where(sql`developer_account_id is not null`),
    // `GET /v1/events/{id}` also takes the envelope's eventId.
    index("webhook_events_event_id_idx").on(t.eventId),
  ],
);

/**
 * One attempt as recorded in `attempts` (jsonb). The first five fields are what /v1 shows; the rest let the
 * dashboard show the exact request and answer (docs/webhooks.md, "Delivery log and test fires"). Attempts
 * recorded before those fields existed lack them.
 */
export type DeliveryAttempt = {
  n: number;
  at: string;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
  /** The URL the attempt was sent to (the endpoint's URL may change later). */
  url?: string;
  /** The X-Service-Signature header sent (a signature, never the secret); null when none could be made. */
  signature?: string | null;
  /** The endpoint's signingSecretVersion that signed the attempt. */
  signingSecretVersion?: number;
  /** The first 2 KiB of the response body. */
  responseBody?: string | null;
};

/** One row per (event, endpoint). Claimed by workers with FOR UPDATE SKIP LOCKED under an expiring lease. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    eventRowId: text("event_row_id")
      .notNull()
      .references(() => webhookEvents.id, { onDelete: "cascade" }),
    /** Deleting an endpoint deletes its deliveries (and stops the pending ones). */
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["pending", "delivered", "failed", "max_attempts_reached"] }).notNull(),
    attemptCount: integer("attempt_count").notNull().default(0),
    attempts: jsonb("attempts").$type<DeliveryAttempt[]>().notNull().default([]),
    firstDispatchAt: timestamp("first_dispatch_at", { withTimezone: true, mode: "date" }).notNull(),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }),
    leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "date" }),
    leaseOwner: text("lease_owner"),
    lastResponseBody: text("last_response_body"),
    /** A dashboard Resend or Recover: the delivery this one sends again (same event, new attempts). */
    resendOf: text("resend_of"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    // Only deliveries that still have an attempt to make are ever claimed.
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`status in ('pending', 'failed')`),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt),
    index("webhook_deliveries_created_idx").on(t.createdAt),
    // An event's deliveries: whether one to an endpoint answered 2xx (the events list's `undeliveredTo`), and the
    // purge's "events left without deliveries".
    index("webhook_deliveries_event_idx").on(t.eventRowId, t.endpointId),
    // The events an endpoint was due and has not answered 2xx for, newest first (`undeliveredTo`).
    index("webhook_deliveries_undelivered_idx")
      .on(t.endpointId, t.eventRowId)
      .where(sql`status <> 'delivered'`),
  ],
);
