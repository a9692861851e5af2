import { describe, expect, it } from "vitest";
import { uniqueEmail } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { call } from "@/server/testing/api";
import { runCommand } from "./commands";

// README.md, "Command line": each command returns one JSON object.
describe("cli commands", () => {
  it("dev-key create makes a working developer key with its daily budget and rpm", async () => {
    const db = await dbReady();
    const email = uniqueEmail("cli");
    const out = (await runCommand(db, [
      "dev-key",
      "create",
      "--email",
      email,
      "--daily-limit",
      "7",
      "--rpm",
      "500",
    ])) as {
      keyId: string;
      key: string;
    };
    expect(out.keyId).toMatch(/^key_[0-9a-z]{26}$/);
    expect(out.key).toMatch(/^mk_dev_[0-9A-Za-z]{43}$/);
    const me = await call<{
      rateLimit: { rpm: number; rpd: number };
      scopes: string[];
      account: { email: string };
    }>("GET", "/v1/me", { key: out.key });
    expect(me.status).toBe(200);
    expect(me.body.rateLimit).toMatchObject({ rpm: 500, rpd: 7 });
    expect(me.body.account.email).toBe(email);
    expect(me.body.scopes).toEqual([
      "developer:bootstrap",
      "developer:read",
      "developer:issueUserKey",
      "developer:webhooks",
    ]);
    expect(me.body.rateLimit).toMatchObject({ rpd: 7 });
  });

  it("dev-key create defaults the daily budget to 50", async () => {
    const out = (await runCommand(await dbReady(), ["dev-key", "create", "--email", uniqueEmail()])) as {
      key: string;
    };
    const me = await call<{ rateLimit: { rpm: number; rpd: number; remainingDay: number } }>(
      "GET",
      "/v1/me",
      { key: out.key },
    );
    expect(me.body.rateLimit).toMatchObject({ rpm: 60, rpd: 50, remainingDay: 49 });
  });

  it("dev-key revoke stops the key at once", async () => {
    const db = await dbReady();
    const made = (await runCommand(db, ["dev-key", "create", "--email", uniqueEmail()])) as {
      keyId: string;
      key: string;
    };
    expect(await runCommand(db, ["dev-key", "revoke", "--id", made.keyId])).toEqual({
      keyId: made.keyId,
      revoked: true,
      cancelledAccounts: 0,
    });
    expect((await call("GET", "/v1/me", { key: made.key })).status).toBe(401);
    await expect(runCommand(db, ["dev-key", "revoke", "--id", made.keyId])).rejects.toMatchObject({
      code: "invalid_api_key",
    });
  });

  it("plan set changes the plan, and /v1/me drops _links.upgradeUrl once the verified account can publish", async () => {
    const db = await dbReady();
    const email = uniqueEmail();
    const made = (await runCommand(db, ["dev-key", "create", "--email", email])) as { key: string };
    const before = await call<{ _links: { upgradeUrl?: string }; account: { plan: string } }>(
      "GET",
      "/v1/me",
      { key: made.key },
    );
    expect(before.body._links.upgradeUrl).toBe("http://localhost:3000/dashboard/billing?plan=PRO");
    const out = (await runCommand(db, ["plan", "set", "--email", email, "--plan", "PRO"])) as {
      accountId: string;
      plan: string;
    };
    expect(out.plan).toBe("PRO");
    const after = await call<{ _links: { upgradeUrl?: string }; account: { plan: string; limits: unknown } }>(
      "GET",
      "/v1/me",
      {
        key: made.key,
      },
    );
    expect(after.body.account.plan).toBe("PRO");
    expect(after.body.account.limits).toEqual({ storefronts: 10, products: 10_000, publishable: true });
    expect(after.body._links).toEqual({});
  });

  it("bad input is a clear invalid_request, unknown commands print usage", async () => {
    const db = await dbReady();
    await expect(
      runCommand(db, ["plan", "set", "--email", "a@b.co", "--plan", "GOLD"]),
    ).rejects.toMatchObject({
      code: "invalid_request",
      options: { param: "plan" },
    });
    await expect(runCommand(db, ["frobnicate"])).rejects.toMatchObject({ code: "invalid_request" });
  });

  it("dev-key create reads its figures through the service's schema: out of range is invalid_request naming the option", async () => {
    const db = await dbReady();
    for (const [option, value] of [
      ["--daily-limit", "0"],
      ["--daily-limit", "10000001"],
      ["--rpm", "1000001"],
      ["--rpm", "sixty"],
      ["--bootstraps-per-day", "1.5"],
    ] as const) {
      await expect(
        runCommand(db, ["dev-key", "create", "--email", uniqueEmail(), option, value]),
      ).rejects.toMatchObject({ code: "invalid_request", options: { param: option.slice(2) } });
    }
  });

  it("jobs run executes a scheduled job by name", async () => {
    const out = (await runCommand(await dbReady(), ["jobs", "run", "purge-idempotency-keys"])) as {
      job: string;
    };
    expect(out.job).toBe("purge-idempotency-keys");
    await expect(runCommand(await dbReady(), ["jobs", "run", "nope"])).rejects.toMatchObject({
      code: "invalid_request",
    });
  });
});
