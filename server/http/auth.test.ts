import { describe, expect, it } from "vitest";
import { revokeDeveloperKeyAndCascade } from "@/server/accounts/cancellation";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { ErrorEnvelope } from "@/server/errors";
import { call } from "@/server/testing/api";
import { operatorContext } from "@/server/testing/context";

// docs/api.md, "Authentication": Bearer and X-API-Key; missing -> auth/missing_authorization; only a hash is
// stored.
describe("authentication", () => {
  it("missing credentials: 401 type auth, code missing_authorization", async () => {
    const res = await call("GET", "/v1/me");
    expect(res.status).toBe(401);
    const body = ErrorEnvelope.parse(res.body);
    expect(body.error).toMatchObject({ type: "auth", code: "missing_authorization", param: null });
    expect(res.headers.get("x-request-id")).toBe(body.error.requestId);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });

  it("an unknown key of the right shape: 401 invalid_api_key", async () => {
    const res = await call("GET", "/v1/me", { key: `mk_user_${"A".repeat(43)}` });
    expect(res.status).toBe(401);
    expect(ErrorEnvelope.parse(res.body).error.code).toBe("invalid_api_key");
  });

  it("a malformed key: 401 invalid_api_key", async () => {
    const res = await call("GET", "/v1/me", { key: "not-a-key" });
    expect(res.status).toBe(401);
    expect(ErrorEnvelope.parse(res.body).error.code).toBe("invalid_api_key");
  });

  it("a revoked key: 401 api_key_revoked", async () => {
    const dev = await createDeveloper();
    expect((await call("GET", "/v1/me", { key: dev.key })).status).toBe(200);
    await revokeDeveloperKeyAndCascade(await operatorContext(), { keyId: dev.keyId });
    const res = await call("GET", "/v1/me", { key: dev.key });
    expect(res.status).toBe(401);
    expect(ErrorEnvelope.parse(res.body).error).toMatchObject({ type: "auth", code: "api_key_revoked" });
  });

  it("X-API-Key works like Authorization: Bearer", async () => {
    const dev = await createDeveloper();
    const res = await call<{ keyId: string; type: string }>("GET", "/v1/me", {
      key: dev.key,
      keyHeader: "x-api-key",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ keyId: dev.keyId, type: "developer" });
  });

  it("a key of a cancelled account: 403 account_cancelled", async () => {
    const dev = await createDeveloper();
    const user = await bootstrapUser(dev.key);
    const db = await dbReady();
    const { accounts } = await import("@/server/gate/tables");
    const { eq } = await import("drizzle-orm");
    await db.update(accounts).set({ status: "cancelled" }).where(eq(accounts.id, user.userId));
    const res = await call("GET", "/v1/me", { key: user.userKey });
    expect(res.status).toBe(403);
    expect(ErrorEnvelope.parse(res.body).error.code).toBe("account_cancelled");
  });

  it("stores only a SHA-256 of the key, never the raw key", async () => {
    const dev = await createDeveloper();
    const db = await dbReady();
    const { apiKeys } = await import("@/server/gate/tables");
    const { eq } = await import("drizzle-orm");
    const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, dev.keyId));
    expect(row?.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(dev.key);
    expect(row?.prefix).toBe(`${dev.key.slice(0, 11)}…`);
  });
});

// docs/api.md, "Authentication": scope failures carry requiredScopes and heldScopes (any-of).
describe("scope check", () => {
  it("a user key calling bootstrap: 403 insufficient_scope with requiredScopes and heldScopes", async () => {
    const dev = await createDeveloper();
    const user = await bootstrapUser(dev.key);
    const res = await call("POST", "/v1/users", {
      key: user.userKey,
      body: { email: "someone@example.com" },
    });
    expect(res.status).toBe(403);
    const { error } = ErrorEnvelope.parse(res.body);
    expect(error).toMatchObject({ type: "auth", code: "insufficient_scope" });
    expect(error.requiredScopes).toEqual(["developer:bootstrap"]);
    expect(error.heldScopes).toEqual(["catalog:read", "catalog:write", "me:verify", "me:resendVerification"]);
  });
});
