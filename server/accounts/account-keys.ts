import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { ServiceContext } from "@/server/context";
import { inTransaction } from "@/server/db/transaction";
import { AppError, isAppError } from "@/server/errors";
import { DEVELOPER_KEY_SCOPES, VERIFIED_USER_SCOPES } from "@/server/gate/scopes";
import { accounts, apiKeys } from "@/server/gate/tables";
import { wakeDeliveries } from "@/server/webhooks/wake";
import { cascadeDeveloperKeyRevocation } from "./cancellation";
import { type ApiKeyRow, toAccountKeyDto } from "./dto";
import { issueKey, revokeKeyRow } from "./keys";
import { authorize } from "./operations";
import type { AccountKeyDto, AccountKeyIdInput, CreateAccountKeyInput, KeyRevocationPreview } from "./schema";
import { assertKeyRoom, lockAccount } from "./service";

// The dashboard's API keys page (docs/ui.md, "API keys"): the signed-in account's own keys.

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
