import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files: keep it out of the bundle, and out of /_next/static.
  serverExternalPackages: ["@electric-sql/pglite", "@electric-sql/pglite-socket", "postgres", "nodemailer"],
  poweredByHeader: false,
};

export default nextConfig;
