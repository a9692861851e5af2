import { context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { env } from "@/server/env";

/**
 * OpenTelemetry traces (docs/operations.md, "Traces"), on when OTEL_EXPORTER_OTLP_ENDPOINT is set: a span per
 * request at each door (server/host/main.ts), a child span per database statement of the services it calls
 * (server/db/round-trips.ts), a span per webhook delivery attempt (server/webhooks/delivery.ts). Spans go in
 * batches over OTLP/HTTP (JSON) to `{endpoint}/v1/traces`; the exporter's own OTEL_* variables apply.
 *
 * The provider and the context manager are registered globally through @opentelemetry/api, which keeps them on
 * `globalThis`: the production start and Next's bundle share them (and Next's own spans join the traces).
 */

const KEY = Symbol.for("marea.tracing");
const holder = globalThis as { [KEY]?: { provider: BasicTracerProvider } | null };

export function tracingEnabled(): boolean {
  return Boolean(holder[KEY]);
}

/** Starts exporting spans when OTEL_EXPORTER_OTLP_ENDPOINT is set; once per process. */
export function startTracing(): boolean {
  if (holder[KEY] !== undefined) return Boolean(holder[KEY]);
  const config = env();
  if (!config.OTEL_EXPORTER_OTLP_ENDPOINT) {
    holder[KEY] = null;
    return false;
  }
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: config.OTEL_SERVICE_NAME,
      [ATTR_SERVICE_VERSION]: process.env.npm_package_version ?? "0.1.0",
      "process.pid": process.pid,
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  holder[KEY] = { provider };
  return true;
}

/** Sends the spans still buffered and stops (graceful shutdown). */
export async function stopTracing(): Promise<void> {
  const current = holder[KEY];
  if (!current) return;
  await current.provider.shutdown().catch(() => undefined);
}

export function tracer(): Tracer {
  return trace.getTracer("marea");
}

/**
 * Runs `fn` inside a new span (a child of the active one), ending it when `fn` settles; a thrown error marks the
 * span failed. Without tracing, `fn` runs as it is.
 */
export async function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Record<string, string | number | boolean> },
  fn: (span: Span | null) => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return fn(null);
  return tracer().startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    async (span) => {
      try {
        return await fn(span);
      } catch (error) {
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: error instanceof Error ? error.message : String(error),
        });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

export { context, SpanKind, SpanStatusCode, trace };
