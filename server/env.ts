import { z } from "zod";
import { parseAddressRanges } from "@/server/lib/ip";

/**
 * Every environment variable the service reads, validated once (README.md, "Configuration"; .env.example lists
 * them all).
 * Read through `env()` so tests that change `process.env` before the first call are honoured.
 */
const EnvSchema = z.object({
  NODE_ENV: z.string().default("development"),
  PORT: z.coerce.number().int().positive().default(3000),
  /**
   * The interface the production start listens on (server/host/main.ts); unset: every interface, but 127.0.0.1
   * while SMTP_URL and DEV_MAIL are unset (docs/security.md, "/dev/mail").
   */
  HOST: z.string().min(1).optional(),
  /**
   * Server processes of the production start, sharing PORT (docs/operations.md, "Several processes"). More than
   * one needs DATABASE_URL: the embedded database is one process per folder.
   */
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(1),
  APP_URL: z.url().default("http://localhost:3000"),
  /** Where the MCP server is reached (docs/mcp.md, "Endpoints"); default `{APP_URL}/mcp`. */
  MCP_URL: z.url().optional(),
  DOCS_URL: z.url().optional(),
  DATABASE_URL: z.string().min(1).optional(),
  /**
   * A direct PostgreSQL session (docs/operations.md, "Poolers") for what needs one: LISTEN and migrations. Set it
   * when DATABASE_URL goes through a pooler in transaction mode; unset: DATABASE_URL serves both.
   */
  DIRECT_DATABASE_URL: z.string().min(1).optional(),
  /** postgres.js pool size per process. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  /**
   * `false` stops preparing statements (a pooler in transaction mode without prepared-statement support). Unset:
   * `true`, but `false` when DIRECT_DATABASE_URL names another server than DATABASE_URL (a pooler; `poolerInUse`).
   */
  DATABASE_PREPARED_STATEMENTS: z.enum(["true", "false"]).optional(),
  /**
   * Bounds on every database call (docs/operations.md, "Database outages"): opening a connection, waiting for a
   * free one in the pool, and one statement on the server (`statement_timeout`; 0 leaves the server's own).
   */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  DATABASE_POOL_WAIT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  /** The embedded database's folder (default `<DATA_DIR>/pglite`); `memory://` keeps it in memory (tests). */
  PGLITE_DIR: z.string().min(1).optional(),
  SMTP_URL: z.string().min(1).optional(),
  /**
   * The file store (docs/operations.md, "File storage"): unset, files live under `{DATA_DIR}/files`; set, in this
   * S3-compatible bucket. S3_ENDPOINT is the store's URL (unset: AWS); S3_FORCE_PATH_STYLE defaults to `1` when an
   * endpoint is set. Credentials: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, else the AWS SDK's own chain.
   */
  S3_BUCKET: z.string().min(1).optional(),
  S3_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: z.enum(["0", "1"]).optional(),
  S3_PREFIX: z.string().max(200).optional(),
  /**
   * `/dev/mail` (docs/security.md, "/dev/mail"): `1` serves it (to this machine only) in production too; `0`
   * never. Unset: served in development when SMTP_URL is unset, and under the production start when SMTP_URL is
   * unset and it listens on loopback only (server/host/main.ts sets it then).
   */
  DEV_MAIL: z.enum(["0", "1", ""]).optional(),
  /**
   * The proxies whose `X-Forwarded-For` is believed (docs/security.md, "Client addresses"): comma-separated
   * addresses or CIDR ranges, IPv4 and IPv6. Unset: none; the client is the socket's peer.
   */
  TRUSTED_PROXIES: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      try {
        parseAddressRanges(value ?? "");
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
      }
    }),
  /** Dashboard session requests (tRPC, GraphQL with the cookie) per account and minute (docs/security.md, "Limits"). */
  SESSION_REQUESTS_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  /** Where vulnerability reports go (docs/security.md, "How to report a vulnerability"); default security@ APP_URL's domain. */
  SECURITY_CONTACT: z.string().min(1).max(300).optional(),
  MAIL_FROM: z.string().min(1).default("Marea <no-reply@localhost>"),
  INNGEST_EVENT_KEY: z.string().optional(),
  INNGEST_SIGNING_KEY: z.string().optional(),
  INNGEST_BASE_URL: z.string().optional(),
  INNGEST_DEV: z.string().optional(),
  WEBHOOK_RETRY_SCHEDULE: z.string().default("0s,30s,5m"),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /** Webhook attempts in flight at once per worker process (docs/webhooks.md, "Configuration"). */
  WEBHOOK_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
  /** Safety-net poll of the delivery worker; commits wake it at once through LISTEN/NOTIFY. */
  WEBHOOK_WORKER_POLL_MS: z.coerce.number().int().min(10).default(1000),
  UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: z.enum(["0", "1", ""]).optional(),
  SECRETS_KEY: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  WORKER: z.enum(["on", "off"]).default("on"),
  /**
   * Every scheduled job's period in seconds (docs/operations.md, "Scheduled jobs"); unset: each job's own (hourly,
   * `expire-public-orders` every 10 minutes). For tests and drills.
   */
  JOBS_PERIOD_SECONDS: z.coerce.number().int().min(1).max(86_400).optional(),
  /**
   * Observability (docs/operations.md, "Observability"). `/metrics` is off unless one of the two is set: the
   * token guards it on PORT (`Authorization: Bearer`), the port serves it on a listener of its own (behind the
   * token too when both are set).
   */
  METRICS_TOKEN: z.string().min(16).max(512).optional(),
  METRICS_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
  /** The interface of the METRICS_PORT listener; unset: HOST's. */
  METRICS_HOST: z.string().min(1).max(255).optional(),
  /** Where spans go (OTLP over HTTP, JSON); unset: no tracing. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).max(100).default("marea"),
  /** The current terms of service (docs/api.md, "Terms of service"). */
  TOS_VERSION: z.string().min(1).max(50).default("2026-05-12"),
  TOS_PUBLISHED_AT: z.iso.datetime({ offset: true }).default("2026-05-12T00:00:00Z"),
});

export type Env = Omit<
  z.infer<typeof EnvSchema>,
  "DATABASE_PREPARED_STATEMENTS" | "DATABASE_STATEMENT_TIMEOUT_MS"
> & {
  DOCS_URL: string;
  MCP_URL: string;
  /** The connection string of sessions (LISTEN, migrations): DIRECT_DATABASE_URL, else DATABASE_URL. */
  DIRECT_DATABASE_URL: string | undefined;
  /** Whether the request pool prepares statements (DATABASE_PREPARED_STATEMENTS, or its default). */
  DATABASE_PREPARED_STATEMENTS: "true" | "false";
  /** The pool's `statement_timeout` startup parameter in ms; 0 sends none (the server's own applies). */
  DATABASE_STATEMENT_TIMEOUT_MS: number;
};

let cached: Env | undefined;

export function env(): Env {
  if (cached) return cached;
  const parsed = EnvSchema.safeParse(process.env);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid environment: ${fields}`);
  }
  // Inngest's dev mode skips request signatures: anyone could invoke the delivery and job functions.
  if (parsed.data.NODE_ENV === "production" && isSet(parsed.data.INNGEST_DEV))
    throw new Error(
      "Invalid environment: INNGEST_DEV is set under NODE_ENV=production; Inngest's dev mode accepts unsigned calls " +
        "at /api/inngest. Use INNGEST_SIGNING_KEY and INNGEST_EVENT_KEY in production.",
    );
  const appUrl = parsed.data.APP_URL.replace(/\/$/, "");
  const pooled = poolerInUse(parsed.data.DATABASE_URL, parsed.data.DIRECT_DATABASE_URL);
  cached = {
    ...parsed.data,
    DIRECT_DATABASE_URL: parsed.data.DATABASE_URL
      ? (parsed.data.DIRECT_DATABASE_URL ?? parsed.data.DATABASE_URL)
      : undefined,
    // Behind a pooler in transaction mode (docs/operations.md, "Poolers"): a statement prepared on one server
    // connection is unknown on the next (PgBouncer before 1.21), and PgBouncer refuses an unknown startup
    // parameter, so neither is the default there.
    DATABASE_PREPARED_STATEMENTS: parsed.data.DATABASE_PREPARED_STATEMENTS ?? (pooled ? "false" : "true"),
    DATABASE_STATEMENT_TIMEOUT_MS: parsed.data.DATABASE_STATEMENT_TIMEOUT_MS ?? (pooled ? 0 : 10_000),
    APP_URL: appUrl,
    DOCS_URL: (parsed.data.DOCS_URL ?? `${appUrl}/docs`).replace(/\/$/, ""),
    // The MCP URL is the OAuth resource identifier: kept exactly as configured, without a trailing slash.
    MCP_URL: (parsed.data.MCP_URL ?? `${appUrl}/mcp`).replace(/\/$/, ""),
  };
  return cached;
}

/**
 * True when DATABASE_URL goes through a pooler: DIRECT_DATABASE_URL is set and names another host or port
 * (docs/operations.md, "Poolers"). Only then do the pool's defaults change.
 */
export function poolerInUse(databaseUrl: string | undefined, directUrl: string | undefined): boolean {
  if (!databaseUrl || !directUrl) return false;
  try {
    const pool = new URL(databaseUrl);
    const direct = new URL(directUrl);
    return pool.host !== direct.host;
  } catch {
    return databaseUrl !== directUrl;
  }
}

function isSet(value: string | undefined): boolean {
  return value !== undefined && value !== "" && value !== "0";
}

/** Tests that change process.env call this so the next `env()` re-reads it. */
export function resetEnvForTests(): void {
  cached = undefined;
}

export function isInngestConfigured(): boolean {
  const e = env();
  return Boolean(e.INNGEST_EVENT_KEY || e.INNGEST_SIGNING_KEY || e.INNGEST_DEV || e.INNGEST_BASE_URL);
}
