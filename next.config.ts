import type { NextConfig } from "next";

// A benchmark build (bench/README.md) also serves the framework's floor, `app/bench/floor/route.bench.ts`, and
// goes to its own folder; a production build never has that route.
const isBenchBuild = process.env.MAREA_BENCH_BUILD === "1";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files: keep it out of the bundle, and out of /_next/static.
  serverExternalPackages: ["@electric-sql/pglite", "@electric-sql/pglite-socket", "postgres", "nodemailer"],
  poweredByHeader: false,
  pageExtensions: isBenchBuild ? ["bench.ts", "tsx", "ts"] : ["tsx", "ts"],
  distDir: isBenchBuild ? ".next-bench" : ".next",
  // The OAuth consent page can never be framed by another site (clickjacking; docs/mcp.md, "Consent").
  async headers() {
    return [
      {
        source: "/dashboard/oauth/:path*",
        headers: [
          { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
    ];
  },
};

export default nextConfig;
