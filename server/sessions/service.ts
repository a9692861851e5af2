import { randomBytes, randomInt } from "node:crypto";
import { and, eq, gt, lt, lte, ne, sql } from "drizzle-orm";
import { cancelAccountInTransaction } from "@/server/accounts/cancellation";
import type { AccountRow } from "@/server/accounts/dto";
import { recordOwnerSignIn } from "@/server/accounts/service";
import { markAccountVerifiedInTransaction } from "@/server/accounts/verification";
import type { Db } from "@/server/db/client";
import { countInFixedWindow } from "@/server/db/fixed-window";
import { prepared } from "@/server/db/prepared";
import { AppError } from "@/server/errors";
import { holdsLiveDeveloperKeys } from "@/server/gate/actors";
import { accounts } from "@/server/gate/tables";
import { currentTerms, hasAcceptedCurrentTerms } from "@/server/gate/terms";
import { safeEqual, sha256Hex } from "@/server/lib/crypto";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/log";
import { deliverPendingMail, queueMail } from "@/server/mail/service";
import { wakeDeliveries } from "@/server/webhooks/wake";
import { SESSION_EXTEND_AFTER_MS, SESSION_TTL_MS } from "./constants";
import {
  type BootstrapChoice,
  type NewSession,
  type ResolvedSession,
  type SignedInAccountDto,
  SignInCode,
  SignInEmail,
  type SignInLanguage,
  type SignInResult,
} from "./schema";
import { sessions, signInChallenges, signInCodes, signInRateLimits } from "./tables";

/**
 * Passwordless sign-in for the dashboard, and its sessions.
 *
 * 1. `requestSignInCode`: a 6-digit code is mailed to the address (at most one mail a minute). Nothing about any
 *    account is read or written, so the answer is the same, on the same path, whether the address has an
 *    account or not.
 * 2. `verifySignInCode`: the code proves the address. No account yet: a verified one is made. An account a
 *    developer partner bootstrapped and nobody verified: the person chooses first (`completeBootstrapChoice`).
 *    Any other account: signed in.
 * 3. Sessions: a random 32-byte token in the `marea_session` cookie, stored only as its sha256; 30 days, sliding.
 */

const MINUTE_MS = 60_000;
const HOUR_S = 3600;
const DAY_S = 24 * HOUR_S;

export const SIGN_IN_CODE_TTL_MS = 10 * MINUTE_MS;
/** One sign-in mail a minute per address. */
export const SIGN_IN_CODE_RESEND_MS = MINUTE_MS;
/** Tries per code; the 5th wrong one voids it. */
export const MAX_SIGN_IN_CODE_ATTEMPTS = 5;
/** Time to answer "continue or start a new account" once the code is proven. */
export const SIGN_IN_CHALLENGE_TTL_MS = 15 * MINUTE_MS;

/**
 * Per fixed one-hour window, and per address and UTC day (docs/ui.md, "Sign-in and sessions"). A code is mailed at
 * most once a minute on top of these. With 20 tries a day, a patient guesser of 6 digits has at most 20 chances in
 * a million a day (about 0.7% a year) on one address, and the address's owner is mailed at the 10th wrong code of
 * a day.
 */
export const SIGN_IN_LIMITS = {
  codeRequestsPerIp: 10,
  codeRequestsPerAddress: 5,
  verifyAttemptsPerIp: 20,
  verifyAttemptsPerAddress: 10,
  windowSeconds: HOUR_S,
  codeRequestsPerAddressPerDay: 10,
  verifyAttemptsPerAddressPerDay: 20,
  /** Wrong codes of a UTC day after which the address is told (once that day). */
  wrongCodesBeforeAlert: 10,
  dayWindowSeconds: DAY_S,
} as const;

const TOKEN_FORMAT = /^[0-9a-f]{64}$/;
// Compared against when no code exists, so a missing code costs the same work as a wrong one.
const NO_CODE_HASH = sha256Hex("no code");

function parseEmail(value: string): string {
  const parsed = SignInEmail.safeParse(value);
  if (!parsed.success) throw new AppError("invalid_email_address", { param: "email" });
  return parsed.data;
}

function codeHash(salt: string, email: string, code: string): string {
  return sha256Hex(`${salt}:${email}:${code}`);
}

function newToken(): string {
  return randomBytes(32).toString("hex");
}

/**
 * Counts one request in each bucket (atomically: `insert ... on conflict do update ... returning`) and refuses
 * with 429 `sign_in_rate_limited` when any bucket is past its limit: the hour's (per address and per client IP),
 * then the address's UTC day (counted only when the hour let the request through). Counted before the work, in
 * its own statement, so failures count too and a rolled-back transaction cannot undo a count.
 */
async function countSignInAttempt(
  db: Db,
  action: "code" | "verify",
  email: string,
  ip: string,
  now: Date,
): Promise<void> {
  const hour = await countInFixedWindow(db, signInRateLimits, {
    buckets: buckets(action, email, ip),
    windowSeconds: SIGN_IN_LIMITS.windowSeconds,
    now,
  });
  if (hour.isOver) throw new AppError("sign_in_rate_limited", { retryAfterMs: hour.retryAfterMs });
  const perDay =
    action === "code"
      ? SIGN_IN_LIMITS.codeRequestsPerAddressPerDay
      : SIGN_IN_LIMITS.verifyAttemptsPerAddressPerDay;
  const day = await countInFixedWindow(db, signInRateLimits, {
    buckets: [{ key: `${action}:day:email:${email}`, limit: perDay }],
    windowSeconds: SIGN_IN_LIMITS.dayWindowSeconds,
    now,
  });
  if (day.isOver) throw new AppError("sign_in_rate_limited", { retryAfterMs: day.retryAfterMs });
}

function buckets(action: "code" | "verify", email: string, ip: string): { key: string; limit: number }[] {
  const perAddress =
    action === "code" ? SIGN_IN_LIMITS.codeRequestsPerAddress : SIGN_IN_LIMITS.verifyAttemptsPerAddress;
  const perIp = action === "code" ? SIGN_IN_LIMITS.codeRequestsPerIp : SIGN_IN_LIMITS.verifyAttemptsPerIp;
  // `ip` is always a bucket (`unknown` when the address cannot be told): docs/security.md, "Client addresses".
  return [
    { key: `${action}:email:${email}`, limit: perAddress },
    { key: `${action}:ip:${ip}`, limit: perIp },
  ];
}

/**
 * Counts a wrong code for the address (per UTC day); at the 10th of a day the address is mailed once, so its owner
 * learns that someone is guessing (docs/ui.md, "Sign-in and sessions"). The mail says nothing an attacker
 * could use and asks nothing of the reader.
 */
async function countWrongCode(db: Db, email: string, language: SignInLanguage, now: Date): Promise<void> {
  const counted = await countInFixedWindow(db, signInRateLimits, {
    buckets: [{ key: `wrong:day:email:${email}`, limit: SIGN_IN_LIMITS.wrongCodesBeforeAlert }],
    windowSeconds: SIGN_IN_LIMITS.dayWindowSeconds,
    now,
  });
  if (counted.counts[0] !== SIGN_IN_LIMITS.wrongCodesBeforeAlert) return;
  // The mail is in the account's language when the address has one; the answer never depends on it.
  const [holder] = await db
    .select({ language: accounts.language })
    .from(accounts)
    .where(and(eq(accounts.email, email), ne(accounts.status, "cancelled")))
    .limit(1);
  const mail = wrongCodesMail(holder ? signInLanguage(holder.language) : language);
  await queueMail(db, { to: email, ...mail, kind: "sign_in_alert" }, now);
  sendMailSoon(db);
}

function wrongCodesMail(language: SignInLanguage): { subject: string; text: string } {
  const n = SIGN_IN_LIMITS.wrongCodesBeforeAlert;
  if (language === "es")
    return {
      subject: "Intentos fallidos de entrar en Marea con tu correo",
      text: `Hoy se escribió ${n} veces un código equivocado para entrar en Marea con esta dirección.\n\nSi fuiste tú, no tienes que hacer nada. Si no: nadie entró; para entrar hace falta un código enviado a este buzón, y los intentos están limitados. Protege tu correo y no compartas nunca un código.`,
    };
  if (language === "pt")
    return {
      subject: "Tentativas falhas de entrar no Marea com seu e-mail",
      text: `Hoje um código errado foi digitado ${n} vezes para entrar no Marea com este endereço.\n\nSe foi você, não precisa fazer nada. Se não: ninguém entrou; para entrar é preciso um código enviado a esta caixa, e as tentativas são limitadas. Proteja seu e-mail e nunca compartilhe um código.`,
    };
  return {
    subject: "Failed attempts to sign in to Marea with your address",
    text: `Today a wrong code was entered ${n} times to sign in to Marea with this address.\n\nIf it was you, there is nothing to do. If not: nobody got in; signing in takes a code sent to this inbox, and tries are limited. Keep your mailbox safe and never share a code.`,
  };
}

/** The sign-in mail; `redactedSubject` is what the outbox keeps once it is sent (no code). */
function signInMail(
  language: SignInLanguage,
  code: string,
): { subject: string; text: string; redactedSubject: string } {
  const minutes = SIGN_IN_CODE_TTL_MS / MINUTE_MS;
  if (language === "es")
    return {
      redactedSubject: "Tu código para entrar en Marea",
      subject: `Tu código para entrar en Marea: ${code}`,
      text: `Tu código es ${code}. Caduca en ${minutes} minutos.\n\nSi no intentaste entrar en Marea, ignora este correo: nada cambia hasta que alguien escriba el código.`,
    };
  if (language === "pt")
    return {
      redactedSubject: "Seu código para entrar no Marea",
      subject: `Seu código para entrar no Marea: ${code}`,
      text: `Seu código é ${code}. Ele expira em ${minutes} minutos.\n\nSe você não tentou entrar no Marea, ignore este e-mail: nada muda até que alguém digite o código.`,
    };
  return {
    redactedSubject: "Your Marea sign-in code",
    subject: `Your Marea sign-in code: ${code}`,
    text: `Your code is ${code}. It expires in ${minutes} minutes.\n\nIf you did not try to sign in to Marea, ignore this mail: nothing changes until someone enters the code.`,
  };
}

/** Sends the outbox after the commit, off the request path; a failure waits for the next send. */
function sendMailSoon(db: Db): void {
  deliverPendingMail(db).catch((error: unknown) => log("warn", "sign-in mail send failed", { error }));
}

/**
 * Step 1: mails a fresh 6-digit code to the address, valid 10 minutes, replacing any earlier one. Within a
 * minute of the last mail nothing is sent (the earlier code stays valid) and the answer is the same. The same
 * answer for every address: no account is read, so the response cannot tell who has one.
 * Limits: 5 requests an hour and 10 a UTC day per address, 10 an hour per client IP (429 `sign_in_rate_limited`).
 */
export async function requestSignInCode(
  db: Db,
  input: { email: string; ip: string; language: SignInLanguage },
  now: Date,
): Promise<{ email: string }> {
  const email = parseEmail(input.email);
  await countSignInAttempt(db, "code", email, input.ip, now);
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const salt = randomBytes(16).toString("hex");
  const fresh = {
    codeHash: codeHash(salt, email, code),
    salt,
    attempts: 0,
    sentAt: now,
    expiresAt: new Date(now.getTime() + SIGN_IN_CODE_TTL_MS),
  };
  const isQueued = await db.transaction(async (tx) => {
    // One statement decides, under concurrency too: a row mailed over a minute ago (or none) takes the new code.
    const [row] = await tx
      .insert(signInCodes)
      .values({ email, ...fresh })
      .onConflictDoUpdate({
        target: signInCodes.email,
        set: fresh,
        setWhere: lte(signInCodes.sentAt, new Date(now.getTime() - SIGN_IN_CODE_RESEND_MS)),
      })
      .returning({ email: signInCodes.email });
    if (!row) return false;
    const mail = signInMail(input.language, code);
    await queueMail(tx as unknown as Db, { to: email, ...mail, kind: "sign_in_code" }, now);
    return true;
  });
  if (isQueued) sendMailSoon(db);
  return { email };
}

async function createVerifiedAccount(
  db: Db,
  email: string,
  language: SignInLanguage,
  now: Date,
): Promise<AccountRow> {
  const [account] = await db
    .insert(accounts)
    .values({
      id: newId("usr"),
      email,
      language,
      // The code just proved the address.
      status: "verified",
      verifiedAt: now,
      plan: "FREE_NEW",
      source: "dashboard",
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!account) throw new Error("account insert returned no row");
  return account;
}

async function lockActiveAccountByEmail(db: Db, email: string): Promise<AccountRow | null> {
  const [row] = await db
    .select()
    .from(accounts)
    .where(and(eq(accounts.email, email), ne(accounts.status, "cancelled")))
    .limit(1)
    .for("update");
  return row ?? null;
}

function signedIn(account: AccountRow, session: NewSession): SignInResult {
  return {
    kind: "signed_in",
    session,
    accountId: account.id,
    needsTerms: !hasAcceptedCurrentTerms(account.tosAcceptedVersion),
  };
}

/**
 * Step 2: checks the code. Wrong: 400 `invalid_sign_in_code`; expired, used up (5 tries) or never requested:
 * 400 `sign_in_code_expired`. Right (the code is consumed):
 * - no active account with the address: a verified account is made (source `dashboard`, plan FREE_NEW, the
 *   interface language) and signed in;
 * - an UNVERIFIED account a developer bootstrapped: `{ kind: "choose" }` with a challenge token; nothing
 *   changes until `completeBootstrapChoice`;
 * - an unverified account of another source: verified as POST /v1/me/verify does, then signed in;
 * - a verified account: signed in.
 * Every sign-in starts a new session; `replacingSessionToken` (the cookie the browser sent, if any) is deleted.
 * Limits: 10 tries an hour and 20 a UTC day per address, 20 an hour per client IP (429 `sign_in_rate_limited`); at
 * the 10th wrong code of a day the address is mailed a warning.
 */
export async function verifySignInCode(
  db: Db,
  input: {
    email: string;
    code: string;
    ip: string;
    language: SignInLanguage;
    replacingSessionToken?: string | null;
  },
  now: Date,
): Promise<SignInResult> {
  const email = parseEmail(input.email);
  await countSignInAttempt(db, "verify", email, input.ip, now);
  const parsedCode = SignInCode.safeParse(input.code);
  const code = parsedCode.success ? parsedCode.data : "";
  // The try is counted first, in its own statement: a stream of wrong guesses can never reset the counter.
  const [row] = await db
    .update(signInCodes)
    .set({ attempts: sql`${signInCodes.attempts} + 1` })
    .where(eq(signInCodes.email, email))
    .returning();
  const isMatch =
    safeEqual(codeHash(row?.salt ?? "", email, code), row?.codeHash ?? NO_CODE_HASH) && parsedCode.success;
  if (!row || row.attempts > MAX_SIGN_IN_CODE_ATTEMPTS || row.expiresAt.getTime() <= now.getTime())
    throw new AppError("sign_in_code_expired", { param: "code" });
  if (!isMatch) {
    await countWrongCode(db, email, input.language, now);
    const isUsedUp = row.attempts >= MAX_SIGN_IN_CODE_ATTEMPTS;
    throw new AppError(isUsedUp ? "sign_in_code_expired" : "invalid_sign_in_code", { param: "code" });
  }

  const result = await db.transaction(async (tx) => {
    const txDb = tx as unknown as Db;
    // Consumed once: of two concurrent right answers, one wins.
    const [consumed] = await txDb
      .delete(signInCodes)
      .where(and(eq(signInCodes.email, email), eq(signInCodes.codeHash, row.codeHash)))
      .returning({ email: signInCodes.email });
    if (!consumed) throw new AppError("sign_in_code_expired", { param: "code" });
    const holder = await lockActiveAccountByEmail(txDb, email);
    if (holder?.status === "unverified" && holder.source === "bootstrap") {
      const challengeToken = newToken();
      await txDb.insert(signInChallenges).values({
        id: sha256Hex(challengeToken),
        email,
        accountId: holder.id,
        language: input.language,
        createdAt: now,
        expiresAt: new Date(now.getTime() + SIGN_IN_CHALLENGE_TTL_MS),
      });
      return { kind: "choose", challengeToken, email } satisfies SignInResult;
    }
    let account = holder ?? (await createVerifiedAccount(txDb, email, input.language, now));
    if (account.status === "unverified")
      account = (await markAccountVerifiedInTransaction(txDb, account.id, now)) ?? account;
    await recordOwnerSignIn(txDb, account.id, now);
    const session = await createSession(txDb, account.id, now, input.replacingSessionToken);
    return signedIn(account, session);
  });
  if (result.kind === "signed_in") wakeDeliveries();
  return result;
}

/**
 * Step 3, only for an address held by an unverified bootstrap account: the person who proved the address
 * chooses.
 * - `continue`: the account becomes verified exactly as POST /v1/me/verify makes it (terms accepted, user keys
 *   gain `storefront:publish`, `user.verified` to the developer) and is signed in.
 * - `new`: that account is cancelled (`squatting_defense`, `user.cancelled` to the developer) and a new
 *   verified account is made and signed in.
 * If the account was verified meanwhile (through the API), that account is signed in whatever the choice; if
 * it was cancelled meanwhile, a new one is made. An unknown, used or expired token: 400 `sign_in_expired`.
 */
export async function completeBootstrapChoice(
  db: Db,
  input: { challengeToken: string; choice: BootstrapChoice; replacingSessionToken?: string | null },
  now: Date,
): Promise<Extract<SignInResult, { kind: "signed_in" }>> {
  if (!TOKEN_FORMAT.test(input.challengeToken)) throw new AppError("sign_in_expired");
  const result = await db.transaction(async (tx) => {
    const txDb = tx as unknown as Db;
    const [challenge] = await txDb
      .delete(signInChallenges)
      .where(
        and(eq(signInChallenges.id, sha256Hex(input.challengeToken)), gt(signInChallenges.expiresAt, now)),
      )
      .returning();
    if (!challenge) throw new AppError("sign_in_expired");
    const [held] = await txDb
      .select()
      .from(accounts)
      .where(eq(accounts.id, challenge.accountId))
      .limit(1)
      .for("update");
    let account: AccountRow | null = null;
    if (held?.status === "verified") account = held;
    else if (held?.status === "unverified" && input.choice === "continue")
      account = await markAccountVerifiedInTransaction(txDb, held.id, now);
    else if (held?.status === "unverified")
      await cancelAccountInTransaction(txDb, held.id, "squatting_defense", now);
    account ??=
      (await lockActiveAccountByEmail(txDb, challenge.email)) ??
      (await createVerifiedAccount(txDb, challenge.email, challenge.language as SignInLanguage, now));
    await recordOwnerSignIn(txDb, account.id, now);
    const session = await createSession(txDb, account.id, now, input.replacingSessionToken);
    return signedIn(account, session) as Extract<SignInResult, { kind: "signed_in" }>;
  });
  wakeDeliveries();
  return result;
}

/** Accepting the current terms from the sign-in terms step. Another version: 400 `invalid_request` (param version). */
export async function acceptTermsForAccount(
  db: Db,
  input: { accountId: string; version: string },
  now: Date,
): Promise<{ tosAcceptedVersion: string }> {
  const terms = currentTerms();
  if (input.version !== terms.version) throw new AppError("invalid_request", { param: "version" });
  await db
    .update(accounts)
    .set({ tosAcceptedVersion: terms.version, updatedAt: now })
    .where(and(eq(accounts.id, input.accountId), ne(accounts.status, "cancelled")));
  return { tosAcceptedVersion: terms.version };
}

/**
 * A new session for the account: a random 32-byte token (64 hex) for the cookie, its sha256 stored, valid
 * 30 days. `replacingToken`, the session the browser held before this sign-in, is deleted (rotation).
 */
export async function createSession(
  db: Db,
  accountId: string,
  now: Date,
  replacingToken?: string | null,
): Promise<NewSession> {
  if (replacingToken && TOKEN_FORMAT.test(replacingToken))
    await db.delete(sessions).where(eq(sessions.id, sha256Hex(replacingToken)));
  const token = newToken();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await db
    .insert(sessions)
    .values({ id: sha256Hex(token), accountId, createdAt: now, expiresAt, extendedAt: now });
  return { token, expiresAt };
}

/**
 * The session a cookie value names, or null (malformed, unknown, signed out, expired, or the account is
 * cancelled). Sliding expiry: when more than a day passed since the expiry last moved, it moves to 30 days
 * from now (one conditional update a day per session, not a write per request).
 */
export async function resolveSession(
  db: Db,
  rawCookieValue: string | null | undefined,
  now: Date,
): Promise<ResolvedSession | null> {
  if (!rawCookieValue || !TOKEN_FORMAT.test(rawCookieValue)) return null;
  const id = sha256Hex(rawCookieValue);
  const [row] = await db
    .select({ accountId: sessions.accountId, expiresAt: sessions.expiresAt, extendedAt: sessions.extendedAt })
    .from(sessions)
    .innerJoin(accounts, eq(accounts.id, sessions.accountId))
    .where(and(eq(sessions.id, id), gt(sessions.expiresAt, now), ne(accounts.status, "cancelled")))
    .limit(1);
  if (!row) return null;
  return { sessionId: id, accountId: row.accountId, expiresAt: await extendSession(db, id, row, now) };
}

/**
 * Signs out: deletes the session the cookie names; with `everywhere`, every session of its account. Returns
 * how many sessions ended (0 for an unknown or malformed cookie).
 */
export async function signOut(
  db: Db,
  rawCookieValue: string | null | undefined,
  options: { everywhere?: boolean } = {},
): Promise<{ ended: number }> {
  if (!rawCookieValue || !TOKEN_FORMAT.test(rawCookieValue)) return { ended: 0 };
  const id = sha256Hex(rawCookieValue);
  if (!options.everywhere) {
    const ended = await db.delete(sessions).where(eq(sessions.id, id)).returning({ id: sessions.id });
    return { ended: ended.length };
  }
  const ended = await db
    .delete(sessions)
    .where(
      eq(
        sessions.accountId,
        sql`(select ${sessions.accountId} from ${sessions} where ${sessions.id} = ${id})`,
      ),
    )
    .returning({ id: sessions.id });
  return { ended: ended.length };
}

/** Ends every session of an account (e.g. from the account page, or after a security event). */
export async function signOutEverywhere(db: Db, accountId: string): Promise<{ ended: number }> {
  const ended = await db
    .delete(sessions)
    .where(eq(sessions.accountId, accountId))
    .returning({ id: sessions.id });
  return { ended: ended.length };
}

/** The signed-in account as the dashboard shell shows it; null when it no longer exists or is cancelled. */
/** The statement of `resolveSignedInSession`, built once (server/db/prepared.ts). */
function sessionWithAccount(db: Db) {
  return prepared(db, "sessions.withAccount", (db) =>
    db
      .select({
        expiresAt: sessions.expiresAt,
        extendedAt: sessions.extendedAt,
        accountId: accounts.id,
        email: accounts.email,
        status: accounts.status,
        plan: accounts.plan,
        language: accounts.language,
        tosAcceptedVersion: accounts.tosAcceptedVersion,
        hasDeveloperKeys: holdsLiveDeveloperKeys(),
      })
      .from(sessions)
      .innerJoin(accounts, eq(accounts.id, sessions.accountId))
      .where(
        and(
          eq(sessions.id, sql.placeholder("id")),
          gt(sessions.expiresAt, sql.placeholder("now")),
          ne(accounts.status, "cancelled"),
        ),
      )
      .limit(1)
      .prepare("sessions_with_account"),
  );
}

/**
 * The session a cookie value names with its account, in ONE statement (the session, its account and whether the
 * account holds developer keys), or null for the same reasons as `resolveSession`, whose sliding expiry it
 * applies. Every cookie-authenticated request starts here (the dashboard's sign-in gate, tRPC, GraphQL, the
 * consent page): one round trip instead of two (bench/README.md, "The delivery-log page and its tRPC call").
 */
export async function resolveSignedInSession(
  db: Db,
  rawCookieValue: string | null | undefined,
  now: Date,
): Promise<(ResolvedSession & { account: SignedInAccountDto }) | null> {
  if (!rawCookieValue || !TOKEN_FORMAT.test(rawCookieValue)) return null;
  const id = sha256Hex(rawCookieValue);
  const [row] = await sessionWithAccount(db).execute({ id, now: now.toISOString() });
  if (!row) return null;
  const account: SignedInAccountDto = {
    id: row.accountId,
    email: row.email,
    status: row.status,
    plan: row.plan,
    language: signInLanguage(row.language),
    tosAcceptedVersion: row.tosAcceptedVersion,
    hasDeveloperKeys: Boolean(row.hasDeveloperKeys),
  };
  const expiresAt = await extendSession(db, id, row, now);
  return { sessionId: id, accountId: row.accountId, expiresAt, account };
}

/** Sliding expiry (see `resolveSession`): the session's expiry after this request. */
async function extendSession(
  db: Db,
  id: string,
  current: { expiresAt: Date; extendedAt: Date },
  now: Date,
): Promise<Date> {
  const extendBefore = new Date(now.getTime() - SESSION_EXTEND_AFTER_MS);
  if (current.extendedAt.getTime() > extendBefore.getTime()) return current.expiresAt;
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await db
    .update(sessions)
    .set({ expiresAt, extendedAt: now })
    .where(and(eq(sessions.id, id), lte(sessions.extendedAt, extendBefore)));
  return expiresAt;
}

function signInLanguage(language: string): SignInLanguage {
  return language === "es" || language === "en" || language === "pt" ? language : "en";
}

/**
 * Deletes what sign-in leaves behind once it can no longer matter: expired sessions, codes and challenges, and
 * rate-limit windows older than the current one. For a scheduled job (the lead registers it in server/jobs).
 */
export async function purgeExpiredSignInData(
  db: Db,
  now: Date,
): Promise<{ sessions: number; codes: number; challenges: number; rateLimitWindows: number }> {
  const ended = await db.delete(sessions).where(lte(sessions.expiresAt, now)).returning({ id: sessions.id });
  const codes = await db
    .delete(signInCodes)
    .where(lte(signInCodes.expiresAt, now))
    .returning({ email: signInCodes.email });
  const challenges = await db
    .delete(signInChallenges)
    .where(lte(signInChallenges.expiresAt, now))
    .returning({ id: signInChallenges.id });
  // The day windows are the longest: an hour window goes with them.
  const windowFloor = Math.floor(now.getTime() / 1000) - SIGN_IN_LIMITS.dayWindowSeconds;
  const windows = await db
    .delete(signInRateLimits)
    .where(lt(signInRateLimits.windowStart, windowFloor))
    .returning({ key: signInRateLimits.key });
  return {
    sessions: ended.length,
    codes: codes.length,
    challenges: challenges.length,
    rateLimitWindows: windows.length,
  };
}
