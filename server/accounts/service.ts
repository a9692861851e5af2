import { randomInt } from "node:crypto";
import { and, asc, desc, eq, gt, inArray, isNull, lt, ne, sql } from "drizzle-orm";
import type { z } from "zod";
import { actorKey, type ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { getDb } from "@/server/db/client";
import { inTransaction, isUniqueViolationOn } from "@/server/db/transaction";
import { AppError, isAppError, type Messages } from "@/server/errors";
import { inRequestedOrder } from "@/server/lib/batch";
import { sha256Hex } from "@/server/lib/crypto";
import { countInFixedWindow, readFixedWindow, windowStartOf } from "@/server/lib/fixed-window";
import { newId } from "@/server/lib/ids";
import { decodeCursor, type ListQuery, type Page, toPage } from "@/server/lib/pagination";
import { deliverPendingMail, queueMail } from "@/server/mail/service";
import { parseInput } from "@/server/validation";
import { wakeDeliveries } from "@/server/webhooks/wake";
import { authorize, authorizeOperator } from "./authorize";
import { cascadeDeveloperKeyRevocation } from "./cancellation";
import { type AccountRow, type ApiKeyRow, type KeyDto, toAccountKeyDto, toKeyDto, toUserDto } from "./dto";
import { issueKey, revokeKeyRow } from "./keys";
import { BOOTSTRAP_LIMITS, KEY_LIMITS, VERIFICATION_LIMITS } from "./limits";
import { PLAN_LIMITS, upgradeUrl } from "./plans";
import { readRemaining } from "./rate-limits";
import type {
  AccountKeyDto,
  AccountKeyIdInput,
  AccountOverviewDto,
  BootstrapUserInput,
  CreateAccountKeyInput,
  IssueUserKeyInput,
  KeyRevocationPreview,
  ListPartnerUsersQuery,
  MeDto,
  PartnerUserDto,
  Plan,
  SetAccountLanguageInput,
  SetPartnerAccessInput,
  UserDto,
} from "./schema";
import { CreateDeveloperKeyInput } from "./schema";
import { DEVELOPER_KEY_SCOPES, userScopesFor, VERIFIED_USER_SCOPES } from "./scopes";
import { accountLimitWindows, accounts, apiKeys } from "./tables";
import { currentTerms } from "./terms";

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
function requireKey(actor: Parameters<typeof actorKey>[0]) {
  const key = actorKey(actor);
  if (!key) throw new AppError("missing_authorization");
  return key;
}

/**
 * A developer key bootstraps an unverified account (POST /v1/users): it gets its first user key and the
 * account is sent a verification code, all in one transaction. Same email already active: 409 `email_taken`.
 * Budgets (docs/api.md, "Accounts and keys"; 429 `bootstrap_rate_limited`), per developer ACCOUNT whatever key it
 * uses: 100 bootstraps a UTC day (an operator may set another figure), and once 20 of its bootstraps in a day
 * were `email_taken`, none until the next day (the answer tells whether an address has an account, so probing
 * is held far below the day's budget); per address, 3 bootstraps in 30 days across every developer (each one
 * mails it a code and opens 20 more verification tries).
 */
export async function bootstrapUser(
  ctx: ServiceContext,
  input: BootstrapUserInput,
): Promise<{ user: UserDto; userKey: string }> {
  const actor = authorize(ctx, "bootstrapUser");
  const developerKeyId = requireKey(actor).keyId;
  const now = ctx.now();
  const email = input.email.toLowerCase();
  await countBootstrap(ctx, actor.accountId, email);
  // Looked up first (the unique index still decides a race): a failed insert would abort the transaction an
  // Idempotency-Key request runs in, and the taken answer must be counted in it.
  if (await findActiveAccountByEmail(ctx.db, email)) {
    await countInFixedWindow(ctx.db, accountLimitWindows, {
      buckets: [{ key: `bootstrap-taken:${actor.accountId}`, limit: BOOTSTRAP_LIMITS.takenPerDay }],
      windowSeconds: BOOTSTRAP_LIMITS.windowSeconds,
      now,
    });
    throw new AppError("email_taken", { param: "email" });
  }
  try {
    const result = await inTransaction(ctx.db, async (db) => {
      const [account] = await db
        .insert(accounts)
        .values({
          id: newId("usr"),
          email,
          name: input.name ?? null,
          language: input.language,
          status: "unverified",
          plan: "FREE_NEW",
          developerKeyId,
          source: "bootstrap",
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      if (!account) throw new Error("account insert returned no row");
      const { rawKey } = await issueKey(db, {
        accountId: account.id,
        kind: "user",
        name: "bootstrap",
        scopes: userScopesFor("unverified"),
        source: "bootstrap",
        now,
      });
      await sendVerificationCode(db, account, now);
      return { user: toUserDto(account), userKey: rawKey };
    });
    flushMailAfterCommit(ctx);
    return result;
  } catch (error) {
    // Taken by a concurrent bootstrap or sign-up since the look-up above.
    if (isUniqueViolationOn(error, "accounts", "accounts_email_active_uq")) {
      throw new AppError("email_taken", { param: "email" });
    }
    throw error;
  }
}

/**
 * Counts one bootstrap against the developer account's budgets and the address's, before anything is written (so
 * refused and failed ones count too), and refuses with 429 `bootstrap_rate_limited` past any of them.
 */
async function countBootstrap(ctx: ServiceContext, developerAccountId: string, email: string): Promise<void> {
  const now = ctx.now();
  const refuse = (retryAfterMs: number, detail: Messages) =>
    new AppError("bootstrap_rate_limited", { retryAfterMs, detail });
  const taken = await readFixedWindow(ctx.db, accountLimitWindows, {
    key: `bootstrap-taken:${developerAccountId}`,
    windowSeconds: BOOTSTRAP_LIMITS.windowSeconds,
    now,
  });
  const dayEndsInMs =
    (windowStartOf(now, BOOTSTRAP_LIMITS.windowSeconds) + BOOTSTRAP_LIMITS.windowSeconds) * 1000 -
    now.getTime();
  if (taken >= BOOTSTRAP_LIMITS.takenPerDay) {
    throw refuse(dayEndsInMs, {
      en: `${BOOTSTRAP_LIMITS.takenPerDay} addresses bootstrapped today already had an account: no more bootstraps until tomorrow (UTC).`,
      es: `${BOOTSTRAP_LIMITS.takenPerDay} direcciones creadas hoy ya tenían cuenta: no se crean más hasta mañana (UTC).`,
      pt: `${BOOTSTRAP_LIMITS.takenPerDay} endereços criados hoje já tinham conta: nenhum outro até amanhã (UTC).`,
    });
  }
  const [developer] = await ctx.db
    .select({ limit: accounts.bootstrapDailyLimit })
    .from(accounts)
    .where(eq(accounts.id, developerAccountId))
    .limit(1);
  const perDay = developer?.limit ?? BOOTSTRAP_LIMITS.perDay;
  const day = await countInFixedWindow(ctx.db, accountLimitWindows, {
    buckets: [{ key: `bootstrap:${developerAccountId}`, limit: perDay }],
    windowSeconds: BOOTSTRAP_LIMITS.windowSeconds,
    now,
  });
  if (day.isOver) {
    throw refuse(day.retryAfterMs, {
      en: `Your developer account bootstraps at most ${perDay} accounts a day (UTC).`,
      es: `Tu cuenta de desarrollador crea como máximo ${perDay} cuentas al día (UTC).`,
      pt: `Sua conta de desenvolvedor cria no máximo ${perDay} contas por dia (UTC).`,
    });
  }
  const address = await countInFixedWindow(ctx.db, accountLimitWindows, {
    buckets: [{ key: `bootstrap-address:${email}`, limit: BOOTSTRAP_LIMITS.perAddress }],
    windowSeconds: BOOTSTRAP_LIMITS.addressWindowSeconds,
    now,
  });
  if (address.isOver) {
    throw refuse(address.retryAfterMs, {
      en: `This address was bootstrapped ${BOOTSTRAP_LIMITS.perAddress} times in the last 30 days.`,
      es: `Esta dirección se creó ${BOOTSTRAP_LIMITS.perAddress} veces en los últimos 30 días.`,
      pt: `Este endereço foi criado ${BOOTSTRAP_LIMITS.perAddress} vezes nos últimos 30 dias.`,
    });
  }
}

/**
 * The account if one of the actor's developer account's keys bootstrapped it AND that key is still live (a revoked
 * bootstrapping key detaches its partner, docs/api.md "Partner access"); else 404 `user_not_found`.
 */
async function findBootstrappedAccount(
  ctx: ServiceContext,
  accountId: string,
  userId: string,
): Promise<AccountRow> {
  const [row] = await ctx.db
    .select({ account: accounts })
    .from(accounts)
    .innerJoin(apiKeys, eq(apiKeys.id, accounts.developerKeyId))
    .where(and(eq(accounts.id, userId), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
    .limit(1);
  if (!row) throw new AppError("user_not_found", { param: "userId" });
  return row.account;
}

/**
 * Another user key for an account this developer bootstrapped (POST /v1/users/{userId}/keys). Scopes follow
 * the account's state (storefront:publish only once verified). Only while the bootstrapping key is live and the
 * owner has not taken the partner's access away (docs/api.md, "Partner access"): access is on until the owner
 * first signs in to the dashboard, then off until the owner grants it on the account page (403
 * `partner_access_off`). At most 100 live user keys per account (409 `api_key_limit_reached`).
 */
export async function issueUserKey(
  ctx: ServiceContext,
  input: { userId: string } & IssueUserKeyInput,
): Promise<{ key: KeyDto; userKey: string }> {
  const actor = authorize(ctx, "issueUserKey");
  const found = await findBootstrappedAccount(ctx, actor.accountId, input.userId);
  if (found.status === "cancelled") throw new AppError("account_cancelled");
  const { row, rawKey } = await inTransaction(ctx.db, async (db) => {
    // Locked: the access flag and the key count are read where they cannot change before the insert.
    const account = await lockAccount(db, found.id);
    if (account.status === "cancelled") throw new AppError("account_cancelled");
    if (!account.partnerAccess) throw new AppError("partner_access_off", { param: "userId" });
    await assertKeyRoom(db, account.id, "user");
    return issueKey(db, {
      accountId: account.id,
      kind: "user",
      name: input.name ?? null,
      scopes: userScopesFor(account.status),
      source: "api",
      now: ctx.now(),
    });
  });
  return { key: toKeyDto(row), userKey: rawKey };
}

async function lockAccount(db: Db, accountId: string): Promise<AccountRow> {
  const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId)).limit(1).for("update");
  if (!account) throw new AppError("user_not_found", { param: "userId" });
  return account;
}

/**
 * 409 `api_key_limit_reached` when the account already holds its maximum of live keys of this kind (10
 * developer keys, 100 user keys; docs/api.md, "Accounts and keys"). The caller holds the account's row lock, so
 * concurrent creations are counted one after the other.
 */
async function assertKeyRoom(db: Db, accountId: string, kind: "developer" | "user"): Promise<void> {
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

/**
 * Operator (`operatorContext`: CLI `dev-key create`): a developer key for the account with this email, creating the
 * account (verified: the operator vouches for it) when none is active. `dailyLimit` is the key's budget per UTC
 * day; the figures' ranges are `CreateDeveloperKeyInput`'s (400 `invalid_request` naming the field).
 */
export async function createDeveloperKey(
  ctx: ServiceContext,
  raw: z.input<typeof CreateDeveloperKeyInput>,
): Promise<{ keyId: string; key: string; accountId: string }> {
  authorizeOperator(ctx, "createDeveloperKey");
  const input = parseInput(CreateDeveloperKeyInput, raw, ctx.language);
  const now = ctx.now();
  return inTransaction(ctx.db, async (txDb) => {
    let account = await findActiveAccountByEmail(txDb, input.email);
    if (!account) {
      const [created] = await txDb
        .insert(accounts)
        .values({
          id: newId("usr"),
          email: input.email.toLowerCase(),
          name: input.name ?? null,
          status: "verified",
          plan: "FREE_NEW",
          source: "cli",
          createdAt: now,
          updatedAt: now,
          verifiedAt: now,
        })
        .returning();
      if (!created) throw new Error("account insert returned no row");
      account = created;
    }
    // The operator vouches for this developer: its own bootstrap budget (docs/api.md, "Accounts and keys").
    if (input.bootstrapDailyLimit !== undefined) {
      await txDb
        .update(accounts)
        .set({ bootstrapDailyLimit: input.bootstrapDailyLimit, updatedAt: now })
        .where(eq(accounts.id, account.id));
    }
    const { row, rawKey } = await issueKey(txDb, {
      accountId: account.id,
      kind: "developer",
      name: input.name ?? null,
      scopes: DEVELOPER_KEY_SCOPES,
      dailyLimit: input.dailyLimit,
      rpm: input.rpm,
      source: "cli",
      now,
    });
    return { keyId: row.id, key: rawKey, accountId: account.id };
  });
}

/**
 * Operator (`operatorContext`: CLI `plan set`): changes the plan of the active account with this email (there is
 * no payment integration).
 */
export async function setPlan(
  ctx: ServiceContext,
  input: { email: string; plan: Plan },
): Promise<{ accountId: string; plan: Plan }> {
  authorizeOperator(ctx, "setPlan");
  const [row] = await ctx.db
    .update(accounts)
    .set({ plan: input.plan, updatedAt: ctx.now() })
    .where(
      and(
        eq(accounts.email, input.email.toLowerCase()),
        inArray(accounts.status, ["unverified", "verified"]),
      ),
    )
    .returning({ id: accounts.id, plan: accounts.plan });
  if (!row) throw new AppError("user_not_found", { param: "email" });
  return { accountId: row.id, plan: row.plan };
}

/**
 * The accounts the caller's developer keys bootstrapped, any status, ordered by id, cursor pagination (GraphQL
 * `Me.bootstrappedUsers`); the same accounts `issueUserKey` accepts.
 */
export async function listBootstrappedUsers(ctx: ServiceContext, query: ListQuery): Promise<Page<UserDto>> {
  const actor = authorize(ctx, "listBootstrappedUsers");
  const after = decodeCursor(query.cursor, "usr");
  const rows = await ctx.db
    .select({ account: accounts })
    .from(accounts)
    .innerJoin(apiKeys, eq(apiKeys.id, accounts.developerKeyId))
    .where(and(eq(apiKeys.accountId, actor.accountId), after ? gt(accounts.id, after) : undefined))
    .orderBy(asc(accounts.id))
    .limit(query.limit + 1);
  return toPage(
    rows.map((row) => row.account),
    query.limit,
    toUserDto,
  );
}

/**
 * Bootstrapped accounts by id in ONE statement (GraphQL `node`): per id, in order, the user, or 404
 * `user_not_found` when no key of the caller's account bootstrapped it.
 */
export async function loadBootstrappedUsers(
  ctx: ServiceContext,
  input: { userIds: readonly string[] },
): Promise<Array<UserDto | AppError>> {
  const actor = authorize(ctx, "listBootstrappedUsers");
  const rows =
    input.userIds.length === 0
      ? []
      : await ctx.db
          .select({ account: accounts })
          .from(accounts)
          .innerJoin(apiKeys, eq(apiKeys.id, accounts.developerKeyId))
          .where(and(inArray(accounts.id, [...input.userIds]), eq(apiKeys.accountId, actor.accountId)));
  return inRequestedOrder(
    input.userIds,
    rows.map((row) => row.account),
    (row) => row.id,
    toUserDto,
    () => new AppError("user_not_found", { param: "userId" }),
  );
}

/** At most this many live keys are listed: the dashboard's page, not an export. */
const ACCOUNT_KEYS_SHOWN = 500;

/**
 * The signed-in account's live keys, newest first (docs/ui.md, "API keys"): name, display prefix, kind, scopes,
 * source, created, last used and daily budget. Never a hash or a raw key.
 */
export async function listAccountKeys(ctx: ServiceContext): Promise<AccountKeyDto[]> {
  const actor = authorize(ctx, "listAccountKeys");
  const rows = await ctx.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, actor.accountId), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
    .limit(ACCOUNT_KEYS_SHOWN);
  return rows.map(toAccountKeyDto);
}

/**
 * A key for the signed-in account, its raw value returned once (only its SHA-256 is stored): a user key with the
 * post-verify scopes, or a developer key with its daily budget (1-10,000, default 50). Both need a verified
 * account (403 `email_not_verified`): a user key would publish, and a developer key bootstraps accounts that
 * are mailed, so an address nobody proved mints neither. At most 10 live developer keys and 100 live user keys
 * (409 `api_key_limit_reached`).
 */
export async function createAccountKey(
  ctx: ServiceContext,
  input: CreateAccountKeyInput,
): Promise<{ key: AccountKeyDto; rawKey: string }> {
  const actor = authorize(ctx, "createAccountKey");
  if (actor.accountStatus !== "verified") {
    throw new AppError("email_not_verified", {
      nextActions: [{ label: "Verify your email address with the mailed code", operation: "verifyEmail" }],
    });
  }
  const isDeveloper = input.kind === "developer";
  const { row, rawKey } = await inTransaction(ctx.db, async (db) => {
    await lockAccount(db, actor.accountId);
    await assertKeyRoom(db, actor.accountId, input.kind);
    return issueKey(db, {
      accountId: actor.accountId,
      kind: input.kind,
      name: input.name ?? null,
      scopes: isDeveloper ? DEVELOPER_KEY_SCOPES : VERIFIED_USER_SCOPES,
      dailyLimit: isDeveloper ? input.dailyLimit : null,
      source: "dashboard",
      now: ctx.now(),
    });
  });
  return { key: toAccountKeyDto(row), rawKey };
}

/** The signed-in account's live key with this id; another account's (or a revoked) key is 404 `api_key_not_found`. */
async function findOwnLiveKey(ctx: ServiceContext, accountId: string, keyId: string): Promise<ApiKeyRow> {
  const [row] = await ctx.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
    .limit(1);
  if (!row) throw new AppError("api_key_not_found", { param: "keyId" });
  return row;
}

/**
 * What revoking the key will do, before the person confirms: for a developer key, how many of the accounts it
 * bootstrapped are still unverified (cancelled with `key_revoked`) and how many are live (their order events
 * stop). A user key: the key alone stops.
 */
export async function previewAccountKeyRevocation(
  ctx: ServiceContext,
  input: AccountKeyIdInput,
): Promise<KeyRevocationPreview> {
  const actor = authorize(ctx, "listAccountKeys");
  const key = await findOwnLiveKey(ctx, actor.accountId, input.keyId);
  if (key.kind !== "developer")
    return { keyId: key.id, kind: key.kind, unverifiedAccounts: 0, liveAccounts: 0 };
  const [counts] = await ctx.db
    .select({
      unverified: sql<number>`count(*) filter (where ${accounts.status} = 'unverified')::int`,
      live: sql<number>`count(*) filter (where ${accounts.status} <> 'cancelled')::int`,
    })
    .from(accounts)
    .where(eq(accounts.developerKeyId, key.id));
  return {
    keyId: key.id,
    kind: key.kind,
    unverifiedAccounts: Number(counts?.unverified ?? 0),
    liveAccounts: Number(counts?.live ?? 0),
  };
}

/**
 * Revokes one of the signed-in account's keys; it stops authenticating at once. A developer key goes through
 * `cascadeDeveloperKeyRevocation` (its unverified accounts cancelled with `key_revoked`, order events of its
 * accounts stop). Another account's key id: 404 `api_key_not_found`.
 */
export async function revokeAccountKey(
  ctx: ServiceContext,
  input: AccountKeyIdInput,
): Promise<{ keyId: string; kind: "developer" | "user"; cancelledAccounts: number }> {
  const actor = authorize(ctx, "revokeAccountKey");
  const key = await findOwnLiveKey(ctx, actor.accountId, input.keyId);
  if (key.kind === "developer") {
    const revoked = await cascadeDeveloperKeyRevocation(ctx.db, key.id, ctx.now()).catch((error: unknown) => {
      // Revoked meanwhile by another request: the same answer as an unknown id.
      if (isAppError(error) && error.code === "invalid_api_key")
        throw new AppError("api_key_not_found", { param: "keyId" });
      throw error;
    });
    ctx.afterCommit(wakeDeliveries);
    return { keyId: revoked.keyId, kind: "developer", cancelledAccounts: revoked.cancelledAccounts };
  }
  const row = await revokeKeyRow(ctx.db, key.id, "user", ctx.now());
  if (!row) throw new AppError("api_key_not_found", { param: "keyId" });
  return { keyId: row.id, kind: "user", cancelledAccounts: 0 };
}

// Raw names: inside a subquery drizzle would render the outer column unqualified (see actors.ts).
const LIVE_STOREFRONTS = sql<number>`(select count(*)::int from storefronts s
  where s.account_id = "accounts"."id" and s.deleted_at is null)`;

/**
 * The account page (docs/ui.md, "Account"): email and verification, plan, its limits and the usage against them
 * (live storefronts, products), the upgrade link, the language, the terms and whether it holds developer keys.
 */
export async function getAccount(ctx: ServiceContext): Promise<AccountOverviewDto> {
  const actor = authorize(ctx, "getAccount");
  const [row] = await ctx.db
    .select({
      account: accounts,
      storefronts: LIVE_STOREFRONTS,
      hasDeveloperKeys: sql<boolean>`exists (select 1 from api_keys k where k.account_id = "accounts"."id"
        and k.kind = 'developer' and k.revoked_at is null)`,
    })
    .from(accounts)
    .where(eq(accounts.id, actor.accountId))
    .limit(1);
  if (!row) throw new AppError("account_cancelled");
  const { account } = row;
  const terms = currentTerms();
  return {
    id: account.id,
    email: account.email,
    status: account.status,
    verifiedAt: account.verifiedAt ? account.verifiedAt.toISOString() : null,
    createdAt: account.createdAt.toISOString(),
    language: toUserDto(account).language,
    plan: account.plan,
    limits: PLAN_LIMITS[account.plan],
    usage: { storefronts: Number(row.storefronts), products: account.productCount },
    upgradeUrl: account.plan === "PRO" ? null : upgradeUrl(),
    terms: {
      currentVersion: terms.version,
      acceptedVersion: account.tosAcceptedVersion,
      isAccepted: account.tosAcceptedVersion === terms.version,
    },
    hasDeveloperKeys: Boolean(row.hasDeveloperKeys),
    partner: await partnerOf(ctx.db, account),
  };
}

/** The partner that bootstrapped the account, as its owner sees it on the account page; null when none did. */
async function partnerOf(db: Db, account: AccountRow): Promise<AccountOverviewDto["partner"]> {
  if (!account.developerKeyId) return null;
  const [row] = await db
    .select({
      email: accounts.email,
      name: accounts.name,
      keyRevokedAt: apiKeys.revokedAt,
      liveKeys: sql<number>`(select count(*)::int from api_keys k where k.account_id = ${account.id}
        and k.kind = 'user' and k.source in ('bootstrap', 'api') and k.revoked_at is null)`,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(eq(apiKeys.id, account.developerKeyId))
    .limit(1);
  if (!row) return null;
  const isKeyLive = row.keyRevokedAt === null;
  return {
    email: row.email,
    name: row.name,
    hasAccess: isKeyLive && account.partnerAccess,
    isKeyLive,
    liveKeys: Number(row.liveKeys),
  };
}

/**
 * The owner grants the partner that bootstrapped the account access to it, or takes it away (docs/api.md,
 * "Partner access"): with access, the partner may issue new user keys for the account
 * (POST /v1/users/{userId}/keys). Keys it already holds are the owner's to revoke on the API keys page. An account
 * no partner bootstrapped: 400 `invalid_request`.
 */
export async function setPartnerAccess(
  ctx: ServiceContext,
  input: SetPartnerAccessInput,
): Promise<AccountOverviewDto["partner"]> {
  const actor = authorize(ctx, "setPartnerAccess");
  const [account] = await ctx.db
    .update(accounts)
    .set({ partnerAccess: input.hasAccess, updatedAt: ctx.now() })
    .where(and(eq(accounts.id, actor.accountId), sql`${accounts.developerKeyId} is not null`))
    .returning();
  const partner = account ? await partnerOf(ctx.db, account) : null;
  if (!partner) {
    throw new AppError("invalid_request", {
      param: "hasAccess",
      detail: {
        en: "No developer partner made this account.",
        es: "Ningún socio desarrollador creó esta cuenta.",
        pt: "Nenhum parceiro desenvolvedor criou esta conta.",
      },
    });
  }
  return partner;
}

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

/** The account's language: its mails (verification codes) and the dashboard when no language cookie is set. */
export async function setAccountLanguage(
  ctx: ServiceContext,
  input: SetAccountLanguageInput,
): Promise<{ language: SetAccountLanguageInput["language"] }> {
  const actor = authorize(ctx, "setAccountLanguage");
  await ctx.db
    .update(accounts)
    .set({ language: input.language, updatedAt: ctx.now() })
    .where(eq(accounts.id, actor.accountId));
  return { language: input.language };
}

/**
 * The developers page (docs/ui.md, "Developers"): the accounts the caller's developer keys bootstrapped, newest
 * first, optionally of one status, each with its bootstrapping key and its live storefronts count. The same
 * accounts `issueUserKey` accepts.
 */
export async function listPartnerUsers(
  ctx: ServiceContext,
  query: ListPartnerUsersQuery,
): Promise<Page<PartnerUserDto>> {
  const actor = authorize(ctx, "listBootstrappedUsers");
  const before = decodeCursor(query.cursor, "usr");
  const rows = await ctx.db
    .select({
      id: accounts.id,
      account: accounts,
      keyId: apiKeys.id,
      keyName: apiKeys.name,
      keyPrefix: apiKeys.prefix,
      keyRevokedAt: apiKeys.revokedAt,
      storefronts: LIVE_STOREFRONTS,
    })
    .from(accounts)
    .innerJoin(apiKeys, eq(apiKeys.id, accounts.developerKeyId))
    .where(
      and(
        eq(apiKeys.accountId, actor.accountId),
        query.status ? eq(accounts.status, query.status) : undefined,
        before ? lt(accounts.id, before) : undefined,
      ),
    )
    .orderBy(desc(accounts.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit, (row) => ({
    ...toUserDto(row.account),
    developerKey: {
      id: row.keyId,
      name: row.keyName,
      prefix: row.keyPrefix,
      revoked: row.keyRevokedAt !== null,
    },
    storefronts: Number(row.storefronts),
  }));
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
