import { and, eq, sql } from "drizzle-orm";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { countInFixedWindow } from "@/server/db/fixed-window";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { SCOPES } from "@/server/gate/scopes";
import { accountLimitWindows, accounts, apiKeys } from "@/server/gate/tables";
import { currentTerms } from "@/server/gate/terms";
import { safeEqual, sha256Hex } from "@/server/lib/crypto";
import { emitEvent } from "@/server/webhooks/events";
import { wakeDeliveries } from "@/server/webhooks/wake";
import type { AccountRow } from "./dto";
import { VERIFICATION_LIMITS } from "./limits";
import { authorize } from "./operations";
import type { MeDto } from "./schema";
import { flushMailAfterCommit, getMe, sendVerificationCode, VERIFICATION_CODE_TTL_MS } from "./service";

/** Wrong codes allowed per code; after that the code is void and a new one must be requested. */
export const MAX_VERIFICATION_ATTEMPTS = VERIFICATION_LIMITS.triesPerCode;
/** A new code can be mailed once a minute. */
export const RESEND_INTERVAL_MS = 60_000;

function verificationLocked(): AppError {
  return new AppError("verification_locked", {
    nextActions: [{ label: "Cancel the account and bootstrap it again", operation: "cancelAccount" }],
  });
}

/**
 * Checks the emailed code (POST /v1/me/verify). Right code: the account is verified, accepts the
 * current terms, every user key of the account gains `storefront:publish`, and `user.verified` fires to the
 * bootstrapping developer's endpoints, all in one transaction. Wrong, expired or used-up code: 400
 * `invalid_verification_code`.
 *
 * The attempt is counted first, in its own statement, so it survives the failure of the request: a stream of
 * wrong guesses can never reset the counter (the route opts out of the pipeline's idempotency transaction).
 * Limits (docs/api.md, "Account lifecycle"): 5 tries per code; 10 tries per account and UTC day (429
 * `verification_rate_limited`, before the try is looked at); 20 tries for ever, whatever codes were mailed (409
 * `verification_locked`): a 6-digit code can then be guessed with a chance of at most 20 in a million.
 */
export async function verifyEmail(ctx: ServiceContext, input: { code: string }): Promise<MeDto> {
  const actor = authorize(ctx, "verifyEmail");
  const { code } = input;
  const now = ctx.now();
  const today = await countInFixedWindow(ctx.db, accountLimitWindows, {
    buckets: [{ key: `verify-tries:${actor.accountId}`, limit: VERIFICATION_LIMITS.triesPerDay }],
    windowSeconds: VERIFICATION_LIMITS.windowSeconds,
    now,
  });
  if (today.isOver) throw new AppError("verification_rate_limited", { retryAfterMs: today.retryAfterMs });
  const [counted] = await ctx.db
    .update(accounts)
    .set({
      verificationAttempts: sql`${accounts.verificationAttempts} + 1`,
      verificationTries: sql`${accounts.verificationTries} + 1`,
    })
    .where(and(eq(accounts.id, actor.accountId), eq(accounts.status, "unverified")))
    .returning({
      attempts: accounts.verificationAttempts,
      tries: accounts.verificationTries,
      codeHash: accounts.verificationCodeHash,
      expiresAt: accounts.verificationExpiresAt,
    });
  if (!counted)
    throw new AppError("invalid_verification_code", {
      param: "code",
      detail: {
        en: "The account is already verified.",
        es: "La cuenta ya está verificada.",
        pt: "A conta já está verificada.",
      },
    });
  if (counted.tries > VERIFICATION_LIMITS.triesInAll) throw verificationLocked();
  const isValid =
    counted.attempts <= MAX_VERIFICATION_ATTEMPTS &&
    counted.codeHash !== null &&
    counted.expiresAt !== null &&
    counted.expiresAt.getTime() > now.getTime() &&
    safeEqual(sha256Hex(`${actor.accountId}:${code}`), counted.codeHash);
  if (!isValid) {
    const detail =
      counted.attempts > MAX_VERIFICATION_ATTEMPTS
        ? "Too many wrong attempts: request a new code."
        : undefined;
    throw new AppError("invalid_verification_code", {
      param: "code",
      detail,
      nextActions: [{ label: "Request a new code", operation: "resendVerification" }],
    });
  }

  await inTransaction(ctx.db, async (db) => {
    const verified = await markAccountVerifiedInTransaction(db, actor.accountId, now);
    if (!verified) throw new AppError("invalid_verification_code", { param: "code" });
  });
  ctx.afterCommit(wakeDeliveries);
  return getMe({
    ...ctx,
    usage: ctx.usage,
    actor: {
      ...actor,
      accountStatus: "verified",
      tosAcceptedVersion: currentTerms().version,
      scopes: withPublish(actor.scopes),
    },
  });
}

/**
 * The proven-email transition, in the caller's transaction: an UNVERIFIED account becomes verified (verifiedAt,
 * the current terms accepted, the mailed code cleared), every user key of it gains `storefront:publish`, and
 * `user.verified` fires to the bootstrapping developer's endpoints. Returns null when the account was not
 * unverified (nothing changes, nothing fires). Shared by POST /v1/me/verify and the dashboard sign-in
 * (server/sessions); callers wake the delivery worker after commit.
 */
export async function markAccountVerifiedInTransaction(
  db: Db,
  accountId: string,
  now: Date,
): Promise<AccountRow | null> {
  const [verified] = await db
    .update(accounts)
    .set({
      status: "verified",
      verifiedAt: now,
      updatedAt: now,
      verificationCodeHash: null,
      verificationExpiresAt: null,
      tosAcceptedVersion: currentTerms().version,
    })
    .where(and(eq(accounts.id, accountId), eq(accounts.status, "unverified")))
    .returning();
  if (!verified) return null;
  await grantPublishScope(db, verified.id);
  if (verified.developerKeyId) {
    await emitEvent(
      db,
      {
        type: "user.verified",
        data: {
          userId: verified.id,
          developerKeyId: verified.developerKeyId,
          verifiedAt: now.toISOString(),
        },
        accountId: verified.id,
      },
      now,
    );
  }
  return verified;
}

function withPublish(scopes: string[]): string[] {
  return scopes.includes(SCOPES.storefrontPublish) ? scopes : [...scopes, SCOPES.storefrontPublish];
}

/** Every live user key of the account gains `storefront:publish` (docs/api.md, "Accounts and keys"). */
async function grantPublishScope(db: Db, accountId: string): Promise<void> {
  await db
    .update(apiKeys)
    .set({ scopes: sql`array_append(${apiKeys.scopes}, ${SCOPES.storefrontPublish})` })
    .where(
      and(
        eq(apiKeys.accountId, accountId),
        eq(apiKeys.kind, "user"),
        sql`not (${SCOPES.storefrontPublish} = any(${apiKeys.scopes}))`,
      ),
    );
}

/**
 * A new code (the old one stops working) mailed to the account (POST /v1/me/resend-verification), at most
 * once a minute and 5 times a UTC day (else `throttled`), and 10 codes for ever, the first included (then, as
 * after 20 tries, 409 `verification_locked`). `status` says whether a mail went out. The tries of the new code
 * start again at 0; the account's lifetime count does not.
 */
export async function resendVerification(
  ctx: ServiceContext,
): Promise<{ status: "sent" | "already_verified" | "throttled" }> {
  const actor = authorize(ctx, "resendVerification");
  const now = ctx.now();
  const [account] = await ctx.db.select().from(accounts).where(eq(accounts.id, actor.accountId)).limit(1);
  if (account?.status !== "unverified") return { status: "already_verified" };
  if (
    account.verificationCodesIssued >= VERIFICATION_LIMITS.codesInAll ||
    account.verificationTries >= VERIFICATION_LIMITS.triesInAll
  ) {
    throw verificationLocked();
  }
  // At most one mail a minute, so the endpoint cannot be used to flood an inbox.
  const issuedAt = account.verificationExpiresAt
    ? account.verificationExpiresAt.getTime() - VERIFICATION_CODE_TTL_MS
    : Number.NEGATIVE_INFINITY;
  if (now.getTime() - issuedAt < RESEND_INTERVAL_MS) return { status: "throttled" };
  // And 5 a day: counted only for a mail that would go out.
  const today = await countInFixedWindow(ctx.db, accountLimitWindows, {
    buckets: [{ key: `verify-resends:${account.id}`, limit: VERIFICATION_LIMITS.resendsPerDay }],
    windowSeconds: VERIFICATION_LIMITS.windowSeconds,
    now,
  });
  if (today.isOver) return { status: "throttled" };
  await sendVerificationCode(ctx.db, account, now);
  flushMailAfterCommit(ctx);
  return { status: "sent" };
}
