import { and, count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { cancelAccountInTransaction } from "@/server/accounts/cancellation";
import { bootstrapUser, createDeveloper, uniqueEmail } from "@/server/accounts/testing";
import { type Db, dbReady } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { accounts, apiKeys } from "@/server/gate/tables";
import { currentTerms } from "@/server/gate/terms";
import { sha256Hex } from "@/server/lib/crypto";
import { listOutbox } from "@/server/mail/service";
import { webhookDeliveries, webhookEvents } from "@/server/webhooks/tables";
import { createTestEndpoint, setTestEnv } from "@/server/webhooks/testing";
import { SESSION_TTL_MS } from "./constants";
import {
  acceptTermsForAccount,
  completeBootstrapChoice,
  createSession,
  MAX_SIGN_IN_CODE_ATTEMPTS,
  purgeExpiredSignInData,
  requestSignInCode,
  resolveSession,
  resolveSignedInSession,
  SIGN_IN_LIMITS,
  signOut,
  signOutEverywhere,
  verifySignInCode,
} from "./service";
import { sessions, signInCodes } from "./tables";
import { latestSignInCode, signedInSession, signInThroughMail, uniqueIp } from "./testing";

setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1" });

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

let db: Db;
let developer: { key: string; keyId: string; accountId: string };
let endpointId: string;

beforeAll(async () => {
  db = await dbReady();
  developer = await createDeveloper();
  // No worker runs in this file: events and deliveries stay in the outbox tables, where the tests read them.
  const endpoint = await createTestEndpoint(developer.key, {
    url: "http://127.0.0.1:9/hook",
    subscribedEvents: ["user.verified", "user.cancelled"],
  });
  endpointId = endpoint.endpointId;
});

async function expectAppError(promise: Promise<unknown>, code: string, param?: string): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe(code);
  if (param !== undefined) expect((error as AppError).options.param).toBe(param);
  return error as AppError;
}

async function accountsWithEmail(email: string) {
  return db.select().from(accounts).where(eq(accounts.email, email));
}

async function eventFor(type: string, userId: string) {
  const [event] = await db
    .select()
    .from(webhookEvents)
    .where(and(eq(webhookEvents.type, type), eq(webhookEvents.accountId, userId)));
  if (!event) return null;
  const deliveries = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.eventRowId, event.id), eq(webhookDeliveries.endpointId, endpointId)));
  return { envelope: event.envelope as { data: Record<string, unknown> }, deliveries };
}

function wrongCode(code: string): string {
  return code === "000000" ? "111111" : "000000";
}

describe("sign-up and sign-in through a mailed code", () => {
  it("a new address: the code is mailed, nothing exists until it is entered, then a verified account signs in", async () => {
    const email = uniqueEmail("newcomer");
    const now = new Date();
    const answer = await requestSignInCode(
      db,
      { email: email.toUpperCase(), ip: uniqueIp(), language: "es" },
      now,
    );
    expect(answer).toEqual({ email });

    const [mail] = await listOutbox(db, { to: email });
    expect(mail?.kind).toBe("sign_in_code");
    expect(mail?.subject).toMatch(/^Tu código para entrar en Marea: \d{6}$/);
    expect(await accountsWithEmail(email)).toEqual([]);

    const code = await latestSignInCode(email);
    const result = await verifySignInCode(
      db,
      { email, code: ` ${code} `, ip: uniqueIp(), language: "es" },
      new Date(now.getTime() + MINUTE),
    );
    expect(result.kind).toBe("signed_in");
    if (result.kind !== "signed_in") return;
    expect(result.needsTerms).toBe(true);
    expect(result.session.token).toMatch(/^[0-9a-f]{64}$/);

    const [account] = await accountsWithEmail(email);
    expect(account).toMatchObject({
      id: result.accountId,
      status: "verified",
      source: "dashboard",
      plan: "FREE_NEW",
      language: "es",
      tosAcceptedVersion: null,
    });
    expect(account?.verifiedAt).toBeInstanceOf(Date);
    const resolved = await resolveSession(db, result.session.token, new Date());
    expect(resolved?.accountId).toBe(result.accountId);
    // The code is used up.
    await expectAppError(
      verifySignInCode(db, { email, code: code ?? "", ip: uniqueIp(), language: "es" }, new Date()),
      "sign_in_code_expired",
      "code",
    );
  });

  it("an existing account signs in to itself; no second account is made", async () => {
    const existing = await createDeveloper();
    const result = await signedInSession(existing.email);
    expect(result.accountId).toBe(existing.accountId);
    expect(await accountsWithEmail(existing.email)).toHaveLength(1);
    // The CLI made it without terms: the terms step follows. Once accepted, it does not.
    expect(result.needsTerms).toBe(true);
    await acceptTermsForAccount(
      db,
      { accountId: existing.accountId, version: currentTerms().version },
      new Date(),
    );
    expect((await signedInSession(existing.email)).needsTerms).toBe(false);
    await expectAppError(
      acceptTermsForAccount(db, { accountId: existing.accountId, version: "1999-01-01" }, new Date()),
      "invalid_request",
      "version",
    );
  });

  it("five wrong codes void the code: the right one then fails too", async () => {
    const email = uniqueEmail("guesser");
    const ip = uniqueIp();
    await requestSignInCode(db, { email, ip, language: "en" }, new Date());
    const code = (await latestSignInCode(email)) ?? "";
    for (let i = 1; i < MAX_SIGN_IN_CODE_ATTEMPTS; i++) {
      await expectAppError(
        verifySignInCode(db, { email, code: wrongCode(code), ip, language: "en" }, new Date()),
        "invalid_sign_in_code",
        "code",
      );
    }
    // The fifth wrong try uses the code up, and says so.
    await expectAppError(
      verifySignInCode(db, { email, code: wrongCode(code), ip, language: "en" }, new Date()),
      "sign_in_code_expired",
      "code",
    );
    await expectAppError(
      verifySignInCode(db, { email, code, ip, language: "en" }, new Date()),
      "sign_in_code_expired",
    );
    expect(await accountsWithEmail(email)).toEqual([]);
  });

  it("a malformed code counts as a wrong try", async () => {
    const email = uniqueEmail("typo");
    await requestSignInCode(db, { email, ip: uniqueIp(), language: "en" }, new Date());
    await expectAppError(
      verifySignInCode(db, { email, code: "12a456", ip: uniqueIp(), language: "en" }, new Date()),
      "invalid_sign_in_code",
    );
    const [row] = await db.select().from(signInCodes).where(eq(signInCodes.email, email));
    expect(row?.attempts).toBe(1);
  });

  it("a code expires after 10 minutes", async () => {
    const email = uniqueEmail("slow");
    const sentAt = new Date();
    await requestSignInCode(db, { email, ip: uniqueIp(), language: "en" }, sentAt);
    const code = (await latestSignInCode(email)) ?? "";
    await expectAppError(
      verifySignInCode(
        db,
        { email, code, ip: uniqueIp(), language: "en" },
        new Date(sentAt.getTime() + 10 * MINUTE + 1),
      ),
      "sign_in_code_expired",
      "code",
    );
    // Just inside the ten minutes it works (the failed try above counted, within the five allowed).
    const result = await verifySignInCode(
      db,
      { email, code, ip: uniqueIp(), language: "en" },
      new Date(sentAt.getTime() + 10 * MINUTE - 1000),
    );
    expect(result.kind).toBe("signed_in");
  });

  it("a code never requested is refused like an expired one", async () => {
    await expectAppError(
      verifySignInCode(
        db,
        { email: uniqueEmail("nobody"), code: "123456", ip: uniqueIp(), language: "en" },
        new Date(),
      ),
      "sign_in_code_expired",
      "code",
    );
  });

  it("an address that is not one is refused next to the email field", async () => {
    await expectAppError(
      requestSignInCode(db, { email: "not-an-address", ip: uniqueIp(), language: "en" }, new Date()),
      "invalid_email_address",
      "email",
    );
  });
});

describe("one mail a minute, and no account enumeration", () => {
  it("a second request within the minute sends nothing and answers the same; after the minute a new code replaces the old", async () => {
    const email = uniqueEmail("impatient");
    const t0 = new Date();
    const first = await requestSignInCode(db, { email, ip: uniqueIp(), language: "en" }, t0);
    const firstCode = (await latestSignInCode(email)) ?? "";
    const second = await requestSignInCode(
      db,
      { email, ip: uniqueIp(), language: "en" },
      new Date(t0.getTime() + 59_000),
    );
    expect(second).toEqual(first);
    expect(await listOutbox(db, { to: email })).toHaveLength(1);

    await requestSignInCode(db, { email, ip: uniqueIp(), language: "en" }, new Date(t0.getTime() + 61_000));
    expect(await listOutbox(db, { to: email })).toHaveLength(2);
    const secondCode = (await latestSignInCode(email)) ?? "";
    const later = new Date(t0.getTime() + 62_000);
    if (secondCode !== firstCode) {
      await expectAppError(
        verifySignInCode(db, { email, code: firstCode, ip: uniqueIp(), language: "en" }, later),
        "invalid_sign_in_code",
      );
    }
    const result = await verifySignInCode(
      db,
      { email, code: secondCode, ip: uniqueIp(), language: "en" },
      later,
    );
    expect(result.kind).toBe("signed_in");
  });

  it("a known and an unknown address get the same answer, the same mail, and no account changes", async () => {
    const known = await createDeveloper();
    const unknown = uniqueEmail("stranger");
    const [before] = await accountsWithEmail(known.email);
    const now = new Date();
    const knownAnswer = await requestSignInCode(
      db,
      { email: known.email, ip: uniqueIp(), language: "en" },
      now,
    );
    const unknownAnswer = await requestSignInCode(
      db,
      { email: unknown, ip: uniqueIp(), language: "en" },
      now,
    );
    expect(Object.keys(knownAnswer)).toEqual(Object.keys(unknownAnswer));
    expect(knownAnswer).toEqual({ email: known.email });
    expect(unknownAnswer).toEqual({ email: unknown });
    const [knownMail] = await listOutbox(db, { to: known.email });
    const [unknownMail] = await listOutbox(db, { to: unknown });
    expect(knownMail?.text.replace(/\d{6}/, "CODE")).toBe(unknownMail?.text.replace(/\d{6}/, "CODE"));
    expect(await accountsWithEmail(known.email)).toEqual([before]);
    expect(await accountsWithEmail(unknown)).toEqual([]);
  });

  it("a stranger asking for a code to a bootstrapped address changes nothing for it", async () => {
    const user = await bootstrapUser(developer.key);
    const [before] = await accountsWithEmail(user.email);
    await requestSignInCode(db, { email: user.email, ip: uniqueIp(), language: "en" }, new Date());
    expect(await accountsWithEmail(user.email)).toEqual([before]);
    expect(before?.status).toBe("unverified");
    expect(await eventFor("user.cancelled", user.userId)).toBeNull();
  });
});

describe("an address held by an unverified bootstrap account", () => {
  it("proving it asks first; nothing changes until the choice", async () => {
    const user = await bootstrapUser(developer.key);
    const result = await signInThroughMail(user.email);
    expect(result).toMatchObject({ kind: "choose", email: user.email });
    const [account] = await accountsWithEmail(user.email);
    expect(account?.status).toBe("unverified");
    expect(await db.select().from(sessions).where(eq(sessions.accountId, user.userId))).toEqual([]);
  });

  it("continue with it: verified as POST /v1/me/verify does, user.verified to the developer, signed in", async () => {
    const user = await bootstrapUser(developer.key);
    const asked = await signInThroughMail(user.email);
    if (asked.kind !== "choose") throw new Error("expected the bootstrap question");
    const now = new Date();
    const result = await completeBootstrapChoice(
      db,
      { challengeToken: asked.challengeToken, choice: "continue" },
      now,
    );
    expect(result.accountId).toBe(user.userId);
    expect(result.needsTerms).toBe(false);

    const [account] = await accountsWithEmail(user.email);
    expect(account).toMatchObject({
      id: user.userId,
      status: "verified",
      tosAcceptedVersion: currentTerms().version,
    });
    expect(account?.verifiedAt?.getTime()).toBe(now.getTime());
    const keys = await db.select().from(apiKeys).where(eq(apiKeys.accountId, user.userId));
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key.scopes).toContain("storefront:publish");

    const event = await eventFor("user.verified", user.userId);
    expect(event?.envelope.data).toMatchObject({ userId: user.userId, developerKeyId: developer.keyId });
    expect(event?.deliveries).toHaveLength(1);
    expect((await resolveSession(db, result.session.token, new Date()))?.accountId).toBe(user.userId);

    // The question is answered once.
    await expectAppError(
      completeBootstrapChoice(db, { challengeToken: asked.challengeToken, choice: "continue" }, new Date()),
      "sign_in_expired",
    );
  });

  it("start a new account: the old one is cancelled (squatting_defense, user.cancelled), a new verified one signs in", async () => {
    const user = await bootstrapUser(developer.key);
    const asked = await signInThroughMail(user.email, { language: "pt" });
    if (asked.kind !== "choose") throw new Error("expected the bootstrap question");
    const result = await completeBootstrapChoice(
      db,
      { challengeToken: asked.challengeToken, choice: "new" },
      new Date(),
    );
    expect(result.accountId).not.toBe(user.userId);
    expect(result.needsTerms).toBe(true);

    const rows = await accountsWithEmail(user.email);
    const old = rows.find((r) => r.id === user.userId);
    const fresh = rows.find((r) => r.id === result.accountId);
    expect(old).toMatchObject({ status: "cancelled", cancelReason: "squatting_defense" });
    expect(fresh).toMatchObject({
      status: "verified",
      source: "dashboard",
      plan: "FREE_NEW",
      language: "pt",
    });
    expect(fresh?.developerKeyId).toBeNull();

    const event = await eventFor("user.cancelled", user.userId);
    expect(event?.envelope.data).toMatchObject({ userId: user.userId, reason: "squatting_defense" });
    expect(event?.deliveries).toHaveLength(1);
    expect(await eventFor("user.verified", user.userId)).toBeNull();
  });

  it("an expired question cannot be answered", async () => {
    const user = await bootstrapUser(developer.key);
    const asked = await signInThroughMail(user.email);
    if (asked.kind !== "choose") throw new Error("expected the bootstrap question");
    await expectAppError(
      completeBootstrapChoice(
        db,
        { challengeToken: asked.challengeToken, choice: "new" },
        new Date(Date.now() + 16 * MINUTE),
      ),
      "sign_in_expired",
    );
    expect((await accountsWithEmail(user.email))[0]?.status).toBe("unverified");
    await expectAppError(
      completeBootstrapChoice(db, { challengeToken: "not-a-token", choice: "new" }, new Date()),
      "sign_in_expired",
    );
  });

  it("a bootstrap account verified meanwhile is simply signed in, whatever the choice", async () => {
    const user = await bootstrapUser(developer.key);
    const asked = await signInThroughMail(user.email);
    if (asked.kind !== "choose") throw new Error("expected the bootstrap question");
    await db
      .update(accounts)
      .set({ status: "verified", verifiedAt: new Date() })
      .where(eq(accounts.id, user.userId));
    const result = await completeBootstrapChoice(
      db,
      { challengeToken: asked.challengeToken, choice: "new" },
      new Date(),
    );
    expect(result.accountId).toBe(user.userId);
    expect((await accountsWithEmail(user.email)).map((r) => r.status)).toEqual(["verified"]);
  });

  it("a verified bootstrap account signs in directly", async () => {
    const user = await bootstrapUser(developer.key);
    await db
      .update(accounts)
      .set({ status: "verified", verifiedAt: new Date() })
      .where(eq(accounts.id, user.userId));
    const result = await signedInSession(user.email);
    expect(result.accountId).toBe(user.userId);
  });
});

describe("sessions", () => {
  it("only the sha256 of the cookie value is stored", async () => {
    const result = await signedInSession(uniqueEmail("hashed"));
    const byToken = await db.select().from(sessions).where(eq(sessions.id, result.session.token));
    const byHash = await db
      .select()
      .from(sessions)
      .where(eq(sessions.id, sha256Hex(result.session.token)));
    expect(byToken).toEqual([]);
    expect(byHash).toHaveLength(1);
    expect(JSON.stringify(byHash)).not.toContain(result.session.token);
  });

  it("every sign-in rotates the session: the cookie the browser held stops working", async () => {
    const email = uniqueEmail("rotator");
    const first = await signedInSession(email);
    const second = await signedInSession(email, {
      now: new Date(Date.now() + 2 * MINUTE),
      replacingSessionToken: first.session.token,
    });
    expect(second.session.token).not.toBe(first.session.token);
    expect(await resolveSession(db, first.session.token, new Date())).toBeNull();
    expect((await resolveSession(db, second.session.token, new Date()))?.accountId).toBe(first.accountId);
  });

  it("sliding expiry: 30 days, moved forward at most once a day", async () => {
    const { accountId } = await signedInSession(uniqueEmail("slider"));
    const t0 = new Date();
    const { token } = await createSession(db, accountId, t0);
    const stored = async () =>
      (
        await db
          .select()
          .from(sessions)
          .where(eq(sessions.id, sha256Hex(token)))
      )[0];

    const early = await resolveSession(db, token, new Date(t0.getTime() + 12 * HOUR));
    expect(early?.expiresAt.getTime()).toBe(t0.getTime() + SESSION_TTL_MS);
    expect((await stored())?.extendedAt.getTime()).toBe(t0.getTime());

    const t1 = new Date(t0.getTime() + 25 * HOUR);
    const later = await resolveSession(db, token, t1);
    expect(later?.expiresAt.getTime()).toBe(t1.getTime() + SESSION_TTL_MS);
    expect((await stored())?.expiresAt.getTime()).toBe(t1.getTime() + SESSION_TTL_MS);

    // The one-statement lookup with the account slides the same way.
    const t2 = new Date(t1.getTime() + 25 * HOUR);
    const withAccount = await resolveSignedInSession(db, token, t2);
    expect(withAccount?.expiresAt.getTime()).toBe(t2.getTime() + SESSION_TTL_MS);
    expect(withAccount?.account.id).toBe(accountId);
    expect((await stored())?.extendedAt.getTime()).toBe(t2.getTime());

    // Unused for 30 days after the last extension: gone.
    expect(await resolveSession(db, token, new Date(t2.getTime() + SESSION_TTL_MS - 1000))).not.toBeNull();
    const lastExtension = (await stored())?.extendedAt.getTime() ?? 0;
    expect(await resolveSession(db, token, new Date(lastExtension + SESSION_TTL_MS + 1000))).toBeNull();
  });

  it("sign-out ends the session; the replayed cookie resolves to nothing", async () => {
    const { session } = await signedInSession(uniqueEmail("leaver"));
    expect(await signOut(db, session.token)).toEqual({ ended: 1 });
    expect(await resolveSession(db, session.token, new Date())).toBeNull();
    expect(await signOut(db, session.token)).toEqual({ ended: 0 });
    expect(await signOut(db, "garbage")).toEqual({ ended: 0 });
  });

  it("sign out everywhere ends every session of the account and no other", async () => {
    const email = uniqueEmail("everywhere");
    const a = await signedInSession(email);
    const b = await createSession(db, a.accountId, new Date());
    const other = await signedInSession(uniqueEmail("bystander"));
    expect(await signOut(db, a.session.token, { everywhere: true })).toEqual({ ended: 2 });
    expect(await resolveSession(db, a.session.token, new Date())).toBeNull();
    expect(await resolveSession(db, b.token, new Date())).toBeNull();
    expect(await resolveSession(db, other.session.token, new Date())).not.toBeNull();

    const c = await createSession(db, other.accountId, new Date());
    expect(await signOutEverywhere(db, other.accountId)).toEqual({ ended: 2 });
    expect(await resolveSession(db, c.token, new Date())).toBeNull();
  });

  it("a cancelled account's sessions stop working", async () => {
    const { session, accountId } = await signedInSession(uniqueEmail("cancelled"));
    await db.transaction((tx) =>
      cancelAccountInTransaction(tx as unknown as Db, accountId, "user_clicked_cancel", new Date()),
    );
    expect(await resolveSession(db, session.token, new Date())).toBeNull();
    expect(await resolveSignedInSession(db, session.token, new Date())).toBeNull();
  });

  it("malformed and unknown cookie values resolve to nothing", async () => {
    for (const value of [null, undefined, "", "x", "A".repeat(64), "0".repeat(64), `${"a".repeat(64)};`])
      expect(await resolveSession(db, value, new Date())).toBeNull();
  });

  it("the session's account view says whether the account holds developer keys", async () => {
    const dev = await createDeveloper();
    const devSession = await createSession(db, dev.accountId, new Date());
    expect((await resolveSignedInSession(db, devSession.token, new Date()))?.account).toMatchObject({
      id: dev.accountId,
      email: dev.email,
      status: "verified",
      plan: "FREE_NEW",
      hasDeveloperKeys: true,
    });
    const { session } = await signedInSession(uniqueEmail("merchant"));
    expect((await resolveSignedInSession(db, session.token, new Date()))?.account.hasDeveloperKeys).toBe(
      false,
    );
    for (const value of [null, "", "0".repeat(64)])
      expect(await resolveSignedInSession(db, value, new Date())).toBeNull();
  });
});

describe("rate limits", () => {
  it("code requests: 10 an hour per client IP, whatever the address; another IP is not affected", async () => {
    const ip = uniqueIp();
    const now = new Date();
    for (let i = 0; i < SIGN_IN_LIMITS.codeRequestsPerIp; i++)
      await requestSignInCode(db, { email: uniqueEmail("burst"), ip, language: "en" }, now);
    const error = await expectAppError(
      requestSignInCode(db, { email: uniqueEmail("burst"), ip, language: "en" }, now),
      "sign_in_rate_limited",
    );
    expect(error.status).toBe(429);
    expect(error.options.retryAfterMs).toBeGreaterThan(0);
    expect(error.options.retryAfterMs).toBeLessThanOrEqual(HOUR);
    await requestSignInCode(db, { email: uniqueEmail("burst"), ip: uniqueIp(), language: "en" }, now);
    // The next window starts clean.
    await requestSignInCode(
      db,
      { email: uniqueEmail("burst"), ip, language: "en" },
      new Date(now.getTime() + HOUR),
    );
  });

  it("code requests: 5 an hour per address, whatever the IP", async () => {
    const email = uniqueEmail("popular");
    const now = new Date();
    for (let i = 0; i < SIGN_IN_LIMITS.codeRequestsPerAddress; i++)
      await requestSignInCode(db, { email, ip: uniqueIp(), language: "en" }, now);
    await expectAppError(
      requestSignInCode(db, { email, ip: uniqueIp(), language: "en" }, now),
      "sign_in_rate_limited",
    );
  });

  it("code tries: 20 an hour per client IP and 10 per address; a refused try does not touch the code", async () => {
    const ip = uniqueIp();
    const now = new Date();
    for (let i = 0; i < SIGN_IN_LIMITS.verifyAttemptsPerIp; i++) {
      await expectAppError(
        verifySignInCode(db, { email: uniqueEmail("spray"), code: "123456", ip, language: "en" }, now),
        "sign_in_code_expired",
      );
    }
    await expectAppError(
      verifySignInCode(db, { email: uniqueEmail("spray"), code: "123456", ip, language: "en" }, now),
      "sign_in_rate_limited",
    );

    const email = uniqueEmail("target");
    for (let i = 0; i < SIGN_IN_LIMITS.verifyAttemptsPerAddress; i++) {
      await expectAppError(
        verifySignInCode(db, { email, code: "123456", ip: uniqueIp(), language: "en" }, now),
        "sign_in_code_expired",
      );
    }
    await requestSignInCode(db, { email, ip: uniqueIp(), language: "en" }, now);
    const code = (await latestSignInCode(email)) ?? "";
    await expectAppError(
      verifySignInCode(db, { email, code, ip: uniqueIp(), language: "en" }, now),
      "sign_in_rate_limited",
    );
    const [row] = await db.select().from(signInCodes).where(eq(signInCodes.email, email));
    expect(row?.attempts).toBe(0);
  });

  it("counting is atomic: concurrent requests from one IP are never over-admitted", async () => {
    const ip = uniqueIp();
    const now = new Date();
    const results = await Promise.allSettled(
      Array.from({ length: 15 }, () =>
        requestSignInCode(db, { email: uniqueEmail("race"), ip, language: "en" }, now),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(SIGN_IN_LIMITS.codeRequestsPerIp);
  });
});

describe("purging", () => {
  it("removes expired sessions, codes and rate-limit windows, and keeps live ones", async () => {
    const { accountId } = await signedInSession(uniqueEmail("purge"));
    const now = new Date();
    const live = await createSession(db, accountId, now);
    const old = await createSession(db, accountId, new Date(now.getTime() - 31 * DAY));
    const result = await purgeExpiredSignInData(db, now);
    expect(result.sessions).toBeGreaterThanOrEqual(1);
    expect(
      (
        await db
          .select({ n: count() })
          .from(sessions)
          .where(eq(sessions.id, sha256Hex(old.token)))
      )[0]?.n,
    ).toBe(0);
    expect(await resolveSession(db, live.token, now)).not.toBeNull();
  });
});
