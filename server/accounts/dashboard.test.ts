import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dbReady } from "@/server/db/client";
import { accounts, apiKeys } from "@/server/gate/tables";
import { currentTerms } from "@/server/gate/terms";
import { sha256Hex } from "@/server/lib/crypto";
import { createMerchant, createTestStorefront } from "@/server/storefronts/testing";
import { call } from "@/server/testing/api";
import { contextWith, serviceContextFor, sessionContextFor } from "@/server/testing/context";
import { webhookEvents } from "@/server/webhooks/tables";
import {
  createAccountKey,
  listAccountKeys,
  previewAccountKeyRevocation,
  revokeAccountKey,
} from "./account-keys";
import { getAccount, setAccountLanguage } from "./account-page";
import { acceptCurrentTerms } from "./cancellation";
import { issueUserKey, listPartnerUsers } from "./partners";
import { CreateAccountKeyInput } from "./schema";
import { bootstrapUser, createDeveloper } from "./testing";

// The dashboard's keys, account and developers pages, called as a signed-in session (docs/ui.md, "API keys",
// "Account", "Developers").

/** A developer account (as `dev-key create` makes it) whose session accepted the current terms. */
async function developerWithSession() {
  const developer = await createDeveloper();
  await acceptCurrentTerms(await sessionContextFor(developer.accountId), { version: currentTerms().version });
  return developer;
}

describe("API keys page", () => {
  it("lists the account's live keys with kind, prefix, scopes and budget, never another account's", async () => {
    const merchant = await createMerchant({ verified: true });
    const stranger = await createMerchant({ verified: true });
    const keys = await listAccountKeys(await sessionContextFor(merchant.userId));
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({
      kind: "user",
      name: "bootstrap",
      source: "bootstrap",
      scopes: ["catalog:read", "catalog:write", "storefront:publish"],
      dailyLimit: 10_000,
      lastUsedAt: null,
    });
    expect(merchant.userKey.startsWith(keys[0]?.prefix.replace("…", "") ?? "x")).toBe(true);
    expect(JSON.stringify(keys)).not.toContain(sha256Hex(merchant.userKey));
    const strangerKeys = await listAccountKeys(await sessionContextFor(stranger.userId));
    expect(strangerKeys.map((k) => k.id)).not.toContain(keys[0]?.id);
  });

  it("last used: set by a /v1 request, written at most once a minute per key", async () => {
    const merchant = await createMerchant({ verified: true });
    const t0 = new Date("2031-03-01T10:00:05Z");
    const read = async () => {
      const db = await dbReady();
      const [row] = await db
        .select({ lastUsedAt: apiKeys.lastUsedAt })
        .from(apiKeys)
        .where(eq(apiKeys.accountId, merchant.userId));
      return row?.lastUsedAt?.toISOString() ?? null;
    };
    expect((await call("GET", "/v1/me", { key: merchant.userKey, now: () => t0 })).status).toBe(200);
    expect(await read()).toBe(t0.toISOString());
    // Later in the same minute: no write.
    const t1 = new Date("2031-03-01T10:00:50Z");
    expect((await call("GET", "/v1/me", { key: merchant.userKey, now: () => t1 })).status).toBe(200);
    expect(await read()).toBe(t0.toISOString());
    // The next minute: written again.
    const t2 = new Date("2031-03-01T10:01:02Z");
    expect((await call("GET", "/v1/me", { key: merchant.userKey, now: () => t2 })).status).toBe(200);
    expect(await read()).toBe(t2.toISOString());
    const [listed] = await listAccountKeys(await sessionContextFor(merchant.userId));
    expect(listed?.lastUsedAt).toBe(t2.toISOString());
  });

  it("creates a user key with the post-verify scopes: shown once, stored hashed, and it answers /v1/me", async () => {
    const merchant = await createMerchant({ verified: true });
    const ctx = await sessionContextFor(merchant.userId);
    const created = await createAccountKey(ctx, CreateAccountKeyInput.parse({ kind: "user", name: "till" }));
    expect(created.rawKey).toMatch(/^mk_user_[0-9A-Za-z]{43}$/);
    expect(created.key).toMatchObject({
      kind: "user",
      name: "till",
      source: "dashboard",
      scopes: ["catalog:read", "catalog:write", "storefront:publish"],
    });
    const db = await dbReady();
    const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, created.key.id));
    expect(row?.hash).toBe(sha256Hex(created.rawKey));
    expect(JSON.stringify(row)).not.toContain(created.rawKey);
    // Listing never shows it again.
    expect(JSON.stringify(await listAccountKeys(ctx))).not.toContain(created.rawKey);
    const me = await call<{ keyId: string; account: { id: string } }>("GET", "/v1/me", {
      key: created.rawKey,
    });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ keyId: created.key.id, account: { id: merchant.userId } });
  });

  it("creates a developer key with its daily budget (default 50); the session then holds developer scopes", async () => {
    const merchant = await createMerchant({ verified: true });
    const ctx = await sessionContextFor(merchant.userId);
    const byDefault = await createAccountKey(
      ctx,
      CreateAccountKeyInput.parse({ kind: "developer", name: "partner app" }),
    );
    expect(byDefault.rawKey).toMatch(/^mk_dev_/);
    expect(byDefault.key).toMatchObject({ kind: "developer", dailyLimit: 50 });
    const big = await createAccountKey(
      ctx,
      CreateAccountKeyInput.parse({ kind: "developer", name: "big", dailyLimit: 10_000 }),
    );
    expect(big.key.dailyLimit).toBe(10_000);
    expect(
      CreateAccountKeyInput.safeParse({ kind: "developer", name: "x", dailyLimit: 10_001 }).success,
    ).toBe(false);
    expect(CreateAccountKeyInput.safeParse({ kind: "developer", name: "x", dailyLimit: 0 }).success).toBe(
      false,
    );
    const session = await sessionContextFor(merchant.userId);
    expect(session.actor?.scopes).toContain("developer:bootstrap");
    const bootstrapped = await call("POST", "/v1/users", {
      key: byDefault.rawKey,
      body: { email: `made-${Date.now()}@example.com` },
    });
    expect(bootstrapped.status).toBe(201);
  });

  it("an unverified account gets no key: 403 email_not_verified with what to do next", async () => {
    const developer = await createDeveloper();
    const made = await bootstrapUser(developer.key);
    const session = await sessionContextFor(made.userId);
    await expect(
      createAccountKey(session, CreateAccountKeyInput.parse({ kind: "user" })),
    ).rejects.toMatchObject({
      code: "email_not_verified",
      options: { nextActions: [{ operation: "verifyEmail" }] },
    });
  });

  it("an API key cannot list, mint or revoke its account's keys: dashboard only", async () => {
    const merchant = await createMerchant({ verified: true });
    const ctx = await serviceContextFor(merchant.userKey);
    await expect(listAccountKeys(ctx)).rejects.toMatchObject({ code: "insufficient_scope" });
    await expect(createAccountKey(ctx, { kind: "user" })).rejects.toMatchObject({
      code: "insufficient_scope",
    });
    await expect(listAccountKeys(await contextWith(null))).rejects.toMatchObject({
      code: "missing_authorization",
    });
  });

  it("revoking a user key stops it at once; another account's key id is not found", async () => {
    const merchant = await createMerchant({ verified: true });
    const stranger = await createMerchant({ verified: true });
    const ctx = await sessionContextFor(merchant.userId);
    const [own] = await listAccountKeys(ctx);
    const [foreign] = await listAccountKeys(await sessionContextFor(stranger.userId));
    for (const attempt of [
      () => revokeAccountKey(ctx, { keyId: foreign?.id ?? "" }),
      () => previewAccountKeyRevocation(ctx, { keyId: foreign?.id ?? "" }),
      () => revokeAccountKey(ctx, { keyId: "key_unknown" }),
    ]) {
      await expect(attempt()).rejects.toMatchObject({
        code: "api_key_not_found",
        options: { param: "keyId" },
      });
    }
    expect((await call("GET", "/v1/me", { key: stranger.userKey })).status).toBe(200);
    expect(await previewAccountKeyRevocation(ctx, { keyId: own?.id ?? "" })).toEqual({
      keyId: own?.id,
      kind: "user",
      unverifiedAccounts: 0,
      liveAccounts: 0,
    });
    expect(await revokeAccountKey(ctx, { keyId: own?.id ?? "" })).toEqual({
      keyId: own?.id,
      kind: "user",
      cancelledAccounts: 0,
    });
    const refused = await call<{ error: { code: string } }>("GET", "/v1/me", { key: merchant.userKey });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("api_key_revoked");
    // Revoked twice: not found (it is no longer listed either).
    await expect(revokeAccountKey(ctx, { keyId: own?.id ?? "" })).rejects.toMatchObject({
      code: "api_key_not_found",
    });
    expect(await listAccountKeys(ctx)).toEqual([]);
  });

  it("revoking a developer key: the preview counts its unverified and live accounts, then the cascade cancels the unverified with key_revoked", async () => {
    const developer = await developerWithSession();
    const unverified = await bootstrapUser(developer.key);
    const alsoUnverified = await bootstrapUser(developer.key);
    const verified = await bootstrapUser(developer.key);
    const db = await dbReady();
    await db
      .update(accounts)
      .set({ status: "verified", verifiedAt: new Date() })
      .where(eq(accounts.id, verified.userId));
    const ctx = await sessionContextFor(developer.accountId);
    expect(await previewAccountKeyRevocation(ctx, { keyId: developer.keyId })).toEqual({
      keyId: developer.keyId,
      kind: "developer",
      unverifiedAccounts: 2,
      liveAccounts: 3,
    });
    expect(await revokeAccountKey(ctx, { keyId: developer.keyId })).toEqual({
      keyId: developer.keyId,
      kind: "developer",
      cancelledAccounts: 2,
    });
    const rows = await db.select().from(accounts).where(eq(accounts.developerKeyId, developer.keyId));
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(unverified.userId)).toMatchObject({ status: "cancelled", cancelReason: "key_revoked" });
    expect(byId.get(alsoUnverified.userId)).toMatchObject({
      status: "cancelled",
      cancelReason: "key_revoked",
    });
    expect(byId.get(verified.userId)?.status).toBe("verified");
    const events = await db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.type, "user.cancelled"), eq(webhookEvents.accountId, unverified.userId)));
    expect(events).toHaveLength(1);
    expect((await call("GET", "/v1/me", { key: developer.key })).status).toBe(401);
    // The session no longer holds developer scopes.
    expect((await sessionContextFor(developer.accountId)).actor?.scopes).not.toContain("developer:read");
  });
});

describe("account page", () => {
  it("shows plan, limits, usage, terms and upgrade link; the language is saved on the account", async () => {
    const merchant = await createMerchant({ verified: true });
    await createTestStorefront(merchant.userKey);
    const ctx = await sessionContextFor(merchant.userId);
    const account = await getAccount(ctx);
    expect(account).toMatchObject({
      id: merchant.userId,
      email: merchant.email,
      status: "verified",
      plan: "FREE_NEW",
      limits: { storefronts: 1, products: 2_000, publishable: false },
      usage: { storefronts: 1, products: 0 },
      terms: { currentVersion: currentTerms().version, isAccepted: true },
      hasDeveloperKeys: false,
    });
    expect(account.upgradeUrl).toMatch(/\/dashboard\/billing\?plan=PRO$/);
    expect(await setAccountLanguage(ctx, { language: "pt" })).toEqual({ language: "pt" });
    expect((await getAccount(ctx)).language).toBe("pt");
    const pro = await createMerchant({ verified: true, plan: "PRO" });
    expect((await getAccount(await sessionContextFor(pro.userId))).upgradeUrl).toBeNull();
  });
});

describe("developers page", () => {
  it("lists the accounts its keys bootstrapped, newest first, with key and storefronts, filtered by status; issues a user key for one", async () => {
    const developer = await developerWithSession();
    const other = await createDeveloper();
    const first = await bootstrapUser(developer.key);
    const second = await bootstrapUser(developer.key);
    await createTestStorefront(second.userKey);
    await bootstrapUser(other.key);
    const db = await dbReady();
    await db
      .update(accounts)
      .set({ status: "verified", verifiedAt: new Date() })
      .where(eq(accounts.id, first.userId));
    const ctx = await sessionContextFor(developer.accountId);
    const all = await listPartnerUsers(ctx, { limit: 20 });
    expect(all.data.map((u) => u.id)).toEqual([second.userId, first.userId]);
    expect(all.data[0]).toMatchObject({
      email: second.email,
      status: "unverified",
      storefronts: 1,
      developerKey: { id: developer.keyId, name: "test developer", revoked: false },
    });
    const verified = await listPartnerUsers(ctx, { limit: 20, status: "verified" });
    expect(verified.data.map((u) => u.id)).toEqual([first.userId]);
    const page = await listPartnerUsers(ctx, { limit: 1 });
    expect(page.data.map((u) => u.id)).toEqual([second.userId]);
    const next = await listPartnerUsers(ctx, { limit: 1, cursor: page.nextCursor ?? undefined });
    expect(next).toMatchObject({ data: [{ id: first.userId }], nextCursor: null });

    const issued = await issueUserKey(ctx, { userId: first.userId, name: "from the dashboard" });
    expect(issued.userKey).toMatch(/^mk_user_/);
    expect(issued.key.scopes).toContain("storefront:publish");
    // A merchant without developer keys is refused.
    const merchant = await createMerchant({ verified: true });
    await expect(
      listPartnerUsers(await sessionContextFor(merchant.userId), { limit: 20 }),
    ).rejects.toMatchObject({
      code: "insufficient_scope",
    });
  });
});
