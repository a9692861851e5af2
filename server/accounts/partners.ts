import { and, asc, desc, eq, gt, inArray, isNull, lt } from "drizzle-orm";
import type { ServiceContext } from "@/server/context";
import { countInFixedWindow, readFixedWindow, windowStartOf } from "@/server/db/fixed-window";
import { inTransaction, isUniqueViolationOn } from "@/server/db/transaction";
import { AppError, type Messages } from "@/server/errors";
import { userScopesFor } from "@/server/gate/scopes";
import { accountLimitWindows, accounts, apiKeys } from "@/server/gate/tables";
import { inRequestedOrder } from "@/server/lib/batch";
import { newId } from "@/server/lib/ids";
import { decodeCursor, type ListQuery, type Page, toPage } from "@/server/lib/pagination";
import { type AccountRow, type KeyDto, toKeyDto, toUserDto } from "./dto";
import { issueKey } from "./keys";
import { BOOTSTRAP_LIMITS } from "./limits";
import { authorize } from "./operations";
import type {
  BootstrapUserInput,
  IssueUserKeyInput,
  ListPartnerUsersQuery,
  PartnerUserDto,
  UserDto,
} from "./schema";
import {
  assertKeyRoom,
  findActiveAccountByEmail,
  flushMailAfterCommit,
  LIVE_STOREFRONTS,
  lockAccount,
  requireKey,
  sendVerificationCode,
} from "./service";

// The partner API (docs/api.md, "Accounts and keys", "Partner access"): accounts a developer bootstraps, their
// user keys, and the developers page that lists them (docs/ui.md, "Developers").

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
