CREATE TABLE "account_limit_windows" (
	"key" text NOT NULL,
	"window_start" bigint NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "account_limit_windows_key_window_start_pk" PRIMARY KEY("key","window_start")
);
--> statement-breakpoint
CREATE TABLE "public_order_storefront_limits" (
	"key" text NOT NULL,
	"window_start" bigint NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "public_order_storefront_limits_key_window_start_pk" PRIMARY KEY("key","window_start")
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "verification_tries" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "verification_codes_issued" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "partner_access" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "owner_signed_in_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "bootstrap_daily_limit" integer;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "redacted_subject" text;--> statement-breakpoint
CREATE INDEX "account_limit_windows_window_idx" ON "account_limit_windows" USING btree ("window_start");--> statement-breakpoint
CREATE INDEX "public_order_storefront_limits_window_idx" ON "public_order_storefront_limits" USING btree ("window_start");--> statement-breakpoint
CREATE INDEX "orders_pending_public_idx" ON "orders" USING btree ("created_at") WHERE source = 'public' and order_status = 'pending';--> statement-breakpoint
-- Order lines keep each chosen group's title once (`groups`), not in every option (docs/api.md, "Orders").
UPDATE "orders" SET "items" = (
  SELECT jsonb_agg(
    CASE WHEN jsonb_typeof(e.item -> 'options') = 'array' AND jsonb_array_length(e.item -> 'options') > 0
    THEN (e.item - 'options') || jsonb_build_object(
      'groups', (
        SELECT jsonb_agg(jsonb_build_object('group', g.grp, 'title', g.title) ORDER BY g.grp)
        FROM (
          SELECT DISTINCT ON ((o ->> 'group')::int) (o ->> 'group')::int AS grp, coalesce(o ->> 'groupTitle', '') AS title
          FROM jsonb_array_elements(e.item -> 'options') AS o
          ORDER BY (o ->> 'group')::int
        ) AS g
      ),
      'options', (
        SELECT jsonb_agg(o.value - 'groupTitle' ORDER BY o.ordinality)
        FROM jsonb_array_elements(e.item -> 'options') WITH ORDINALITY AS o
      )
    )
    ELSE e.item END
    ORDER BY e.idx
  )
  FROM jsonb_array_elements("orders"."items") WITH ORDINALITY AS e(item, idx)
)
WHERE EXISTS (
  SELECT 1 FROM jsonb_array_elements("orders"."items") AS i
  WHERE jsonb_typeof(i -> 'options') = 'array'
    AND EXISTS (SELECT 1 FROM jsonb_array_elements(i -> 'options') AS o WHERE o ? 'groupTitle')
);
--> statement-breakpoint
-- Owners who already signed in to the dashboard (a session of theirs is still kept) have taken over their
-- account: their partner's access is off until they grant it (docs/api.md, "Partner access").
UPDATE "accounts" SET "owner_signed_in_at" = s.first_sign_in, "partner_access" = false
FROM (SELECT "account_id", min("created_at") AS first_sign_in FROM "sessions" GROUP BY "account_id") AS s
WHERE s."account_id" = "accounts"."id" AND "accounts"."owner_signed_in_at" IS NULL;
