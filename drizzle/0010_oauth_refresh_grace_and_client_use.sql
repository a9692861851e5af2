ALTER TABLE "oauth_clients" ADD COLUMN "granted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "oauth_tokens" ADD COLUMN "replay" text;--> statement-breakpoint
CREATE INDEX "oauth_grants_client_idx" ON "oauth_grants" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "oauth_tokens_client_idx" ON "oauth_tokens" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "oauth_tokens_replay_idx" ON "oauth_tokens" USING btree ("used_at") WHERE "oauth_tokens"."replay" is not null;