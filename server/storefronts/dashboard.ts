import { and, asc, count, desc, eq, isNull, sql } from "drizzle-orm";
import { PLAN_LIMITS, upgradeFor } from "@/server/accounts/plans";
import type { Plan } from "@/server/accounts/schema";
import type { ServiceContext } from "@/server/context";
import { AppError } from "@/server/errors";
import { products } from "@/server/products/tables";
import { storefrontChangedAfterCommit } from "./changes";
import {
  type PlanUsageDto,
  publicUrlOf,
  type StorefrontEditorDto,
  type StorefrontRow,
  type StorefrontSummaryDto,
  toStorefrontDto,
} from "./dto";
import { findLiveStorefront } from "./lookup";
import { authorize } from "./operations";
import type { StorefrontSettingsDto, UpdateStorefrontSettingsInput } from "./schema";
import { paymentMethodsFor, timeZoneFor } from "./settings";
import { storefronts } from "./tables";
import { canonicalTimeZone } from "./time-zones";

/**
 * What only the dashboard asks of storefronts: the settings outside the /v1 Storefront object (time zone,
 * payment methods), the storefront list with product counts and the plan's usage, and the editor's view.
 */

function toSettingsDto(row: StorefrontRow): StorefrontSettingsDto {
  return {
    storefrontId: row.id,
    timeZone: timeZoneFor(row),
    isDefaultTimeZone: row.timeZone === null,
    paymentMethods: paymentMethodsFor(row.paymentMethods, row.language),
    isDefaultPaymentMethods: !row.paymentMethods || row.paymentMethods.length === 0,
  };
}

/**
 * A storefront's settings outside the /v1 Storefront object (docs/api.md, "Storefront settings"): its time zone
 * (the currency's default until set) and payment methods. The dashboard's door only.
 */
export async function getStorefrontSettings(
  ctx: ServiceContext,
  input: { storefrontId: string },
): Promise<StorefrontSettingsDto> {
  const actor = authorize(ctx, "getStorefrontSettings");
  return toSettingsDto(
    await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId: input.storefrontId }),
  );
}

/**
 * Sets a storefront's time zone (an IANA name this runtime knows, stored in its canonical spelling; null goes
 * back to the currency's default) and/or its payment methods (null: cash only). The dashboard's door only; the
 * /v1 Storefront object does not change. The public page follows at once.
 */
export async function updateStorefrontSettings(
  ctx: ServiceContext,
  input: { storefrontId: string; settings: UpdateStorefrontSettingsInput },
): Promise<StorefrontSettingsDto> {
  const actor = authorize(ctx, "updateStorefrontSettings");
  const { storefrontId, settings } = input;
  const set: Partial<typeof storefronts.$inferInsert> = {};
  if (settings.timeZone !== undefined) {
    const zone = settings.timeZone === null ? null : canonicalTimeZone(settings.timeZone);
    if (settings.timeZone !== null && zone === null) {
      throw new AppError("invalid_request", {
        param: "timeZone",
        detail: {
          en: "timeZone: must be an IANA time zone name, e.g. America/Mexico_City.",
          es: "timeZone: debe ser un nombre de zona horaria IANA, p. ej. America/Mexico_City.",
          pt: "timeZone: deve ser um nome de fuso horário IANA, p. ex. America/Mexico_City.",
        },
      });
    }
    set.timeZone = zone;
  }
  if (settings.paymentMethods !== undefined) {
    set.paymentMethods = settings.paymentMethods?.map((name) => name.trim()) ?? null;
  }
  const current = await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId });
  if (Object.keys(set).length === 0) return toSettingsDto(current);
  const [row] = await ctx.db
    .update(storefronts)
    .set(set)
    .where(
      and(
        eq(storefronts.id, storefrontId),
        eq(storefronts.accountId, actor.accountId),
        isNull(storefronts.deletedAt),
      ),
    )
    .returning();
  if (!row) throw new AppError("storefront_deleted", { param: "storefrontId" });
  storefrontChangedAfterCommit(ctx, { storefrontId: row.id, slug: row.slug });
  return toSettingsDto(row);
}

function planUsageOf(plan: Plan): PlanUsageDto {
  return { plan, limits: PLAN_LIMITS[plan], upgradeLimits: PLAN_LIMITS.PRO, upgrade: upgradeFor(plan) };
}

function statusOf(row: Pick<StorefrontRow, "published" | "hidden">): StorefrontSummaryDto["status"] {
  if (!row.published) return "draft";
  return row.hidden ? "hidden" : "published";
}

/**
 * The dashboard's storefront list: every live storefront of the account (a plan allows at most 10) with its
 * product count, most recently changed first, and the plan's limits for the upgrade prompt. Authorized as
 * `listStorefronts`, the read it extends.
 */
export async function listStorefrontSummaries(
  ctx: ServiceContext,
): Promise<{ data: StorefrontSummaryDto[]; usage: PlanUsageDto }> {
  const actor = authorize(ctx, "listStorefronts");
  // Grouped by the primary key, so every storefront column may be selected.
  const rows = await ctx.db
    .select({ row: storefronts, productCount: count(products.id) })
    .from(storefronts)
    .leftJoin(products, eq(products.storefrontId, storefronts.id))
    .where(and(eq(storefronts.accountId, actor.accountId), isNull(storefronts.deletedAt)))
    .groupBy(storefronts.id)
    .orderBy(desc(storefronts.updatedAt), asc(storefronts.id));
  return {
    data: rows.map(({ row, productCount }) => ({
      id: row.id,
      name: row.name,
      currency: row.currency,
      status: statusOf(row),
      slug: row.slug,
      publicUrl: publicUrlOf(row),
      productCount,
      updatedAt: row.updatedAt.toISOString(),
    })),
    usage: planUsageOf(actor.plan),
  };
}

/**
 * One storefront for the dashboard's editor: the Storefront object, its dashboard-only settings (time zone,
 * payment methods), what is stored as `auto`, and how many products use each category. Authorized as
 * `getStorefrontSettings` (the dashboard's door only).
 */
export async function getStorefrontEditor(
  ctx: ServiceContext,
  input: { storefrontId: string },
): Promise<StorefrontEditorDto> {
  const actor = authorize(ctx, "getStorefrontSettings");
  const row = await findLiveStorefront(ctx.db, {
    accountId: actor.accountId,
    storefrontId: input.storefrontId,
  });
  const usage = await ctx.db
    .select({ name: products.category, products: sql<number>`count(*)::int` })
    .from(products)
    .where(eq(products.storefrontId, row.id))
    .groupBy(products.category);
  const branding = row.branding as { backgroundUrl?: unknown } | null;
  return {
    storefront: toStorefrontDto(row),
    settings: toSettingsDto(row),
    stored: {
      isBiographyAuto: row.biography === "auto",
      isBackgroundAuto: branding?.backgroundUrl === "auto",
      blocks: row.blocks === "auto" ? "auto" : Array.isArray(row.blocks) ? "custom" : null,
    },
    categoryUsage: usage
      .filter((entry): entry is { name: string; products: number } => entry.name !== null)
      .sort((a, b) => a.name.localeCompare(b.name)),
    productCount: usage.reduce((sum, entry) => sum + entry.products, 0),
    usage: planUsageOf(actor.plan),
  };
}
