import { eq } from "drizzle-orm";
import type { Plan } from "@/server/accounts/schema";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { VERIFIED_USER_SCOPES } from "@/server/gate/scopes";
import { accounts, apiKeys } from "@/server/gate/tables";
import { currentTerms } from "@/server/gate/terms";
import { asAdapter, serviceContextFor } from "@/server/testing/context";
import { CreateStorefrontInput, type StorefrontDto } from "./schema";
import { createStorefront } from "./service";

export type Merchant = { userId: string; userKey: string; email: string };

/**
 * A bootstrapped merchant, made through the services (by `developerKey`, or a developer of its own). Its key's minute budget is raised (tests make more than 60
 * calls a minute). `verified: true` marks the account verified and gives the key the post-verify scopes
 * (storefront:publish), as verification does; `plan` sets the plan as the admin CLI does.
 */
export async function createMerchant(
  options: { plan?: Plan; verified?: boolean; scopes?: string[]; developerKey?: string } = {},
): Promise<Merchant> {
  const developerKey = options.developerKey ?? (await createDeveloper()).key;
  const user = await bootstrapUser(developerKey);
  const db = await dbReady();
  await db.update(apiKeys).set({ rpm: 100_000 }).where(eq(apiKeys.accountId, user.userId));
  if (options.verified) {
    await db
      .update(accounts)
      // Verifying accepts the current terms of service (docs/api.md, "Terms of service").
      .set({
        status: "verified",
        verifiedAt: new Date(),
        tosAcceptedVersion: currentTerms().version,
      })
      .where(eq(accounts.id, user.userId));
    await db.update(apiKeys).set({ scopes: VERIFIED_USER_SCOPES }).where(eq(apiKeys.accountId, user.userId));
  }
  if (options.scopes)
    await db.update(apiKeys).set({ scopes: options.scopes }).where(eq(apiKeys.accountId, user.userId));
  if (options.plan) await db.update(accounts).set({ plan: options.plan }).where(eq(accounts.id, user.userId));
  return user;
}

/** Sets the account's product counter directly, to test the plan limit without creating 2,000 rows. */
export async function setProductCount(accountId: string, productCount: number): Promise<void> {
  const db = await dbReady();
  await db.update(accounts).set({ productCount }).where(eq(accounts.id, accountId));
}

export async function productCountOf(accountId: string): Promise<number> {
  const db = await dbReady();
  const [row] = await db
    .select({ n: accounts.productCount })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return row?.n ?? -1;
}

/** A storefront created through the service; `body` overrides the minimal valid input. */
export async function createTestStorefront(
  key: string,
  body: Record<string, unknown> = {},
): Promise<StorefrontDto> {
  const input = CreateStorefrontInput.parse({
    name: "Panadería Doña Ana",
    language: "es",
    currency: "MXN",
    ...body,
  });
  const created = await asAdapter(await serviceContextFor(key), (ctx) => createStorefront(ctx, input));
  return created.storefront;
}
