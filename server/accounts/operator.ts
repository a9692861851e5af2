import { and, eq, inArray } from "drizzle-orm";
import type { z } from "zod";
import type { ServiceContext } from "@/server/context";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { DEVELOPER_KEY_SCOPES } from "@/server/gate/scopes";
import { accounts } from "@/server/gate/tables";
import { newId } from "@/server/lib/ids";
import { parseInput } from "@/server/validation";
import { issueKey } from "./keys";
import { authorizeOperator } from "./operations";
import { CreateDeveloperKeyInput, type Plan } from "./schema";
import { findActiveAccountByEmail } from "./service";

// The operator's account functions (docs/architecture.md, "Actors"): only `operatorContext` runs them (the CLI).

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
