import { describe, expect, it } from "vitest";
import { dbReady } from "@/server/db/client";
import { listOutbox } from "@/server/mail/service";
import { call } from "@/server/testing/api";
import { createDeveloper, uniqueEmail } from "./testing";

// docs/api.md, "Accounts and keys": POST /v1/users, POST /v1/users/{userId}/keys, GET /v1/me.
describe("POST /v1/users (bootstrap)", () => {
  it("creates an unverified FREE_NEW account remembering its developer key, with a user key of the bootstrap scopes", async () => {
    const dev = await createDeveloper();
    const email = uniqueEmail();
    const res = await call<{ user: Record<string, unknown>; userKey: string }>("POST", "/v1/users", {
      key: dev.key,
      body: { email: email.toUpperCase(), name: "Ana" },
    });
    expect(res.status).toBe(201);
    expect(res.body.user).toEqual({
      id: expect.stringMatching(/^usr_[0-9a-z]{26}$/),
      email,
      name: "Ana",
      language: "es",
      status: "unverified",
      plan: "FREE_NEW",
      developerKeyId: dev.keyId,
      createdAt: expect.any(String),
      verifiedAt: null,
    });
    expect(res.body.userKey).toMatch(/^mk_user_[0-9A-Za-z]{43}$/);
    const me = await call<{ scopes: string[]; type: string }>("GET", "/v1/me", { key: res.body.userKey });
    expect(me.body.type).toBe("user");
    expect(me.body.scopes).toEqual(["catalog:read", "catalog:write", "me:verify", "me:resendVerification"]);
  });

  it("sends the verification code by mail (kept in the outbox when SMTP_URL is unset)", async () => {
    const dev = await createDeveloper();
    const email = uniqueEmail();
    await call("POST", "/v1/users", { key: dev.key, body: { email, language: "en" } });
    const mails = await listOutbox(await dbReady(), { to: email });
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ kind: "verification_code", status: "kept" });
    expect(mails[0]?.text).toMatch(/Your verification code is \d{6}\./);
  });
});

describe("POST /v1/users/{userId}/keys", () => {
  it("issues another working user key for a bootstrapped account, shown once with its display prefix", async () => {
    const dev = await createDeveloper();
    const made = await call<{ user: { id: string } }>("POST", "/v1/users", {
      key: dev.key,
      body: { email: uniqueEmail() },
    });
    const res = await call<{
      key: { id: string; prefix: string; name: string; scopes: string[] };
      userKey: string;
    }>("POST", `/v1/users/${made.body.user.id}/keys`, { key: dev.key, body: { name: "ci" } });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatchObject({
      id: expect.stringMatching(/^key_/),
      name: "ci",
      prefix: `${res.body.userKey.slice(0, 12)}…`,
    });
    expect(res.body.key.scopes).not.toContain("storefront:publish");
    const me = await call<{ account: { id: string } }>("GET", "/v1/me", { key: res.body.userKey });
    expect(me.body.account.id).toBe(made.body.user.id);
  });
});

describe("GET /v1/me", () => {
  it("has rateLimit {rpm, rpd, remainingMinute, remainingDay} as integers and the upgrade link when the account cannot publish", async () => {
    const dev = await createDeveloper({ rpm: 60, dailyLimit: 50 });
    const res = await call<Record<string, unknown>>("GET", "/v1/me", { key: dev.key });
    expect(res.body).toMatchObject({
      type: "developer",
      keyId: dev.keyId,
      rateLimit: { rpm: 60, rpd: 50, remainingMinute: 59, remainingDay: 49 },
      account: { plan: "FREE_NEW", limits: { storefronts: 1, products: 2000, publishable: false } },
      _links: { upgradeUrl: "http://localhost:3000/dashboard/billing?plan=PRO" },
    });
  });
});
