CREATE TABLE "public_order_rate_limits" (
	"key" text NOT NULL,
	"window_start" bigint NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "public_order_rate_limits_key_window_start_pk" PRIMARY KEY("key","window_start")
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "status_token_hash" text;--> statement-breakpoint
ALTER TABLE "storefronts" ADD COLUMN "time_zone" text;--> statement-breakpoint
ALTER TABLE "storefronts" ADD COLUMN "payment_methods" jsonb;--> statement-breakpoint
CREATE INDEX "public_order_rate_limits_window_idx" ON "public_order_rate_limits" USING btree ("window_start");