import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

// One graphql instance: the GraphQL libraries (loaded by Node) get graphql's CommonJS build, so our code must too
// (vite would otherwise pick its ESM build, and graphql refuses types from "another module or realm").
const graphqlEntry = createRequire(import.meta.url).resolve("graphql");

// TEST_DB=postgres (default; a fresh database per test file on the local server) or TEST_DB=pglite.
export default defineConfig({
  resolve: { tsconfigPaths: true, alias: [{ find: /^graphql$/, replacement: graphqlEntry }] },
  test: {
    include: ["server/**/*.test.ts", "app/**/*.test.ts", "e2e/**/*.test.ts", "sdk/test/**/*.test.ts"],
    globalSetup: ["server/testing/global-setup.ts"],
    setupFiles: ["server/testing/setup-db.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    env: { LOG_LEVEL: "error", NEXT_TELEMETRY_DISABLED: "1" },
  },
});
