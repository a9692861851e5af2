import { and, eq, lt, ne, or, sql } from "drizzle-orm";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { inSavepoint, inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { accounts, apiKeys } from "@/server/gate/tables";
import { currentTerms, TOS_GRACE_DAYS } from "@/server/gate/terms";
import { emitEvent } from "@/server/webhooks/events";
import { wakeDeliveries } from "@/server/webhooks/wake";
import type { AccountRow } from "./dto";
import { revokeKeyRow } from "./keys";
import { authorize, authorizeOperator } from "./operations";

/**
 * The reasons of `user.cancelled` (docs/webhooks.md, "`data` by type"; causes in docs/api.md, "Account
 * lifecycle").
 */
export type CancelReason =
  | "user_clicked_cancel"
  | "squatting_defense"
  | "30d_unverified"
  | "90d_no_tos"
  | "key_revoked";

const DAY_MS = 86_400_000;
export const UNVERIFIED_RETENTION_DAYS = 30;

/**
 * Cancels one account in the caller's transaction: status `cancelled` (its keys stop working at once with
 * `account_cancelled`; its email is free again), and one `user.cancelled` with the reason, to the bootstrapping
 * developer's endpoints. Returns false when the account was already cancelled (nothing fires twice).
 */
export async function cancelAccountInTransaction(
  db: Db,
  accountId: string,
  reason: CancelReason,
  now: Date,
): Promise<boolean> {
  const [cancelled] = await db
    .update(accounts)
    .set({
      status: "cancelled",
      cancelledAt: now,
      cancelReason: reason,
      updatedAt: now,
      verificationCodeHash: null,
    })
    .where(and(eq(accounts.id, accountId), ne(accounts.status, "cancelled")))
    .returning();
  if (!cancelled) return false;
  if (cancelled.developerKeyId) {
    await emitEvent(
      db,
      {
        type: "user.cancelled",
        data: {
          userId: cancelled.id,
          developerKeyId: cancelled.developerKeyId,
          cancelledAt: now.toISOString(),
          reason,
        },
        accountId: cancelled.id,
      },
      now,
    );
  }
  return true;
}

async function cancelMany(db: Db, accountIds: string[], reason: CancelReason, now: Date): Promise<number> {
  let count = 0;
  for (const id of accountIds) {
    const done = await inSavepoint(db, (tx) => cancelAccountInTransaction(tx, id, reason, now));
    if (done) count++;
  }
  if (count > 0) wakeDeliveries();
  return count;
}

/**
 * `user_clicked_cancel`: the account's owner cancels it (dashboard button, or `DELETE /v1/me` with a user key).
 * A developer key cannot cancel its own developer account over the API.
 */
export async function cancelOwnAccount(ctx: ServiceContext): Promise<{ id: string; deleted: true }> {
  const actor = authorize(ctx, "cancelAccount");
  if (actor.kind !== "user") {
    throw new AppError("insufficient_scope", {
      detail: {
        en: "Only a user key can cancel its account; developer accounts are closed from the dashboard.",
        es: "Solo una clave de usuario puede cancelar su cuenta; las cuentas de desarrollador se cierran desde el panel.",
        pt: "Só uma chave de usuário pode cancelar sua conta; contas de desenvolvedor são encerradas pelo painel.",
      },
      requiredScopes: ["catalog:write"],
      heldScopes: actor.scopes,
    });
  }
  await inTransaction(ctx.db, (tx) =>
    cancelAccountInTransaction(tx, actor.accountId, "user_clicked_cancel", ctx.now()),
  );
  ctx.afterCommit(wakeDeliveries);
  return { id: actor.accountId, deleted: true };
}

/** Job `cleanup-unverified` (`30d_unverified`): bootstrap accounts never verified within 30 days of creation. */
export async function cancelStaleUnverifiedAccounts(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - UNVERIFIED_RETENTION_DAYS * DAY_MS);
  const stale = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(eq(accounts.status, "unverified"), lt(accounts.createdAt, cutoff)));
  return cancelMany(
    db,
    stale.map((r) => r.id),
    "30d_unverified",
    now,
  );
}

/**
 * Job `cleanup-no-tos` (`90d_no_tos`): verified USER accounts (docs/api.md, "Terms of service") that have not
 * accepted the current terms 90 days after they were published. The terms bind whom the write gate warns: an
 * account holding a user key (`assertTermsAcceptedForWrite`). A developer account an operator made with
 * `dev-key create` holds developer keys only; its key never saw `tos_not_accepted`, so it is never cancelled
 * for it.
 */
export async function cancelAccountsWithoutCurrentTerms(db: Db, now: Date): Promise<number> {
  const terms = currentTerms();
  if (now.getTime() < terms.publishedAt.getTime() + TOS_GRACE_DAYS * DAY_MS) return 0;
  const overdue = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(
      and(
        eq(accounts.status, "verified"),
        or(sql`${accounts.tosAcceptedVersion} is null`, ne(accounts.tosAcceptedVersion, terms.version)),
        sql`exists (select 1 from ${apiKeys} where ${apiKeys.accountId} = ${accounts.id} and ${apiKeys.kind} = 'user')`,
      ),
    );
  return cancelMany(
    db,
    overdue.map((r) => r.id),
    "90d_no_tos",
    now,
  );
}

/** Accepting the current terms lifts `tos_not_accepted` at once. */
export async function acceptCurrentTerms(
  ctx: ServiceContext,
  input: { version: string },
): Promise<{ tosAcceptedVersion: string }> {
  const actor = authorize(ctx, "acceptTerms");
  const { version } = input;
  const terms = currentTerms();
  if (version !== terms.version) {
    throw new AppError("invalid_request", {
      param: "version",
      detail: {
        en: `The current terms version is ${terms.version}.`,
        es: `La versión vigente de los términos es ${terms.version}.`,
        pt: `A versão atual dos termos é ${terms.version}.`,
      },
    });
  }
  await ctx.db
    .update(accounts)
    .set({ tosAcceptedVersion: terms.version, updatedAt: ctx.now() })
    .where(eq(accounts.id, actor.accountId));
  return { tosAcceptedVersion: terms.version };
}

/**
 * Operator (`operatorContext`: CLI `dev-key revoke`): revokes a developer key by its id, whoever holds it
 * (`cascadeDeveloperKeyRevocation`). A signed-in owner revokes their own keys through `revokeAccountKey`.
 */
export async function revokeDeveloperKeyAndCascade(
  ctx: ServiceContext,
  input: { keyId: string },
): Promise<{ keyId: string; cancelledAccounts: number }> {
  authorizeOperator(ctx, "revokeDeveloperKey");
  const revoked = await cascadeDeveloperKeyRevocation(ctx.db, input.keyId, ctx.now());
  ctx.afterCommit(wakeDeliveries);
  return revoked;
}

/**
 * Revoking a developer key, for a caller already authorized (the operator, or the owner whose key it is:
 * `revokeAccountKey` checks ownership first), in one transaction: the key stops at once, its still-unverified
 * accounts are cancelled with `key_revoked`, and order events of all its accounts stop (the event routing checks
 * the key). An unknown or already revoked key: 401 `invalid_api_key`. The caller wakes the delivery worker after
 * commit.
 */
export async function cascadeDeveloperKeyRevocation(
  db: Db,
  keyId: string,
  now: Date,
): Promise<{ keyId: string; cancelledAccounts: number }> {
  const revoked = await inTransaction(db, async (txDb) => {
    const row = await revokeKeyRow(txDb, keyId, "developer", now);
    if (!row) return null;
    const unverified: Pick<AccountRow, "id">[] = await txDb
      .select({ id: accounts.id })
      .from(accounts)
      .where(and(eq(accounts.developerKeyId, keyId), eq(accounts.status, "unverified")));
    let cancelledAccounts = 0;
    for (const account of unverified) {
      if (await cancelAccountInTransaction(txDb, account.id, "key_revoked", now)) cancelledAccounts++;
    }
    return { keyId: row.id, cancelledAccounts };
  });
  if (!revoked) throw new AppError("invalid_api_key", { param: "id" });
  return revoked;
}
