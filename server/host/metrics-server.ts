import cluster from "node:cluster";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import client from "prom-client";
import { env } from "@/server/env";
import { AppError } from "@/server/errors";
import { envelopeResponse } from "@/server/kit/envelope";
import { log } from "@/server/lib/log";
import { metricsText } from "@/server/observability/metrics";
import { sendResponse } from "./node-server";
import { pathnameOf, serveMetrics } from "./observability";

/**
 * Where `/metrics` is served from (docs/operations.md, "Observability"): a listener of its own on METRICS_PORT
 * (METRICS_HOST, else HOST), in the one server process or in a cluster's primary; and in a cluster, the sum of
 * the workers' registries, which the primary gathers (prom-client's AggregatorRegistry) for its listener and for
 * a worker asked on PORT with the token.
 */

type MetricsRequest = { type: "marea:metrics-request"; id: string };
type MetricsAnswer = { type: "marea:metrics-answer"; id: string; text?: string; error?: string };

function isMessage<T extends { type: string }>(message: unknown, type: T["type"]): message is T {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === type;
}

let aggregator: client.AggregatorRegistry<client.PrometheusContentType> | undefined;

/** In the primary: every worker's metrics, summed (counters, histograms, pool gauges; queue gauges: the max). */
export function clusterMetricsText(): Promise<string> {
  aggregator ??= new client.AggregatorRegistry();
  return aggregator.clusterMetrics();
}

/** In a worker: asks the primary for the cluster's metrics. */
export function metricsFromPrimary(): Promise<string> {
  const id = randomBytes(8).toString("hex");
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.off("message", onMessage);
      reject(new Error("the primary did not answer the metrics request"));
    }, 5000);
    const onMessage = (message: unknown) => {
      if (!isMessage<MetricsAnswer>(message, "marea:metrics-answer") || message.id !== id) return;
      clearTimeout(timer);
      process.off("message", onMessage);
      if (message.text !== undefined) resolve(message.text);
      else reject(new Error(message.error ?? "no metrics"));
    };
    process.on("message", onMessage);
    process.send?.({ type: "marea:metrics-request", id } satisfies MetricsRequest);
  });
}

/**
 * Starts the METRICS_PORT listener (when set) answering `source`'s text; in a cluster's primary, also answers the
 * workers' requests for the cluster's metrics.
 */
export async function listenForMetrics(source: () => Promise<string> = metricsText): Promise<Server | null> {
  const config = env();
  if (cluster.isPrimary && source === clusterMetricsText) {
    cluster.on("message", (worker, message: unknown) => {
      if (!isMessage<MetricsRequest>(message, "marea:metrics-request")) return;
      clusterMetricsText().then(
        (text) => worker.send({ type: "marea:metrics-answer", id: message.id, text } satisfies MetricsAnswer),
        (error: unknown) =>
          worker.send({
            type: "marea:metrics-answer",
            id: message.id,
            error: error instanceof Error ? error.message : String(error),
          } satisfies MetricsAnswer),
      );
    });
  }
  if (!config.METRICS_PORT) return null;
  const server = createServer((req, res) => {
    res.setHeader("x-request-id", `req_${randomBytes(12).toString("hex")}`);
    res.setHeader("x-content-type-options", "nosniff");
    const answer =
      pathnameOf(req.url ?? "/") === "/metrics"
        ? serveMetrics(req, res, source)
        : sendResponse(
            res,
            envelopeResponse(new AppError("route_not_found"), {
              requestId: String(res.getHeader("x-request-id")),
              language: "en",
            }),
          );
    answer.catch(() => {
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  });
  const host = config.METRICS_HOST ?? config.HOST;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.METRICS_PORT, host, () => resolve());
  });
  log("info", "metrics listening", { port: config.METRICS_PORT, host: host ?? "*" });
  return server;
}
