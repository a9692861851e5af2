import { spawn } from "node:child_process";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type NextServer, startNextServer } from "./fixtures";

let server: NextServer;
let browser: Browser;

beforeAll(async () => {
  server = await startNextServer();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/**
 * Runs the CLI beside the server. Asynchronously on purpose: a spawnSync blocked this process's event loop for
 * the seconds the CLI takes, the server meanwhile closed the idle keep-alive socket of the previous fetch, and
 * the next fetch reused that socket before its close was read ("other side closed").
 */
function cli(args: string[]): Promise<{ status: number | null; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.resolve("node_modules/.bin/tsx"), ["server/cli/main.ts", ...args], {
      env: server.env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.on("error", reject);
    child.on("close", (status) =>
      resolve({ status, json: JSON.parse(stdout.trim() || "{}") as Record<string, unknown> }),
    );
  });
}

// The new user's path: start the service, make a developer key with the CLI while it runs, bootstrap a
// merchant over the API, and read the verification code in the dashboard's development mail outbox.
describe("a new user's first minutes, in a real browser", () => {
  it("the CLI works beside the running server, and the verification mail shows at /dev/mail", async () => {
    const created = await cli(["dev-key", "create", "--email", "partner@example.com"]);
    expect(created.status).toBe(0);
    expect(created.json.key).toMatch(/^mk_dev_/);

    const email = `merchant-${Date.now()}@example.com`;
    const res = await fetch(`${server.baseUrl}/v1/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${created.json.key as string}`, "content-type": "application/json" },
      body: JSON.stringify({ email, language: "en" }),
    });
    expect(res.status).toBe(201);

    const page = await browser.newPage();
    await page.goto(`${server.baseUrl}/dev/mail`);
    const item = page.getByTestId("mail-item").filter({ hasText: email });
    await expect(item.getByTestId("mail-subject").textContent()).resolves.toMatch(
      /Your Marea verification code: \d{6}/,
    );
    await expect(item.getByTestId("mail-text").textContent()).resolves.toMatch(
      /Your verification code is \d{6}\./,
    );
    await page.close();

    const revoked = await cli(["dev-key", "revoke", "--id", created.json.keyId as string]);
    // The merchant it bootstrapped was never verified, so revoking the key cancels it (reason key_revoked).
    expect(revoked.json).toEqual({ keyId: created.json.keyId, revoked: true, cancelledAccounts: 1 });
    const after = await fetch(`${server.baseUrl}/v1/me`, {
      headers: { authorization: `Bearer ${created.json.key as string}` },
    });
    expect(after.status).toBe(401);
  });

  it("/healthz answers {ok: true} and is not rate limited", async () => {
    const res = await fetch(`${server.baseUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, database: "up" });
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });
});
