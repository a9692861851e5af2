-- Custom migration: who each event already recorded was due to, by the rules `emitEvent` applies to new ones
-- (server/webhooks/events.ts, `recipientsOf`), so `GET /v1/events` lists the events of the last 30 days from the
-- first day. `order.*`: the storefront's owner, and the bootstrapping key's developer account if that key was not
-- revoked yet when the event was recorded; `user.*`: that developer account, revoked or not. Test fires: nobody.
UPDATE "webhook_events" SET "merchant_account_id" = "account_id"
  WHERE "type" LIKE 'order.%' AND NOT "is_test" AND "account_id" IS NOT NULL AND "merchant_account_id" IS NULL;--> statement-breakpoint
UPDATE "webhook_events" ev SET "developer_account_id" = k."account_id", "developer_key_id" = k."id"
  FROM "accounts" a JOIN "api_keys" k ON k."id" = a."developer_key_id"
  WHERE a."id" = ev."account_id" AND NOT ev."is_test" AND ev."developer_account_id" IS NULL
    AND (ev."type" NOT LIKE 'order.%' OR k."revoked_at" IS NULL OR k."revoked_at" > ev."created_at");
