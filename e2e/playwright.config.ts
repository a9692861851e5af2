import { defineConfig, devices } from "@playwright/test";

/**
 * The browser suite: `npx playwright test -c e2e/playwright.config.ts` (npm test runs it after vitest on
 * PostgreSQL). Needs a production build (`npx next build`); the global setup starts it once with a fresh
 * database and an SMTP sink. Debian's Chromium, not a downloaded one.
 */
export default defineConfig({
  testDir: ".",
  testMatch: "**/*.spec.ts",
  outputDir: "artifacts/test-results",
  globalSetup: "./support/global-setup.ts",
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  // One app and 2 shared cores: one worker keeps timings honest.
  workers: 1,
  fullyParallel: false,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  use: {
    ...devices["Desktop Chrome"],
    locale: "en-US",
    viewport: { width: 1280, height: 800 },
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
});
