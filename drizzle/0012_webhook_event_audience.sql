ALTER TABLE "webhook_events" ADD COLUMN "merchant_account_id" text;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "developer_account_id" text;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "developer_key_id" text;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_event_idx" ON "webhook_deliveries" USING btree ("event_row_id","endpoint_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_undelivered_idx" ON "webhook_deliveries" USING btree ("endpoint_id","event_row_id") WHERE status <> 'delivered';--> statement-breakpoint
CREATE INDEX "webhook_events_merchant_idx" ON "webhook_events" USING btree ("merchant_account_id","id") WHERE merchant_account_id is not null;--> statement-breakpoint
CREATE INDEX "webhook_events_developer_idx" ON "webhook_events" USING btree ("developer_account_id","id") WHERE developer_account_id is not null;--> statement-breakpoint
CREATE INDEX "webhook_events_event_id_idx" ON "webhook_events" USING btree ("event_id");