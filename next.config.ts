import type { NextConfig } from "next";

// A benchmark build (bench/README.md) also serves the framework's floor, `app/bench/floor/route.bench.ts`, and
// goes to its own folder; a production build never has that route.
const isBenchBuild = process.env.MAREA_BENCH_BUILD === "1";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files: keep it out of the bundle, and out of /_next/static.
  // prom-client and OpenTelemetry: one copy per process, shared with the production start's own module graph
  // (docs/operations.md, "Observability").
  serverExternalPackages: [
    "@electric-sql/pglite",
    "@electric-sql/pglite-socket",
    "postgres",
    "nodemailer",
    "prom-client",
    "@opentelemetry/api",
    "@opentelemetry/context-async-hooks",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/resources",
    "@opentelemetry/sdk-trace-base",
    "@opentelemetry/semantic-conventions",
  ],
  poweredByHeader: false,
  // Next hashes the whole body of every cached page it serves to make an ETag (dynamic pages get none). For the
  // public storefront pages, a few hundred KiB each, that hash was the largest part of a view's CPU; a CDN or
  // proxy in front makes its own (docs/operations.md, "Public storefront cache").
  generateEtags: false,
  // The public storefront pages are cached in memory only (docs/operations.md, "Public storefront cache"): their
  // invalidations live in memory too, so a page kept on disk could outlive a restart stale, and a disk entry per
  // slug asked for would let anyone fill the disk.
  experimental: { isrFlushToDisk: false },
  pageExtensions: isBenchBuild ? ["bench.ts", "bench.tsx", "tsx", "ts"] : ["tsx", "ts"],
  distDir: isBenchBuild ? ".next-bench" : ".next",
  // The production start sets every security header (server/http/security-headers.ts). These two stay here so they
  // hold under `next dev` and `next start` alone too: the OAuth consent page can never be framed by another site
  // (clickjacking; docs/mcp.md, "Consent"), and the order status page's link (it holds the order's token) is never
  // sent on as a referrer, as a header and not only its meta tag (docs/security.md, "Headers").
  async headers() {
    return [
      {
        source: "/dashboard/oauth/:path*",
        headers: [
          { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
      { source: "/s/:slug/orders/:orderId", headers: [{ key: "Referrer-Policy", value: "no-referrer" }] },
    ];
  },
  // /v1 never redirects (docs/api.md, "Hostile and malformed input"): a trailing slash reaches the router, which
  // answers 404 `route_not_found` in the envelope. Every other path keeps Next's usual 308 to the path without it.
  skipTrailingSlashRedirect: true,
  async redirects() {
    return [{ source: "/:path((?!v1(?:/|$)).*[^/])/", destination: "/:path", permanent: true }];
  },
  // A /v1 path with a percent sign goes to the catch-all route as `/v1`, so Next never decodes its segments
  // itself: a malformed percent-encoding (`%ZZ`) would otherwise fail in Next's route matcher with a bare-text
  // 500 before the pipeline runs. The handler still sees the request's own URL; the router decodes it
  // (server/http/router.ts). Only paths with `%`: a rewrite costs about 10% of the CPU of a /v1 request.
  async rewrites() {
    return {
      beforeFiles: [{ source: "/v1/:path(.*%.*)", destination: "/v1" }],
      afterFiles: [],
      fallback: [],
    };
  },
};

export default nextConfig;
