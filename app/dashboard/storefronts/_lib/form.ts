import type { StorefrontEditorDto } from "@/server/storefronts/dto";
import { DAYS, type Day, type StorefrontDto, type UpdateStorefrontInput } from "@/server/storefronts/schema";

/**
 * The storefront editor's form (docs/ui.md, "Storefronts"): what the inputs hold (strings as typed), how that
 * becomes the storefront input /v1 takes, and the PATCH that carries only what changed. No rule of the catalog
 * lives here: the input is validated with /v1's own schema (server/storefronts/schema.ts) before it is sent, and
 * again by the server.
 */

export type DayForm = { open: string; close: string; closed: boolean };
export type RangeForm = { key: string; fromKm: string; toKm: string; price: string };
export type CategoryForm = {
  key: string;
  name: string /** The name it was loaded with (null: added here). */;
  loadedAs: string | null;
};

export type EditorForm = {
  name: string;
  language: StorefrontDto["language"];
  currency: string;
  businessType: string;
  logoUrl: string;
  /** A photo uploaded in the form (docs/ui.md, "Photos"): sent as `{fileId}`, `logoUrl` holding its URL. */
  logoFileId: string;
  backgroundMode: "none" | "url" | "auto";
  backgroundUrl: string;
  backgroundFileId: string;
  primary: string;
  secondary: string;
  tertiary: string;
  font: string;
  schedule: Record<Day, DayForm>;
  timeZone: string;
  deliveryEnabled: boolean;
  deliveryType: "fixed" | "distance";
  fixedPrice: string;
  ranges: RangeForm[];
  pickup: boolean;
  dineIn: boolean;
  biographyMode: "none" | "auto" | "custom";
  biographyTitle: string;
  biographyDescription: string;
  categories: CategoryForm[];
  slug: string;
  hidden: boolean;
  blocks: "auto" | "custom" | "none";
};

let keys = 0;
/** A stable React key for a row added or loaded in the browser. */
export function rowKey(): string {
  keys += 1;
  return `row-${keys}`;
}

function numberText(value: number | null | undefined): string {
  return value === null || value === undefined ? "" : String(value);
}

/** The form as loaded: every field of the Storefront object, its time zone, and what is stored as `auto`. */
export function formFromEditor(editor: StorefrontEditorDto): EditorForm {
  const s = editor.storefront;
  const theme = s.branding?.theme;
  const schedule = Object.fromEntries(
    DAYS.map((day) => {
      const stored = s.schedule?.[day];
      return [day, { open: stored?.open ?? "", close: stored?.close ?? "", closed: stored?.closed ?? false }];
    }),
  ) as Record<Day, DayForm>;
  const categories = [...(s.categories ?? [])]
    .map((category, index) => ({ category, index }))
    .sort(
      (a, b) =>
        (a.category.position ?? Number.MAX_SAFE_INTEGER) - (b.category.position ?? Number.MAX_SAFE_INTEGER) ||
        a.index - b.index,
    )
    .map(({ category }) => ({ key: rowKey(), name: category.name, loadedAs: category.name }));
  return {
    name: s.name,
    language: s.language,
    currency: s.currency,
    businessType: s.businessType ?? "",
    logoUrl: s.branding?.logoUrl ?? "",
    logoFileId: "",
    backgroundMode: editor.stored.isBackgroundAuto ? "auto" : s.branding?.backgroundUrl ? "url" : "none",
    backgroundUrl: s.branding?.backgroundUrl ?? "",
    backgroundFileId: "",
    primary: theme?.primary ?? "",
    secondary: theme?.secondary ?? "",
    tertiary: theme?.tertiary ?? "",
    font: s.branding?.font ?? "",
    schedule,
    timeZone: editor.settings.timeZone,
    deliveryEnabled: s.delivery?.enabled ?? false,
    deliveryType: s.delivery?.type ?? "fixed",
    fixedPrice: numberText(s.delivery?.fixedPrice),
    ranges: (s.delivery?.ranges ?? []).map((range) => ({
      key: rowKey(),
      fromKm: numberText(range.fromKm),
      toKm: numberText(range.toKm),
      price: numberText(range.price),
    })),
    pickup: s.pickup ?? false,
    dineIn: s.dineIn ?? false,
    biographyMode: editor.stored.isBiographyAuto ? "auto" : s.biography ? "custom" : "none",
    biographyTitle: editor.stored.isBiographyAuto ? "" : (s.biography?.title ?? ""),
    biographyDescription: editor.stored.isBiographyAuto ? "" : (s.biography?.description ?? ""),
    categories,
    slug: s.slug ?? "",
    hidden: s.hidden ?? false,
    blocks: editor.stored.blocks ?? "none",
  };
}

/**
 * A number as typed: "" is null; text that is not a number is sent as it is, so /v1's schema refuses it on its
 * own field (never silently turned into 0).
 */
function numberOrText(value: string): number | string | null {
  const trimmed = value.trim();
  if (trimmed === "") return null;
  const parsed = Number(trimmed.replace(",", "."));
  return Number.isFinite(parsed) ? parsed : value;
}

function orNull(value: string): string | null {
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

type Input = Record<string, unknown>;

/** The whole storefront input the form stands for (the keys of the PATCH body), before the diff. */
export function inputFromForm(form: EditorForm): Input {
  const isThemeEmpty = !form.primary && !form.secondary && !form.tertiary;
  const branding = {
    logoUrl: form.logoFileId ? { fileId: form.logoFileId } : orNull(form.logoUrl),
    backgroundUrl:
      form.backgroundMode === "auto"
        ? "auto"
        : form.backgroundMode === "url"
          ? form.backgroundFileId
            ? { fileId: form.backgroundFileId }
            : orNull(form.backgroundUrl)
          : null,
    theme: isThemeEmpty
      ? null
      : { primary: form.primary, secondary: form.secondary, tertiary: form.tertiary },
    font: orNull(form.font),
  };
  const isBrandingEmpty = Object.values(branding).every((value) => value === null);
  const days = DAYS.map((day) => {
    const value = form.schedule[day];
    const isEmpty = !value.open && !value.close && !value.closed;
    return [
      day,
      isEmpty ? null : { open: value.open || null, close: value.close || null, closed: value.closed },
    ];
  });
  const isScheduleEmpty = days.every(([, value]) => value === null);
  const isDeliveryEmpty = !form.deliveryEnabled && form.fixedPrice.trim() === "" && form.ranges.length === 0;
  return {
    name: form.name,
    language: form.language,
    currency: form.currency.trim().toUpperCase(),
    businessType: form.businessType || null,
    branding: isBrandingEmpty ? null : branding,
    schedule: isScheduleEmpty ? null : Object.fromEntries(days),
    delivery: isDeliveryEmpty
      ? null
      : {
          enabled: form.deliveryEnabled,
          type: form.deliveryType,
          fixedPrice: numberOrText(form.fixedPrice),
          ranges:
            form.ranges.length === 0
              ? null
              : form.ranges.map((range) => ({
                  fromKm: numberOrText(range.fromKm),
                  toKm: numberOrText(range.toKm),
                  price: numberOrText(range.price),
                })),
        },
    pickup: form.pickup,
    dineIn: form.dineIn,
    biography:
      form.biographyMode === "auto"
        ? "auto"
        : form.biographyMode === "custom"
          ? { title: form.biographyTitle, description: form.biographyDescription }
          : null,
    categories:
      form.categories.length === 0
        ? null
        : form.categories.map((c, position) => ({ name: c.name, position })),
    slug: orNull(form.slug),
    hidden: form.hidden,
    // A custom list set over /v1 is kept as it is: the editor only switches between automatic and none.
    ...(form.blocks === "custom" ? {} : { blocks: form.blocks === "auto" ? "auto" : null }),
  };
}

function isEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The keys of an object that changed, for fields the PATCH deep-merges (docs/api.md, "PATCH rules" 1). */
function mergedChanges(before: unknown, after: unknown): unknown {
  if (!isObject(before) || !isObject(after)) return after;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(after)) if (!isEqual(before[key], value)) out[key] = value;
  return out;
}

/**
 * The PATCH body: only the keys that changed. `branding` and `delivery` carry only their changed keys (the server
 * deep-merges them; `delivery.enabled` always goes, the schema requires it), `schedule` only the changed days,
 * and arrays (`categories`, `delivery.ranges`) go whole, because arrays replace (PATCH rules 1-2).
 */
export function patchOf(loaded: EditorForm, current: EditorForm): Partial<UpdateStorefrontInput> {
  const before = inputFromForm(loaded);
  const after = inputFromForm(current);
  const patch: Input = {};
  for (const [key, value] of Object.entries(after)) {
    if (isEqual(before[key], value)) continue;
    if (key === "branding" || key === "schedule") patch[key] = mergedChanges(before[key], value);
    else if (key === "delivery" && isObject(value)) {
      patch[key] = { ...(mergedChanges(before[key], value) as Input), enabled: value.enabled };
    } else patch[key] = value;
  }
  return patch as Partial<UpdateStorefrontInput>;
}

/** The key of the page's field that shows an error whose `param` is this JSON path (e.g. `delivery.ranges[1].fromKm`). */
export function fieldIdOf(param: string): string {
  return `sf-${param.replace(/[^A-Za-z0-9]+/g, "-").replace(/-$/, "")}`;
}

/** The editor's sections, and which top-level input keys each holds (an error opens the section of its field). */
export const SECTIONS = {
  general: ["name", "language", "currency", "businessType", "whatsapp", "slug", "hidden", "storefrontId"],
  branding: ["branding"],
  hours: ["schedule", "timeZone"],
  service: ["delivery", "pickup", "dineIn"],
  about: ["biography", "blocks"],
  categories: ["categories"],
} as const;
export type Section = keyof typeof SECTIONS;

export function sectionOf(param: string | null): Section | null {
  if (!param) return null;
  const top = param.split(/[.[]/)[0] ?? "";
  for (const [section, fields] of Object.entries(SECTIONS) as Array<[Section, readonly string[]]>) {
    if (fields.includes(top)) return section;
  }
  return null;
}
