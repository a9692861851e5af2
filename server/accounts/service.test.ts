import { describe, expect, it } from "vitest";
import { latestVerificationCode } from "@/server/orders/testing";
import { contextWith, oauthContextFor, serviceContextFor, sessionContextFor } from "@/server/testing/context";
import { acceptCurrentTerms, cancelOwnAccount } from "./cancellation";
import { BootstrapUserInput } from "./schema";
import { bootstrapUser, getMe, issueUserKey } from "./service";
import { currentTerms } from "./terms";
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
