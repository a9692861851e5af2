CREATE TABLE "listen_session_events" (
	"session_id" text NOT NULL,
	"event_row_id" text NOT NULL,
	"seq" integer,
	"acked" boolean DEFAULT false NOT NULL,
	CONSTRAINT "listen_session_events_session_id_event_row_id_pk" PRIMARY KEY("session_id","event_row_id")
);
--> statement-breakpoint
CREATE TABLE "listen_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"key_id" text,
	"scope" text NOT NULL,
	"forward_to" text NOT NULL,
	"events" text[] NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"closed_at" timestamp with time zone,
	"closed_reason" text,
	"stream_token" text,
	"sent_count" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "listen_session_events" ADD CONSTRAINT "listen_session_events_session_id_listen_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."listen_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listen_session_events" ADD CONSTRAINT "listen_session_events_event_row_id_webhook_events_id_fk" FOREIGN KEY ("event_row_id") REFERENCES "public"."webhook_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listen_sessions" ADD CONSTRAINT "listen_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "listen_session_events_unsent_idx" ON "listen_session_events" USING btree ("session_id","event_row_id") WHERE seq is null and not acked;--> statement-breakpoint
CREATE INDEX "listen_session_events_event_idx" ON "listen_session_events" USING btree ("event_row_id");--> statement-breakpoint
CREATE INDEX "listen_sessions_account_idx" ON "listen_sessions" USING btree ("account_id","id");