import { and, eq, sql } from "drizzle-orm";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { accounts, apiKeys } from "@/server/gate/tables";
import { currentTerms } from "@/server/gate/terms";
import { type AccountRow, toUserDto } from "./dto";
import { authorize } from "./operations";
import { PLAN_LIMITS, upgradeUrl } from "./plans";
import type { AccountOverviewDto, SetAccountLanguageInput, SetPartnerAccessInput } from "./schema";
import { LIVE_STOREFRONTS } from "./service";

// The dashboard's account page (docs/ui.md, "Account"): the account, its partner's access, its language.

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
