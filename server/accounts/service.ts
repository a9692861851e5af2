import { randomInt } from "node:crypto";
import { and, eq, isNull, lt, ne, sql } from "drizzle-orm";
import { actorKey, type ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { getDb } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { readRemaining } from "@/server/gate/key-limits";
import { accountLimitWindows, accounts, apiKeys } from "@/server/gate/tables";
import { sha256Hex } from "@/server/lib/crypto";
import { deliverPendingMail, queueMail } from "@/server/mail/service";
import type { AccountRow } from "./dto";
import { BOOTSTRAP_LIMITS, KEY_LIMITS, VERIFICATION_LIMITS } from "./limits";
import { authorize } from "./operations";
import { PLAN_LIMITS, upgradeUrl } from "./plans";
import type { MeDto } from "./schema";

// What the account functions share: verification codes and their mail, the caller's key, the account lock and key
// caps, `getMe`, and housekeeping. The use cases live beside it: partners.ts (the partner API and the developers
// page), account-keys.ts (the dashboard's keys page), account-page.ts (its account page), operator.ts (the CLI's),
// verification.ts and cancellation.ts.

/** Verification codes are valid for 24 hours. */
export const VERIFICATION_CODE_TTL_MS = 24 * 60 * 60 * 1000;

/** A fresh 6-digit code, stored hashed (salted with the account id), and the mail that carries it. */
export async function sendVerificationCode(db: Db, account: AccountRow, now: Date): Promise<void> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  await db
    .update(accounts)
    .set({
      verificationCodeHash: sha256Hex(`${account.id}:${code}`),
      verificationExpiresAt: new Date(now.getTime() + VERIFICATION_CODE_TTL_MS),
      verificationAttempts: 0,
      verificationCodesIssued: sql`${accounts.verificationCodesIssued} + 1`,
      updatedAt: now,
    })
    .where(eq(accounts.id, account.id));
  const text = verificationMailText(account.language, code);
  await queueMail(
    db,
    {
      to: account.email,
      subject: text.subject,
      text: text.body,
      kind: "verification_code",
      redactedSubject: text.redactedSubject,
    },
    now,
  );
}

/** The verification mail; `redactedSubject` is what the outbox keeps once it is sent (no code). */
function verificationMailText(
  language: string,
  code: string,
): { subject: string; body: string; redactedSubject: string } {
  if (language === "en")
    return {
      subject: `Your Marea verification code: ${code}`,
      body: `Your verification code is ${code}. It expires in 24 hours.`,
      redactedSubject: "Your Marea verification code",
    };
  if (language === "pt")
    return {
      subject: `Seu código de verificação Marea: ${code}`,
      body: `Seu código de verificação é ${code}. Ele expira em 24 horas.`,
      redactedSubject: "Seu código de verificação Marea",
    };
  return {
    subject: `Tu código de verificación de Marea: ${code}`,
    body: `Tu código de verificación es ${code}. Caduca en 24 horas.`,
    redactedSubject: "Tu código de verificación de Marea",
  };
}

/** Sends queued mail after the transaction that queued it committed. */
export function flushMailAfterCommit(ctx: ServiceContext): void {
  ctx.afterCommit(() => deliverPendingMail(getDb()));
}

/** The key of a caller the operations table lets in only with one (api_key or oauth doors). */
export function requireKey(actor: Parameters<typeof actorKey>[0]) {
  const key = actorKey(actor);
  if (!key) throw new AppError("missing_authorization");
  return key;
}

export async function lockAccount(db: Db, accountId: string): Promise<AccountRow> {
  const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId)).limit(1).for("update");
  if (!account) throw new AppError("user_not_found", { param: "userId" });
  return account;
}

/**
 * 409 `api_key_limit_reached` when the account already holds its maximum of live keys of this kind (10
 * developer keys, 100 user keys; docs/api.md, "Accounts and keys"). The caller holds the account's row lock, so
 * concurrent creations are counted one after the other.
 */
export async function assertKeyRoom(db: Db, accountId: string, kind: "developer" | "user"): Promise<void> {
  const limit = kind === "developer" ? KEY_LIMITS.developerKeys : KEY_LIMITS.userKeys;
  const [live] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.kind, kind), isNull(apiKeys.revokedAt)));
  if (Number(live?.n ?? 0) >= limit) {
    throw new AppError("api_key_limit_reached", {
      detail: {
        en: `At most ${limit} live ${kind} keys per account.`,
        es: `Como máximo ${limit} claves activas de tipo ${kind} por cuenta.`,
        pt: `No máximo ${limit} chaves ativas do tipo ${kind} por conta.`,
      },
    });
  }
}

/**
 * Who the key is, its account and limits, and the rate-limit budget left (GET /v1/me). The actor was read with
 * the key in the pipeline's one statement, and the budget is the one just counted (no second read).
 */
export async function getMe(ctx: ServiceContext): Promise<MeDto> {
  const actor = authorize(ctx, "getMe");
  const key = requireKey(actor);
  const remaining = ctx.usage ?? (await readRemaining(ctx.db, key, ctx.now()));
  const limits = PLAN_LIMITS[actor.plan];
  const canPublish = limits.publishable && actor.accountStatus === "verified";
  return {
    type: actor.kind,
    keyId: key.keyId,
    keyName: key.keyName,
    scopes: actor.scopes,
    account: {
      id: actor.accountId,
      email: actor.accountEmail,
      status: actor.accountStatus,
      plan: actor.plan,
      limits,
    },
    rateLimit: {
      rpm: key.rpm,
      rpd: key.rpd,
      remainingMinute: remaining.remainingMinute,
      remainingDay: remaining.remainingDay,
    },
    _links: canPublish ? {} : { upgradeUrl: upgradeUrl() },
  };
}

/** The active (not cancelled) account with this email, if any. */
export async function findActiveAccountByEmail(db: Db, email: string): Promise<AccountRow | null> {
  const [row] = await db
    .select()
    .from(accounts)
    .where(and(eq(accounts.email, email.toLowerCase()), ne(accounts.status, "cancelled")))
    .limit(1);
  return row ?? null;
}

// Raw names: inside a subquery drizzle would render the outer column unqualified (see actors.ts).
export const LIVE_STOREFRONTS = sql<number>`(select count(*)::int from storefronts s
  where s.account_id = "accounts"."id" and s.deleted_at is null)`;

/**
 * The owner proved the address and signed in to the dashboard (docs/api.md, "Partner access"): the first time,
 * the partner's access to the account goes off until the owner grants it. Later sign-ins change nothing. In the
 * caller's transaction.
 */
export async function recordOwnerSignIn(db: Db, accountId: string, now: Date): Promise<void> {
  await db
    .update(accounts)
    .set({ ownerSignedInAt: now, partnerAccess: false })
    .where(and(eq(accounts.id, accountId), isNull(accounts.ownerSignedInAt)));
}

/**
 * Drops account limit windows that have ended (job `purge-rate-limits`). The longest window (an address's
 * bootstraps, 30 days) decides: a day window is kept a little longer than it counts, which costs nothing.
 */
export async function purgeAccountLimitWindows(db: Db, now: Date): Promise<number> {
  const longest = Math.max(
    BOOTSTRAP_LIMITS.addressWindowSeconds,
    BOOTSTRAP_LIMITS.windowSeconds,
    VERIFICATION_LIMITS.windowSeconds,
  );
  const floor = Math.floor(now.getTime() / 1000) - longest;
  const deleted = await db
    .delete(accountLimitWindows)
    .where(lt(accountLimitWindows.windowStart, floor))
    .returning({ key: accountLimitWindows.key });
  return deleted.length;
}
