import { describe, expect, it } from "vitest";
import { operatorContext } from "@/server/context";
import { dbReady } from "@/server/db/client";
import { currentTerms } from "@/server/gate/terms";
import { latestVerificationCode } from "@/server/orders/testing";
import { contextWith, oauthContextFor, serviceContextFor, sessionContextFor } from "@/server/testing/context";
import { acceptCurrentTerms, cancelOwnAccount, revokeDeveloperKeyAndCascade } from "./cancellation";
import { createDeveloperKey, setPlan } from "./operator";
import { bootstrapUser, issueUserKey, listBootstrappedUsers, loadBootstrappedUsers } from "./partners";
import { BootstrapUserInput } from "./schema";
import { getMe } from "./service";
import { createDeveloper, uniqueEmail } from "./testing";
import { verifyEmail } from "./verification";

// Account services called directly (docs/api.md, "Accounts and keys"; docs/architecture.md, "Actors").

const bootstrapInput = (email = uniqueEmail()) => BootstrapUserInput.parse({ email, language: "en" });

describe("account services", () => {
  it("a developer key bootstraps a user; the same email twice is email_taken", async () => {
    const developer = await createDeveloper();
    const ctx = await serviceContextFor(developer.key);
    const email = uniqueEmail();
    const made = await bootstrapUser(ctx, bootstrapInput(email));
    expect(made.user).toMatchObject({ email, status: "unverified", developerKeyId: developer.keyId });
    expect(made.userKey).toMatch(/^mk_user_/);
    await expect(bootstrapUser(ctx, bootstrapInput(email.toUpperCase()))).rejects.toMatchObject({
      code: "email_taken",
      options: { param: "email" },
    });
  });

  it("bootstrapping is a key's operation: the developer's own dashboard session is refused", async () => {
    const developer = await createDeveloper();
    await acceptCurrentTerms(await sessionContextFor(developer.accountId), {
      version: currentTerms().version,
    });
    await expect(
      bootstrapUser(await sessionContextFor(developer.accountId), bootstrapInput()),
    ).rejects.toMatchObject({ code: "insufficient_scope" });
  });

  it("the developer's dashboard session issues a user key for an account it bootstrapped, never for another's", async () => {
    const developer = await createDeveloper();
    const made = await bootstrapUser(await serviceContextFor(developer.key), bootstrapInput());
    await acceptCurrentTerms(await sessionContextFor(developer.accountId), {
      version: currentTerms().version,
    });
    const session = await sessionContextFor(developer.accountId);
    const issued = await issueUserKey(session, { userId: made.user.id, name: "till" });
    expect(issued.key).toMatchObject({
      name: "till",
      scopes: ["catalog:read", "catalog:write", "me:verify", "me:resendVerification"],
    });
    const other = await createDeveloper();
    await expect(
      issueUserKey(await serviceContextFor(other.key), { userId: made.user.id }),
    ).rejects.toMatchObject({ code: "user_not_found" });
  });

  it("verifying through an OAuth-connected app's key: the account is verified and its identity gains storefront:publish", async () => {
    const developer = await createDeveloper();
    const email = uniqueEmail();
    const made = await bootstrapUser(await serviceContextFor(developer.key), bootstrapInput(email));
    const ctx = await oauthContextFor(made.userKey);
    await expect(verifyEmail(ctx, { code: "000000" })).rejects.toMatchObject({
      code: "invalid_verification_code",
    });
    const me = await verifyEmail(ctx, { code: await latestVerificationCode(email) });
    expect(me.account.status).toBe("verified");
    expect(me.scopes).toContain("storefront:publish");
    expect((await getMe(await oauthContextFor(made.userKey))).keyId).toBe(me.keyId);
  });

  it("cancelling: a user's session cancels its account; a developer key cannot; no actor is 401", async () => {
    const developer = await createDeveloper();
    await expect(cancelOwnAccount(await serviceContextFor(developer.key))).rejects.toMatchObject({
      code: "insufficient_scope",
    });
    const made = await bootstrapUser(await serviceContextFor(developer.key), bootstrapInput());
    expect(await cancelOwnAccount(await sessionContextFor(made.user.id))).toEqual({
      id: made.user.id,
      deleted: true,
    });
    await expect(sessionContextFor(made.user.id)).rejects.toMatchObject({ code: "account_cancelled" });
    await expect(serviceContextFor(made.userKey)).rejects.toMatchObject({ code: "account_cancelled" });
    await expect(cancelOwnAccount(await contextWith(null))).rejects.toMatchObject({
      code: "missing_authorization",
    });
  });
});

describe("a developer's bootstrapped users", () => {
  it("lists the accounts its keys bootstrapped by id, page by page, and loads them by id", async () => {
    const developer = await createDeveloper();
    const other = await createDeveloper();
    const ctx = await serviceContextFor(developer.key);
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await bootstrapUser(ctx, bootstrapInput())).user);
    const strangers = await bootstrapUser(await serviceContextFor(other.key), bootstrapInput());

    const first = await listBootstrappedUsers(ctx, { limit: 2 });
    expect(first.data.map((u) => u.id)).toEqual([made[0]?.id, made[1]?.id]);
    const second = await listBootstrappedUsers(ctx, { limit: 2, cursor: first.nextCursor ?? undefined });
    expect(second).toEqual({ data: [made[2]], nextCursor: null });

    const loaded = await loadBootstrappedUsers(ctx, {
      userIds: [made[2]?.id ?? "", strangers.user.id, "usr_unknown", made[0]?.id ?? ""],
    });
    expect(loaded[0]).toEqual(made[2]);
    expect(loaded[1]).toMatchObject({ code: "user_not_found", options: { param: "userId" } });
    expect(loaded[2]).toMatchObject({ code: "user_not_found" });
    expect(loaded[3]).toEqual(made[0]);
  });

  it("needs developer:read: a user key is refused, whatever the door", async () => {
    const developer = await createDeveloper();
    const { userKey, user } = await bootstrapUser(await serviceContextFor(developer.key), bootstrapInput());
    for (const ctx of [await serviceContextFor(userKey), await sessionContextFor(user.id)]) {
      await expect(listBootstrappedUsers(ctx, { limit: 20 })).rejects.toMatchObject({
        code: "insufficient_scope",
        options: { requiredScopes: ["developer:read"] },
      });
      await expect(loadBootstrappedUsers(ctx, { userIds: [user.id] })).rejects.toMatchObject({
        code: "insufficient_scope",
      });
    }
  });
});

// docs/architecture.md, "Actors": the operator's functions run only in the operator's context (`operatorContext`,
// made by the CLI and its admin endpoint), never for an actor of any door nor for a public caller.
describe("the operator's functions", () => {
  it("refuse a developer key, a user key, a dashboard session, an OAuth app and a public context with 403 insufficient_scope, writing nothing", async () => {
    const developer = await createDeveloper();
    const made = await bootstrapUser(await serviceContextFor(developer.key), bootstrapInput());
    const contexts = [
      await serviceContextFor(developer.key),
      await serviceContextFor(made.userKey),
      await sessionContextFor(developer.accountId),
      await oauthContextFor(made.userKey),
      await contextWith(null),
    ];
    for (const ctx of contexts) {
      const who = ctx.actor ? `${ctx.actor.kind} via ${ctx.actor.via.type}` : "public";
      for (const refused of [
        () => createDeveloperKey(ctx, { email: uniqueEmail("refused"), dailyLimit: 5 }),
        () => setPlan(ctx, { email: made.user.email, plan: "PRO" }),
        () => revokeDeveloperKeyAndCascade(ctx, { keyId: developer.keyId }),
      ]) {
        await expect(refused(), who).rejects.toMatchObject({ code: "insufficient_scope", status: 403 });
      }
    }
    expect((await getMe(await serviceContextFor(developer.key))).keyId).toBe(developer.keyId);
    expect((await getMe(await serviceContextFor(made.userKey))).account.plan).toBe("FREE_NEW");
  });

  it("run in the operator's context: a developer key, a plan, a revocation", async () => {
    const operator = operatorContext({ db: await dbReady() });
    const email = uniqueEmail("operated");
    const created = await createDeveloperKey(operator, { email, dailyLimit: 7, rpm: 70 });
    const me = await getMe(await serviceContextFor(created.key));
    expect(me).toMatchObject({ type: "developer", rateLimit: { rpm: 70, rpd: 7 } });
    expect(await setPlan(operator, { email, plan: "PRO" })).toEqual({
      accountId: created.accountId,
      plan: "PRO",
    });
    expect(await revokeDeveloperKeyAndCascade(operator, { keyId: created.keyId })).toEqual({
      keyId: created.keyId,
      cancelledAccounts: 0,
    });
    await expect(serviceContextFor(created.key)).rejects.toMatchObject({ code: "api_key_revoked" });
  });

  it("createDeveloperKey holds its own ranges (its schema, which the CLI reads): 400 invalid_request naming the field", async () => {
    const operator = operatorContext({ db: await dbReady() });
    for (const [input, param] of [
      [{ dailyLimit: 0 }, "dailyLimit"],
      [{ dailyLimit: 10_000_001 }, "dailyLimit"],
      [{ rpm: 0 }, "rpm"],
      [{ rpm: 1_000_001 }, "rpm"],
      [{ bootstrapDailyLimit: 10_000_001 }, "bootstrapDailyLimit"],
      [{ email: "not an address" }, "email"],
    ] as const) {
      await expect(
        createDeveloperKey(operator, { email: uniqueEmail("range"), ...input }),
      ).rejects.toMatchObject({ code: "invalid_request", status: 400, options: { param } });
    }
  });
});
