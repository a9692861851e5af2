import type { Plan, PlanLimits } from "@/server/accounts/schema";
import { env } from "@/server/env";
import type { Upgrade } from "@/server/errors";
import { fileUrl } from "@/server/files/service";
import type { DAYS, StorefrontDto, StorefrontSettingsDto } from "./schema";
import type { storefronts } from "./tables";

export type StorefrontRow = typeof storefronts.$inferSelect;

/** How nested objects are stored (jsonb): the validated input, with `{preset}` themes already resolved. */
type ImageRef = string | { fileId: string } | null | undefined;
type StoredBranding = {
  logoUrl?: ImageRef;
  backgroundUrl?: ImageRef;
  theme?: { primary?: string | null; secondary?: string | null; tertiary?: string | null } | null;
  font?: string | null;
};
type StoredDay = { open?: string | null; close?: string | null; closed?: boolean | null } | null;
type StoredDelivery = {
  enabled?: boolean;
  type?: "fixed" | "distance" | null;
  fixedPrice?: number | null;
  ranges?: Array<{ fromKm: number; toKm?: number | null; price: number }> | null;
};
type StoredBiography = "auto" | { title: string; description: string } | null;
type StoredCategory = { name: string; position?: number | null };

/**
 * Image references as the Storefront shows them (docs/api.md, "Images"): `{fileId}` answers the file's public URL
 * (`{APP_URL}/files/{fileId}`; the file was checked to be the account's when it was set); `"auto"` answers null (no
 * background generator yet). The reference is kept as sent.
 */
function imageUrlOf(value: ImageRef): string | null {
  if (value && typeof value === "object") return fileUrl(value.fileId);
  return typeof value === "string" && value !== "auto" ? value : null;
}

/** `biography: "auto"` answers a short deterministic text in the storefront's language, kept in sync with the name. */
export function autoBiography(
  name: string,
  language: string,
  businessType: string | null,
): { title: string; description: string } {
  const kind = businessType ? ` (${businessType})` : "";
  if (language === "en")
    return { title: name, description: `Welcome to ${name}${kind}. Browse our catalog and order online.` };
  if (language === "pt")
    return {
      title: name,
      description: `Bem-vindo a ${name}${kind}. Veja nosso catálogo e faça seu pedido online.`,
    };
  return {
    title: name,
    description: `Bienvenido a ${name}${kind}. Mira nuestro catálogo y haz tu pedido en línea.`,
  };
}

function toBrandingDto(value: StoredBranding | null): StorefrontDto["branding"] {
  if (!value) return null;
  const theme = value.theme
    ? {
        primary: value.theme.primary ?? null,
        secondary: value.theme.secondary ?? null,
        tertiary: value.theme.tertiary ?? null,
      }
    : null;
  return {
    logoUrl: imageUrlOf(value.logoUrl),
    backgroundUrl: imageUrlOf(value.backgroundUrl),
    theme,
    font: value.font ?? null,
  };
}

function toScheduleDto(value: Record<string, StoredDay> | null): StorefrontDto["schedule"] {
  if (!value) return null;
  const day = (name: (typeof DAYS)[number]) => {
    const stored = value[name];
    return stored
      ? { open: stored.open ?? null, close: stored.close ?? null, closed: stored.closed ?? null }
      : null;
  };
  return {
    monday: day("monday"),
    tuesday: day("tuesday"),
    wednesday: day("wednesday"),
    thursday: day("thursday"),
    friday: day("friday"),
    saturday: day("saturday"),
    sunday: day("sunday"),
  };
}

function toDeliveryDto(value: StoredDelivery | null): StorefrontDto["delivery"] {
  if (!value) return null;
  return {
    enabled: value.enabled ?? false,
    type: value.type ?? null,
    fixedPrice: value.fixedPrice ?? null,
    ranges: value.ranges
      ? value.ranges.map((range) => ({ fromKm: range.fromKm, toKm: range.toKm ?? null, price: range.price }))
      : null,
  };
}

export function publicUrlOf(row: Pick<StorefrontRow, "published" | "slug">): string | null {
  return row.published && row.slug ? `${env().APP_URL}/s/${row.slug}` : null;
}

/**
 * The one mapping from a row to the Storefront object: every key present, null where unset (docs/api.md,
 * "Storefronts").
 */
export function toStorefrontDto(row: StorefrontRow): StorefrontDto {
  const biography = row.biography as StoredBiography;
  const categories = row.categories as StoredCategory[] | null;
  return {
    id: row.id,
    name: row.name,
    language: row.language as StorefrontDto["language"],
    currency: row.currency,
    businessType: row.businessType,
    branding: toBrandingDto(row.branding as StoredBranding | null),
    schedule: toScheduleDto(row.schedule as Record<string, StoredDay> | null),
    delivery: toDeliveryDto(row.delivery as StoredDelivery | null),
    pickup: row.pickup,
    dineIn: row.dineIn,
    whatsapp: row.whatsapp,
    biography:
      biography === "auto" ? autoBiography(row.name, row.language, row.businessType) : (biography ?? null),
    categories: categories
      ? categories.map((category) => ({ name: category.name, position: category.position ?? null }))
      : null,
    slug: row.slug,
    hidden: row.hidden,
    published: row.published,
    _links: { editUrl: `${env().APP_URL}/dashboard/storefronts/${row.id}`, publicUrl: publicUrlOf(row) },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** A storefront as the dashboard's list shows it (docs/ui.md, "Storefronts"). */
export type StorefrontSummaryDto = {
  id: string;
  name: string;
  currency: string;
  /** `draft`: never or no longer published; `hidden`: published but hidden; `published`: on its public page. */
  status: "published" | "hidden" | "draft";
  slug: string | null;
  publicUrl: string | null;
  productCount: number;
  updatedAt: string;
};

/** The account's plan as the dashboard shows it beside a 402: its limits, and where to upgrade. */
export type PlanUsageDto = {
  plan: Plan;
  limits: PlanLimits;
  /** The limits of the plan an upgrade leads to. */
  upgradeLimits: PlanLimits;
  upgrade: Upgrade;
};

/** What the dashboard's storefront editor loads (docs/ui.md, "Storefronts"). */
export type StorefrontEditorDto = {
  storefront: StorefrontDto;
  settings: StorefrontSettingsDto;
  /** What the Storefront object cannot say: `biography`, `branding.backgroundUrl` and `blocks` stored as `auto`. */
  stored: { isBiographyAuto: boolean; isBackgroundAuto: boolean; blocks: "auto" | "custom" | null };
  /**
   * Products per category name, names no longer in `categories` (orphans) included: removing or renaming a
   * category leaves its products with the old name (docs/api.md, "PATCH rules" 2).
   */
  categoryUsage: Array<{ name: string; products: number }>;
  productCount: number;
  usage: PlanUsageDto;
};
