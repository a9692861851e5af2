CREATE TABLE "files" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"frames" integer DEFAULT 1 NOT NULL,
	"stored_bytes" integer NOT NULL,
	"variants" jsonb,
	"source_url" text,
	"created_at" timestamp with time zone NOT NULL,
	"unreferenced_since" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "image_file_id" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "thumbnail_generated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "files_account_idx" ON "files" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "files_unreferenced_idx" ON "files" USING btree ("unreferenced_since");