import { defineConfig } from "vitest/config";

// TEST_DB=postgres (default; a fresh database per test file on the local server) or TEST_DB=pglite.
export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    include: ["server/**/*.test.ts", "app/**/*.test.ts", "e2e/**/*.test.ts"],
    globalSetup: ["server/testing/global-setup.ts"],
    setupFiles: ["server/testing/setup-db.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    env: { LOG_LEVEL: "error", NEXT_TELEMETRY_DISABLED: "1" },
  },
});
