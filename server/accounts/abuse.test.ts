import { inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { operatorContext } from "@/server/context";
import { dbReady } from "@/server/db/client";
import { windowStartOf } from "@/server/db/fixed-window";
import type { AppError } from "@/server/errors";
import { accountLimitWindows } from "@/server/gate/tables";
import { currentTerms } from "@/server/gate/terms";
import { sha256Hex } from "@/server/lib/crypto";
import { latestVerificationCode } from "@/server/orders/testing";
import { acceptTermsForAccount, completeBootstrapChoice } from "@/server/sessions/service";
import { signInThroughMail } from "@/server/sessions/testing";
import { serviceContextFor, sessionContextFor } from "@/server/testing/context";
import { runJob } from "@/server/wiring/jobs";
import { createAccountKey } from "./account-keys";
import { getAccount, setPartnerAccess } from "./account-page";
import { cancelOwnAccount, revokeDeveloperKeyAndCascade } from "./cancellation";
import { issueKey } from "./keys";
import { BOOTSTRAP_LIMITS, KEY_LIMITS, VERIFICATION_LIMITS } from "./limits";
import { createDeveloperKey } from "./operator";
import { bootstrapUser, issueUserKey } from "./partners";
import { BootstrapUserInput, CreateAccountKeyInput } from "./schema";
import { bootstrapUser as bootstrapTestUser, createDeveloper, uniqueEmail } from "./testing";
import { resendVerification, verifyEmail } from "./verification";

// Abuse limits of accounts and keys (docs/api.md, "Accounts and keys", "Account lifecycle", "Partner access";
// docs/security.md, "Abuse limits and product decisions"), on the services.

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  return promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (error: AppError) => error,
  );
}

/** A user key's context at a moved clock (`at` returns the current time of the test's story). */
function clock(start: string) {
  let now = new Date(start).getTime();
  return {
    at: () => new Date(now),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

async function wrongCode(email: string): Promise<string> {
  return (await latestVerificationCode(email)) === "000000" ? "111111" : "000000";
}

describe("M6: verification codes cannot be brute-forced", () => {
  it("M6: resends do not reset the lifetime count: after 20 tries in all the account is locked, right code or not", async () => {
    const dev = await createDeveloper();
    const user = await bootstrapTestUser(dev.key);
    const time = clock("2030-03-02T08:00:00Z");
    const ctx = await serviceContextFor(user.userKey, time.at);
    const guessAll = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const error = await refusal(verifyEmail(ctx, { code: await wrongCode(user.email) }));
        expect(error.code).toBe("invalid_verification_code");
      }
    };
    // Day 1: 5 tries void the code; a new code, 5 more: the day's 10.
    await guessAll(5);
    expect(await resendVerification(ctx)).toEqual({ status: "sent" });
    await guessAll(5);
    // Day 2: two more codes, 10 more tries: 20 in all.
    time.advance(DAY);
    expect(await resendVerification(ctx)).toEqual({ status: "sent" });
    await guessAll(5);
    time.advance(MINUTE);
    expect(await resendVerification(ctx)).toEqual({ status: "sent" });
    await guessAll(5);
    const right = await latestVerificationCode(user.email);
    time.advance(DAY);
    expect(await refusal(verifyEmail(ctx, { code: right }))).toMatchObject({
      code: "verification_locked",
      status: 409,
    });
    expect(await refusal(resendVerification(ctx))).toMatchObject({ code: "verification_locked" });
  });

  it("M6: at most 10 tries per account and UTC day (429 verification_rate_limited, the right code included); the next day works", async () => {
    const dev = await createDeveloper();
    const user = await bootstrapTestUser(dev.key);
    const time = clock("2030-03-05T22:00:00Z");
    const ctx = await serviceContextFor(user.userKey, time.at);
    for (let i = 0; i < VERIFICATION_LIMITS.triesPerDay; i++) {
      await refusal(verifyEmail(ctx, { code: await wrongCode(user.email) }));
    }
    const limited = await refusal(verifyEmail(ctx, { code: await latestVerificationCode(user.email) }));
    expect(limited).toMatchObject({ code: "verification_rate_limited", status: 429 });
    // Until midnight UTC.
    expect(limited.options.retryAfterMs).toBe(2 * 60 * MINUTE);
    time.advance(2 * 60 * MINUTE);
    expect(await resendVerification(ctx)).toEqual({ status: "sent" });
    const me = await verifyEmail(ctx, { code: await latestVerificationCode(user.email) });
    expect(me.account.status).toBe("verified");
  });

  it("M6: at most 5 resends a UTC day (then throttled), and 10 codes in all, the first included (then verification_locked)", async () => {
    const dev = await createDeveloper();
    const user = await bootstrapTestUser(dev.key);
    const time = clock("2030-03-10T08:00:00Z");
    const ctx = await serviceContextFor(user.userKey, time.at);
    for (let i = 0; i < VERIFICATION_LIMITS.resendsPerDay; i++) {
      time.advance(MINUTE);
      expect(await resendVerification(ctx)).toEqual({ status: "sent" });
    }
    time.advance(MINUTE);
    expect(await resendVerification(ctx)).toEqual({ status: "throttled" });
    time.advance(DAY);
    for (let i = 0; i < VERIFICATION_LIMITS.codesInAll - 1 - VERIFICATION_LIMITS.resendsPerDay; i++) {
      time.advance(MINUTE);
      expect(await resendVerification(ctx)).toEqual({ status: "sent" });
    }
    time.advance(MINUTE);
    expect(await refusal(resendVerification(ctx))).toMatchObject({ code: "verification_locked" });
    // The last code mailed still verifies: the cap is on codes mailed, not on proving the address.
    const me = await verifyEmail(ctx, { code: await latestVerificationCode(user.email) });
    expect(me.account.status).toBe("verified");
  });
});

describe("M6: the owner controls the partner's access", () => {
  it("M6: a partner issues keys only while the key that bootstrapped the account is live", async () => {
    const dev = await createDeveloper();
    const second = await createDeveloperKey(operatorContext({ db: await dbReady() }), {
      email: dev.email,
      name: "second key",
    });
    const user = await bootstrapTestUser(dev.key);
    const ctx = await serviceContextFor(user.userKey);
    await verifyEmail(ctx, { code: await latestVerificationCode(user.email) });
    const partner = await serviceContextFor(second.key);
    await expect(issueUserKey(partner, { userId: user.userId })).resolves.toMatchObject({
      key: { scopes: expect.arrayContaining(["storefront:publish"]) },
    });
    await revokeDeveloperKeyAndCascade(operatorContext({ db: await dbReady() }), { keyId: dev.keyId });
    expect(await refusal(issueUserKey(partner, { userId: user.userId }))).toMatchObject({
      code: "user_not_found",
    });
  });

  it("M6: once the owner signs in to the dashboard the partner's access is off until the owner grants it; turned off again, it stops", async () => {
    const dev = await createDeveloper();
    const user = await bootstrapTestUser(dev.key);
    const partner = await serviceContextFor(dev.key);
    await issueUserKey(partner, { userId: user.userId });
    const chosen = await signInThroughMail(user.email);
    if (chosen.kind !== "choose") throw new Error("expected the bootstrap question");
    const db = await dbReady();
    await completeBootstrapChoice(
      db,
      { challengeToken: chosen.challengeToken, choice: "continue" },
      new Date(),
    );
    expect(await refusal(issueUserKey(partner, { userId: user.userId }))).toMatchObject({
      code: "partner_access_off",
      status: 403,
    });
    const owner = await sessionContextFor(user.userId);
    expect((await getAccount(owner)).partner).toEqual({
      email: dev.email,
      name: "test developer",
      hasAccess: false,
      isKeyLive: true,
      liveKeys: 2,
    });
    expect(await setPartnerAccess(owner, { hasAccess: true })).toMatchObject({ hasAccess: true });
    await expect(issueUserKey(partner, { userId: user.userId })).resolves.toMatchObject({ key: {} });
    // Signing in again does not take a granted access away.
    const again = await signInThroughMail(user.email);
    expect(again.kind).toBe("signed_in");
    await expect(issueUserKey(partner, { userId: user.userId })).resolves.toMatchObject({ key: {} });
    await setPartnerAccess(owner, { hasAccess: false });
    expect(await refusal(issueUserKey(partner, { userId: user.userId }))).toMatchObject({
      code: "partner_access_off",
    });
  });

  it("M6: an account no partner made has no partner section, and no access to grant", async () => {
    const email = uniqueEmail("owner");
    const signed = await signInThroughMail(email);
    if (signed.kind !== "signed_in") throw new Error("expected a session");
    const owner = await sessionContextFor(signed.accountId);
    expect((await getAccount(owner)).partner).toBeNull();
    expect(await refusal(setPartnerAccess(owner, { hasAccess: true }))).toMatchObject({
      code: "invalid_request",
      options: { param: "hasAccess" },
    });
  });
});

describe("L3: developer keys and bootstraps have budgets", () => {
  it("L3: createDeveloperKey enforces daily-limit 1-10,000,000 and rpm 1-1,000,000 itself (its schema), not only the CLI", async () => {
    const ctx = operatorContext({ db: await dbReady() });
    const email = uniqueEmail("dev");
    for (const [input, param] of [
      [{ dailyLimit: 0 }, "dailyLimit"],
      [{ dailyLimit: 10_000_001 }, "dailyLimit"],
      [{ rpm: 1_000_001 }, "rpm"],
      [{ rpm: 1.5 }, "rpm"],
    ] as const) {
      expect(await refusal(createDeveloperKey(ctx, { email, ...input }))).toMatchObject({
        code: "invalid_request",
        options: { param },
      });
    }
    await expect(
      createDeveloperKey(ctx, { email, dailyLimit: 10_000_000, rpm: 1_000_000 }),
    ).resolves.toMatchObject({
      keyId: expect.stringMatching(/^key_/),
    });
  });

  it("L3: an account holds at most 10 live developer keys and 100 live user keys (409 api_key_limit_reached)", async () => {
    const email = uniqueEmail("owner");
    const signed = await signInThroughMail(email);
    if (signed.kind !== "signed_in") throw new Error("expected a session");
    await acceptTermsForAccount(
      await dbReady(),
      { accountId: signed.accountId, version: currentTerms().version },
      new Date(),
    );
    const owner = await sessionContextFor(signed.accountId);
    const developerKey = CreateAccountKeyInput.parse({ kind: "developer", name: "ci" });
    for (let i = 0; i < KEY_LIMITS.developerKeys; i++) await createAccountKey(owner, developerKey);
    expect(await refusal(createAccountKey(owner, developerKey))).toMatchObject({
      code: "api_key_limit_reached",
      status: 409,
    });
    const db = await dbReady();
    for (let i = 0; i < KEY_LIMITS.userKeys; i++) {
      await issueKey(db, {
        accountId: signed.accountId,
        kind: "user",
        scopes: [],
        source: "dashboard",
        now: new Date(),
      });
    }
    expect(
      await refusal(createAccountKey(owner, CreateAccountKeyInput.parse({ kind: "user" }))),
    ).toMatchObject({
      code: "api_key_limit_reached",
    });
  });

  it("L3: a partner issues at most 100 live user keys for an account", async () => {
    const dev = await createDeveloper();
    const user = await bootstrapTestUser(dev.key);
    const db = await dbReady();
    // The bootstrap's key and 99 more.
    for (let i = 1; i < KEY_LIMITS.userKeys; i++) {
      await issueKey(db, {
        accountId: user.userId,
        kind: "user",
        scopes: [],
        source: "api",
        now: new Date(),
      });
    }
    expect(
      await refusal(issueUserKey(await serviceContextFor(dev.key), { userId: user.userId })),
    ).toMatchObject({
      code: "api_key_limit_reached",
    });
  });

  it("L3: 100 bootstraps per developer account and UTC day, whatever key (429 bootstrap_rate_limited); an operator can set another figure", async () => {
    const now = new Date("2026-04-01T10:00:00Z");
    const dev = await createDeveloper();
    const db = await dbReady();
    await db.insert(accountLimitWindows).values({
      key: sha256Hex(`bootstrap:${dev.accountId}`),
      windowStart: windowStartOf(now, BOOTSTRAP_LIMITS.windowSeconds),
      count: BOOTSTRAP_LIMITS.perDay,
    });
    const ctx = await serviceContextFor(dev.key, () => now);
    const input = () => BootstrapUserInput.parse({ email: uniqueEmail() });
    expect(await refusal(bootstrapUser(ctx, input()))).toMatchObject({
      code: "bootstrap_rate_limited",
      status: 429,
      options: { retryAfterMs: 14 * 60 * MINUTE },
    });
    await expect(
      bootstrapUser(await serviceContextFor(dev.key, () => new Date("2026-04-02T00:00:00Z")), input()),
    ).resolves.toMatchObject({ user: {} });
    // The operator's own figure for this developer: 2 a day.
    const operator = operatorContext({ db });
    await createDeveloperKey(operator, { email: dev.email, bootstrapDailyLimit: 2 });
    const day3 = await serviceContextFor(dev.key, () => new Date("2026-04-03T00:00:00Z"));
    await bootstrapUser(day3, input());
    await bootstrapUser(day3, input());
    expect(await refusal(bootstrapUser(day3, input()))).toMatchObject({ code: "bootstrap_rate_limited" });
  });

  it("L3: email_taken stays 409, and after 20 of them in a day the developer bootstraps nothing more that day", async () => {
    const owners = await createDeveloper();
    const taken: string[] = [];
    for (let i = 0; i < BOOTSTRAP_LIMITS.takenPerDay; i++)
      taken.push((await bootstrapTestUser(owners.key)).email);
    const prober = await createDeveloper();
    const now = new Date("2026-04-10T12:00:00Z");
    const ctx = await serviceContextFor(prober.key, () => now);
    for (const email of taken) {
      expect(await refusal(bootstrapUser(ctx, BootstrapUserInput.parse({ email })))).toMatchObject({
        code: "email_taken",
        status: 409,
      });
    }
    // A fresh address too: the answer no longer tells whether an address is taken.
    expect(
      await refusal(bootstrapUser(ctx, BootstrapUserInput.parse({ email: uniqueEmail() }))),
    ).toMatchObject({
      code: "bootstrap_rate_limited",
    });
    const tomorrow = await serviceContextFor(prober.key, () => new Date("2026-04-11T00:00:00Z"));
    await expect(
      bootstrapUser(tomorrow, BootstrapUserInput.parse({ email: uniqueEmail() })),
    ).resolves.toMatchObject({
      user: {},
    });
  });

  it("L3: one address is bootstrapped at most 3 times in 30 days, across developers (each opens 20 more verification tries)", async () => {
    const email = uniqueEmail("victim");
    const now = new Date("2026-05-01T12:00:00Z");
    for (let i = 0; i < BOOTSTRAP_LIMITS.perAddress; i++) {
      const dev = await createDeveloper();
      const made = await bootstrapUser(
        await serviceContextFor(dev.key, () => now),
        BootstrapUserInput.parse({ email }),
      );
      await cancelOwnAccount(await serviceContextFor(made.userKey, () => now));
    }
    const last = await createDeveloper();
    expect(
      await refusal(
        bootstrapUser(await serviceContextFor(last.key, () => now), BootstrapUserInput.parse({ email })),
      ),
    ).toMatchObject({ code: "bootstrap_rate_limited" });
  });
});

describe("account limit windows", () => {
  it("the job purge-rate-limits drops windows older than the longest one (30 days) and keeps the rest", async () => {
    const db = await dbReady();
    const now = new Date("2031-01-31T00:00:00Z");
    const old = {
      key: sha256Hex(`bootstrap:old-${Date.now()}`),
      windowStart: now.getTime() / 1000 - 31 * 86_400,
      count: 1,
    };
    const recent = {
      key: sha256Hex(`bootstrap:new-${Date.now()}`),
      windowStart: now.getTime() / 1000 - 86_400,
      count: 1,
    };
    await db.insert(accountLimitWindows).values([old, recent]);
    const result = await runJob(db, "purge-rate-limits", now);
    expect(result.accountLimitWindows).toBeGreaterThanOrEqual(1);
    const left = await db
      .select()
      .from(accountLimitWindows)
      .where(inArray(accountLimitWindows.key, [old.key, recent.key]));
    expect(left.map((row) => row.key)).toEqual([recent.key]);
  });
});
