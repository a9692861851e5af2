import type { NextConfig } from "next";

// A benchmark build (bench/README.md) also serves the framework's floor, `app/bench/floor/route.bench.ts`, and
// goes to its own folder; a production build never has that route.
const isBenchBuild = process.env.MAREA_BENCH_BUILD === "1";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files: keep it out of the bundle, and out of /_next/static.
  serverExternalPackages: ["@electric-sql/pglite", "@electric-sql/pglite-socket", "postgres", "nodemailer"],
  poweredByHeader: false,
  // Next hashes the whole body of every cached page it serves to make an ETag (dynamic pages get none). For the
  // public storefront pages, a few hundred KiB each, that hash was the largest part of a view's CPU; a CDN or
  // proxy in front makes its own (docs/operations.md, "Public storefront cache").
  generateEtags: false,
  // The public storefront pages are cached in memory only (docs/operations.md, "Public storefront cache"): their
  // invalidations live in memory too, so a page kept on disk could outlive a restart stale, and a disk entry per
  // slug asked for would let anyone fill the disk.
  experimental: { isrFlushToDisk: false },
  pageExtensions: isBenchBuild ? ["bench.ts", "tsx", "ts"] : ["tsx", "ts"],
  distDir: isBenchBuild ? ".next-bench" : ".next",
};

export default nextConfig;
