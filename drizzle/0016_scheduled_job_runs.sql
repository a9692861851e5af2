CREATE TABLE "scheduled_job_runs" (
	"job" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"host" text NOT NULL,
	"status" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"lease_until" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"error" text,
	CONSTRAINT "scheduled_job_runs_job_period_start_pk" PRIMARY KEY("job","period_start")
);
--> statement-breakpoint
CREATE INDEX "scheduled_job_runs_start_idx" ON "scheduled_job_runs" USING btree ("started_at");