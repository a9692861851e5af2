import { spawn } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import { test as base, expect, type Page } from "@playwright/test";
import type { SinkMail } from "./mail-sink";
import { startWebhookReceiver, type WebhookReceiver } from "./receiver";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const SCREENSHOTS = path.join(ROOT, "e2e/screenshots");

export function uniqueEmail(label = "person"): string {
  return `${label}-${randomBytes(5).toString("hex")}@example.com`;
}

/** Subjects of the sign-in mail in en, es and pt (server/sessions/service.ts). */
export const SIGN_IN_SUBJECT = /Marea sign-in code|para entrar en Marea|para entrar no Marea/;

/** The mails the suite's SMTP sink caught (see global-setup.ts). */
export class Mailbox {
  constructor(private readonly url: string) {}

  async list(to: string): Promise<SinkMail[]> {
    const res = await fetch(`${this.url}/mails?to=${encodeURIComponent(to.toLowerCase())}`);
    return (await res.json()) as SinkMail[];
  }

  /** Waits for the newest mail to `to` received after `since` (ms) whose subject matches `subject`, 20 s at most. */
  async waitForMail(to: string, since = 0, subject: RegExp = /./): Promise<SinkMail> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const mails = (await this.list(to)).filter((m) => m.receivedAt >= since && subject.test(m.subject));
      const newest = mails.at(-1);
      if (newest) return newest;
      if (Date.now() > deadline) throw new Error(`no mail to ${to} within 20 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * The 6-digit code of the newest SIGN-IN mail to `to` received after `since` (an address a developer
   * bootstrapped also gets the API's verification mail, with another code).
   */
  async waitForCode(to: string, since = 0): Promise<string> {
    const mail = await this.waitForMail(to, since, SIGN_IN_SUBJECT);
    const code = `${mail.subject}\n${mail.text}`.match(/\b(\d{6})\b/)?.[1];
    if (!code) throw new Error(`no 6-digit code in the mail to ${to}: ${mail.subject}`);
    return code;
  }
}

/** `npm run cli -- <args>` against the suite's database; resolves with the JSON it prints. */
export function runCli(args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), ["server/cli/main.ts", ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: process.env.E2E_DATABASE_URL,
        DATA_DIR: process.env.E2E_DATA_DIR,
        LOG_LEVEL: "error",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (status) => {
      if (status !== 0) return reject(new Error(`cli ${args.join(" ")} exited ${status}: ${stderr}`));
      resolve(JSON.parse(stdout.trim()) as Record<string, unknown>);
    });
  });
}

/**
 * Fails on serious or critical axe violations (WCAG 2.x A and AA rules plus best practices), listing each
 * with the elements it found.
 */
export async function checkA11y(page: Page, options: { exclude?: string[] } = {}): Promise<void> {
  let builder = new AxeBuilder({ page }).withTags([
    "wcag2a",
    "wcag2aa",
    "wcag21a",
    "wcag21aa",
    "wcag22aa",
    "best-practice",
  ]);
  for (const selector of options.exclude ?? []) builder = builder.exclude(selector);
  const results = await builder.analyze();
  const blocking = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const report = blocking.map(
    (v) =>
      `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `  - ${n.target.join(" ")}: ${n.failureSummary ?? ""}`).join("\n")}`,
  );
  expect(report, `axe on ${page.url()}`).toEqual([]);
}

/** Full-page screenshots at 1280 and 360 px wide: e2e/screenshots/<name>-1280.png and -360.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const original = page.viewportSize();
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: 800 });
    await page.evaluate(() => document.fonts.ready);
    await page.screenshot({
      path: path.join(SCREENSHOTS, `${name}-${width}.png`),
      fullPage: true,
      animations: "disabled",
    });
  }
  if (original) await page.setViewportSize(original);
}

/**
 * The whole sign-in through the mailed code, as a person does it: email, the code from the mail, the terms step
 * when it shows, then the dashboard (or the bootstrap-account question, when `expectChoice`).
 */
export async function signInThroughMail(
  page: Page,
  mailbox: Mailbox,
  email: string,
  options: SignInOptions = {},
): Promise<void> {
  await page.goto("/signin");
  await page.getByLabel("Email address").fill(email);
  const since = Date.now();
  await page.getByRole("button", { name: "Send code" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Check your email" })).toBeVisible();
  const code = await mailbox.waitForCode(email, since - 1000);
  await page.getByLabel("6-digit code").fill(code);
  await page.getByRole("button", { name: "Sign in" }).click();
  if (options.expectChoice) {
    await expect(
      page.getByRole("heading", { level: 1, name: "This address already has an account" }),
    ).toBeVisible();
    return;
  }
  await page.waitForURL(/\/(dashboard|signin\/terms)/);
  if (new URL(page.url()).pathname === "/signin/terms")
    await page.getByRole("button", { name: "Accept and continue" }).click();
  await page.waitForURL(/\/dashboard$/);
}

/**
 * An address in 198.18.0.0/15 (benchmarking range) per test, sent as X-Forwarded-For: own per-IP sign-in limits.
 * The suite's server believes it because it trusts loopback as a proxy (TRUSTED_PROXIES, global-setup.ts).
 */
function uniqueClientIp(): string {
  return `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

export type SignInOptions = {
  /** Stop at the bootstrap-account question instead of expecting the dashboard. */
  expectChoice?: boolean;
};

type Fixtures = {
  /** The suite's SMTP sink: `await mail.waitForCode(email)`. */
  mail: Mailbox;
  /** Signs `email` in (or up) on `page` through the real mailed code; lands on /dashboard. */
  signIn: (page: Page, email: string, options?: SignInOptions) => Promise<void>;
  receiver: WebhookReceiver;
  clientIp: string;
  /** POST/GET the /v1 API with a key. */
  api: <T = Record<string, unknown>>(
    method: string,
    apiPath: string,
    options?: { key?: string; body?: unknown },
  ) => Promise<{ status: number; body: T }>;
};

export type Api = Fixtures["api"];

export const test = base.extend<Fixtures>({
  // Every page of every test runs under the app's Content-Security-Policy (docs/security.md, "Headers"): a script
  // the policy blocks is a broken page, so any violation Chromium reports fails the test.
  page: async ({ page }, use) => {
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text()))
        violations.push(`${page.url()}: ${message.text()}`);
    });
    await use(page);
    expect(violations, "Content-Security-Policy violations").toEqual([]);
  },
  // The app the global setup started.
  baseURL: async ({}, use) => {
    await use(process.env.E2E_BASE_URL);
  },
  clientIp: async ({}, use) => {
    await use(uniqueClientIp());
  },
  extraHTTPHeaders: async ({ clientIp }, use) => {
    await use({ "x-forwarded-for": clientIp });
  },
  mail: async ({}, use) => {
    const url = process.env.E2E_MAIL_URL;
    if (!url) throw new Error("E2E_MAIL_URL is not set: run through e2e/playwright.config.ts");
    await use(new Mailbox(url));
  },
  signIn: async ({ mail }, use) => {
    await use((page, email, options) => signInThroughMail(page, mail, email, options));
  },
  receiver: async ({}, use) => {
    const receiver = await startWebhookReceiver();
    await use(receiver);
    await receiver.close();
  },
  api: async ({}, use) => {
    await use(async (method, apiPath, options = {}) => {
      const res = await fetch(`${process.env.E2E_BASE_URL}${apiPath}`, {
        method,
        headers: {
          ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
          ...(options.body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as never };
    });
  },
});

export { expect };
