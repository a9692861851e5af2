import { z } from "zod";
import { amount, httpUrl, safeText } from "@/server/fields";
import { ProductDto, ProductManifest, RejectedProductDto } from "@/server/products/schema";
import { jsonValue, localized, localizedError, pathId } from "@/server/validation";
import { BUSINESS_TYPES, CURRENCY_CODES } from "./enums";
import { canonicalTimeZone } from "./time-zones";

/** The maxima of a storefront's texts and lists (docs/api.md, "Storefronts", "Maxima"). */
export const STOREFRONT_MAXIMA = {
  name: 100,
  font: 60,
  biographyTitle: 200,
  biographyDescription: 2000,
  categories: 200,
  categoryName: 100,
  deliveryRanges: 50,
  blocks: 500,
  /** `blocks`, serialized as JSON, in bytes. */
  blocksBytes: 64 * 1024,
} as const;

export const StorefrontLanguage = z.enum(["es", "en", "pt"]);
export const Currency = z
  .enum(CURRENCY_CODES)
  .meta({ description: "ISO 4217 code (one of these 155, exactly)." });
export const BusinessType = z.enum(BUSINESS_TYPES);

/**
 * Theme presets: `{preset}` is resolved to its three colours when written, so a stored theme is always the
 * `{primary, secondary, tertiary}` triple the response shows. An unknown preset is a 400.
 */
export const THEME_PRESETS = {
  classic: { primary: "#1f2937", secondary: "#f9fafb", tertiary: "#2563eb" },
  ocean: { primary: "#0e7490", secondary: "#ecfeff", tertiary: "#f59e0b" },
  forest: { primary: "#166534", secondary: "#f0fdf4", tertiary: "#ca8a04" },
  sunset: { primary: "#c2410c", secondary: "#fff7ed", tertiary: "#7c3aed" },
  midnight: { primary: "#111827", secondary: "#1f2937", tertiary: "#f472b6" },
  coral: { primary: "#be123c", secondary: "#fff1f2", tertiary: "#0f766e" },
} as const;
export type ThemePreset = keyof typeof THEME_PRESETS;
const PRESET_NAMES = Object.keys(THEME_PRESETS) as [ThemePreset, ...ThemePreset[]];

/** `HH:MM`, 00:00-23:59; `24:00` is accepted as "until midnight" (docs/api.md, "Storefronts"). */
const Time = z
  .string()
  .max(5)
  .regex(/^\d{2}:\d{2}$/, {
    error: localizedError({ en: "must be HH:MM", es: "debe ser HH:MM", pt: "deve ser HH:MM" }),
  })
  .refine((value) => /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/.test(value), {
    error: localizedError({
      en: "must be a time of day, 00:00-23:59 (or 24:00)",
      es: "debe ser una hora del día, 00:00-23:59 (o 24:00)",
      pt: "deve ser uma hora do dia, 00:00-23:59 (ou 24:00)",
    }),
  });

const FileRef = z.strictObject({
  fileId: safeText({ min: 1, max: 200 }),
});

export const LogoUrlInput = z
  .union([httpUrl(), FileRef], {
    error: localizedError({
      en: "must be an http(s) URL, {fileId} or null",
      es: "debe ser una URL http(s), {fileId} o null",
      pt: "deve ser uma URL http(s), {fileId} ou null",
    }),
  })
  .nullable();
export const BackgroundUrlInput = z
  .union([z.literal("auto"), httpUrl(), FileRef], {
    error: localizedError({
      en: 'must be an http(s) URL, {fileId}, "auto" or null',
      es: 'debe ser una URL http(s), {fileId}, "auto" o null',
      pt: 'deve ser uma URL http(s), {fileId}, "auto" ou null',
    }),
  })
  .nullable();

/** A theme colour as the page renders it: `#rgb` or `#rrggbb` (app/s/_lib/palette.ts ignores anything else). */
const ThemeColour = z
  .string()
  .max(7)
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, {
    error: localizedError({
      en: "must be a hex colour, #rgb or #rrggbb",
      es: "debe ser un color hexadecimal, #rgb o #rrggbb",
      pt: "deve ser uma cor hexadecimal, #rgb ou #rrggbb",
    }),
  });

export const ThemeInput = z
  .union(
    [
      z.strictObject({ primary: ThemeColour, secondary: ThemeColour, tertiary: ThemeColour }),
      z.strictObject({ preset: z.enum(PRESET_NAMES) }),
    ],
    {
      error: localizedError({
        en: `must be {primary, secondary, tertiary} or {preset} with a preset of: ${PRESET_NAMES.join(", ")}`,
        es: `debe ser {primary, secondary, tertiary} o {preset} con uno de estos presets: ${PRESET_NAMES.join(", ")}`,
        pt: `deve ser {primary, secondary, tertiary} ou {preset} com um destes presets: ${PRESET_NAMES.join(", ")}`,
      }),
    },
  )
  .nullable();

export const BrandingInput = z
  .strictObject({
    logoUrl: LogoUrlInput.optional(),
    backgroundUrl: BackgroundUrlInput.optional(),
    theme: ThemeInput.optional(),
    font: safeText({ max: STOREFRONT_MAXIMA.font }).nullable().optional(),
  })
  .nullable();

const ScheduleDayInput = z
  .strictObject({
    open: Time.nullable().optional(),
    close: Time.nullable().optional(),
    closed: z.boolean().nullable().optional(),
  })
  .nullable();

export const DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;
export type Day = (typeof DAYS)[number];

export const ScheduleInput = z
  .strictObject({
    monday: ScheduleDayInput.optional(),
    tuesday: ScheduleDayInput.optional(),
    wednesday: ScheduleDayInput.optional(),
    thursday: ScheduleDayInput.optional(),
    friday: ScheduleDayInput.optional(),
    saturday: ScheduleDayInput.optional(),
    sunday: ScheduleDayInput.optional(),
  })
  .nullable();

const DeliveryRangeInput = z.strictObject({
  fromKm: z.number().min(0),
  toKm: z.number().min(0).nullable().meta({ description: "null: no upper bound (only the last range)." }),
  price: amount(),
});

/**
 * Delivery ranges must not overlap (docs/api.md, "Storefronts"): sorted by `fromKm`, each range starts at or
 * after the end of the previous one (`[0, 5]` then `[5, 10]` touch, they do not overlap). `toKm` must be
 * above `fromKm`; an open-ended range (`toKm: null`) can only be the last one.
 */
export const DeliveryInput = z
  .strictObject({
    enabled: z.boolean(),
    type: z.enum(["fixed", "distance"]).nullable().optional(),
    fixedPrice: amount().nullable().optional(),
    ranges: z.array(DeliveryRangeInput).max(STOREFRONT_MAXIMA.deliveryRanges).nullable().optional(),
  })
  .superRefine((value, ctx) => {
    const ranges = value.ranges ?? [];
    for (const [index, range] of ranges.entries()) {
      if (range.toKm !== null && range.toKm <= range.fromKm) {
        ctx.addIssue({
          code: "custom",
          path: ["ranges", index, "toKm"],
          message: localized({
            en: "must be greater than fromKm",
            es: "debe ser mayor que fromKm",
            pt: "deve ser maior que fromKm",
          }),
        });
        return;
      }
    }
    const order = ranges
      .map((range, index) => ({ range, index }))
      .sort((a, b) => a.range.fromKm - b.range.fromKm);
    for (let i = 1; i < order.length; i++) {
      const previous = order[i - 1];
      const current = order[i];
      if (!previous || !current) continue;
      const end = previous.range.toKm;
      if (end === null || current.range.fromKm < end) {
        const later = Math.max(previous.index, current.index);
        ctx.addIssue({
          code: "custom",
          path: ["ranges", later, "fromKm"],
          message: localized({
            en: `overlaps ranges[${Math.min(previous.index, current.index)}]`,
            es: `se superpone con ranges[${Math.min(previous.index, current.index)}]`,
            pt: `se sobrepõe a ranges[${Math.min(previous.index, current.index)}]`,
          }),
        });
        return;
      }
    }
  })
  .nullable();

export const BiographyInput = z
  .union(
    [
      z.literal("auto"),
      z.strictObject({
        title: safeText({ max: STOREFRONT_MAXIMA.biographyTitle }),
        description: safeText({ max: STOREFRONT_MAXIMA.biographyDescription }),
      }),
    ],
    {
      error: localizedError({
        en: 'must be {title, description}, "auto" or null',
        es: 'debe ser {title, description}, "auto" o null',
        pt: 'deve ser {title, description}, "auto" ou null',
      }),
    },
  )
  .nullable();

/** Bytes of `text` in UTF-8 (the dashboard's forms run this schema in the browser too: no Buffer). */
function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

export const BlocksInput = z
  .union([z.literal("auto"), z.array(jsonValue()).max(STOREFRONT_MAXIMA.blocks)], {
    error: localizedError({
      en: 'must be an array, "auto" or null',
      es: 'debe ser un array, "auto" o null',
      pt: 'deve ser um array, "auto" ou null',
    }),
  })
  .refine(
    (blocks) => !Array.isArray(blocks) || utf8Length(JSON.stringify(blocks)) <= STOREFRONT_MAXIMA.blocksBytes,
    {
      error: localizedError({
        en: `must be at most ${STOREFRONT_MAXIMA.blocksBytes / 1024} KiB as JSON`,
        es: `no debe superar ${STOREFRONT_MAXIMA.blocksBytes / 1024} KiB como JSON`,
        pt: `não deve passar de ${STOREFRONT_MAXIMA.blocksBytes / 1024} KiB como JSON`,
      }),
    },
  )
  .meta({
    description: `An array (stored as sent) or "auto"; at most ${STOREFRONT_MAXIMA.blocksBytes / 1024} KiB as JSON.`,
  })
  .nullable();

export const CategoriesInput = z
  .array(
    z.strictObject({
      name: safeText({ min: 1, max: STOREFRONT_MAXIMA.categoryName }),
      position: z.int().nullable().optional(),
    }),
  )
  .max(STOREFRONT_MAXIMA.categories)
  .nullable();

/**
 * A merchant may choose the public slug (else publish makes one): docs/api.md, "Input variants and how they
 * are answered".
 */
export const SlugInput = z
  .string()
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, {
    error: localizedError({
      en: "must be lowercase letters, digits and single hyphens",
      es: "debe tener solo minúsculas, dígitos y guiones sueltos",
      pt: "deve ter apenas minúsculas, dígitos e hífens simples",
    }),
  })
  .nullable();

export const WhatsappInput = z
  .string()
  .max(16)
  .regex(/^\+[1-9]\d{7,14}$/, {
    error: localizedError({
      en: "must be an E.164 number, e.g. +5215512345678",
      es: "debe ser un número E.164, p. ej. +5215512345678",
      pt: "deve ser um número E.164, p. ex. +5215512345678",
    }),
  })
  .nullable();

/** The editable fields (docs/api.md, "Storefronts"), every one optional. */
const editableFields = {
  name: safeText({ min: 1, max: STOREFRONT_MAXIMA.name }).optional(),
  language: StorefrontLanguage.optional(),
  currency: Currency.optional(),
  businessType: BusinessType.nullable().optional(),
  branding: BrandingInput.optional(),
  schedule: ScheduleInput.optional(),
  delivery: DeliveryInput.optional(),
  pickup: z.boolean().nullable().optional(),
  dineIn: z.boolean().nullable().optional(),
  hidden: z.boolean().nullable().optional().meta({ description: "null is stored as false." }),
  biography: BiographyInput.optional(),
  blocks: BlocksInput.optional(),
  categories: CategoriesInput.optional(),
  slug: SlugInput.optional(),
};

/**
 * POST /v1/storefronts (docs/api.md, "Storefronts"): the input shape plus `whatsapp` and a `products`
 * manifest.
 */
export const CreateStorefrontInput = z
  .strictObject({
    ...editableFields,
    name: safeText({ min: 1, max: STOREFRONT_MAXIMA.name }),
    currency: Currency,
    language: StorefrontLanguage.optional().meta({ description: "Defaults to the account's language." }),
    whatsapp: WhatsappInput.optional(),
    products: z.array(ProductManifest).max(100).nullable().optional(),
  })
  .meta({ id: "CreateStorefrontInput" });
export type CreateStorefrontInput = z.infer<typeof CreateStorefrontInput>;

/**
 * PATCH /v1/storefronts/{storefrontId} (docs/api.md, "PATCH rules" 1-4). `whatsapp` and `products` come first
 * so a body that carries them is answered about them, and nothing of that body is written.
 */
export const UpdateStorefrontInput = z
  .strictObject({
    whatsapp: z
      .never({
        error: localizedError({
          en: "whatsapp is set when the storefront is created and cannot be changed with PATCH",
          es: "whatsapp se fija al crear la tienda y no se puede cambiar con PATCH",
          pt: "whatsapp é definido ao criar a loja e não pode ser alterado com PATCH",
        }),
      })
      .optional()
      .meta({
        description: "Rejected (400 `invalid_request`, even null): set at creation only. Nothing is written.",
      }),
    products: z
      .never({
        error: localizedError({
          en: "products cannot be sent in a storefront PATCH; use POST .../products",
          es: "products no se puede enviar en un PATCH de la tienda; usa POST .../products",
          pt: "products não pode ser enviado em um PATCH da loja; use POST .../products",
        }),
      })
      .optional()
      .meta({ description: "Rejected (400 `invalid_request`): use the product endpoints." }),
    ...editableFields,
  })
  .meta({ id: "UpdateStorefrontInput" });
export type UpdateStorefrontInput = z.infer<typeof UpdateStorefrontInput>;

export const StorefrontParams = z.strictObject({ storefrontId: pathId("storefront_not_found") });

// ---- Response objects (docs/api.md, "Storefronts"): every key present, null where unset.

const ScheduleDayDto = z
  .object({ open: z.string().nullable(), close: z.string().nullable(), closed: z.boolean().nullable() })
  .nullable();

export const StorefrontDto = z
  .object({
    id: z.string().meta({ description: "Prefix `stf_`." }),
    name: z.string(),
    language: StorefrontLanguage,
    currency: z.string(),
    businessType: z.string().nullable(),
    branding: z
      .object({
        logoUrl: z.string().nullable(),
        backgroundUrl: z.string().nullable(),
        theme: z
          .object({
            primary: z.string().nullable(),
            secondary: z.string().nullable(),
            tertiary: z.string().nullable(),
          })
          .nullable(),
        font: z.string().nullable(),
      })
      .nullable(),
    schedule: z
      .object({
        monday: ScheduleDayDto,
        tuesday: ScheduleDayDto,
        wednesday: ScheduleDayDto,
        thursday: ScheduleDayDto,
        friday: ScheduleDayDto,
        saturday: ScheduleDayDto,
        sunday: ScheduleDayDto,
      })
      .nullable(),
    delivery: z
      .object({
        enabled: z.boolean(),
        type: z.enum(["fixed", "distance"]).nullable(),
        fixedPrice: z.number().nullable(),
        ranges: z
          .array(z.object({ fromKm: z.number(), toKm: z.number().nullable(), price: z.number() }))
          .nullable(),
      })
      .nullable(),
    pickup: z.boolean().nullable(),
    dineIn: z.boolean().nullable(),
    whatsapp: z.string().nullable(),
    biography: z.object({ title: z.string(), description: z.string() }).nullable(),
    categories: z.array(z.object({ name: z.string(), position: z.number().int().nullable() })).nullable(),
    slug: z.string().nullable(),
    hidden: z.boolean().nullable(),
    published: z.boolean().nullable(),
    _links: z.object({ editUrl: z.string().nullable(), publicUrl: z.string().nullable() }),
    createdAt: z.string().nullable(),
    updatedAt: z.string().nullable(),
  })
  .meta({ id: "Storefront" });
export type StorefrontDto = z.infer<typeof StorefrontDto>;

export const StorefrontResponse = z.object({ storefront: StorefrontDto }).meta({ id: "StorefrontResponse" });

export const CreateStorefrontResponse = z
  .object({
    storefront: StorefrontDto,
    products: z.array(ProductDto),
    rejected: z.array(RejectedProductDto).optional().meta({ description: "Present on 207 only." }),
  })
  .meta({ id: "CreateStorefrontResponse" });

export const StorefrontList = z
  .object({ data: z.array(StorefrontDto), nextCursor: z.string().nullable() })
  .meta({ id: "StorefrontList" });

export const DeletedResponse = z
  .object({ id: z.string(), deleted: z.literal(true) })
  .meta({ id: "DeletedResponse" });

/**
 * The dashboard's storefront settings (docs/api.md, "Storefront settings"): not keys of the /v1 Storefront
 * object. `timeZone` is an IANA name (null: back to the currency's default); `paymentMethods` the names customers
 * choose from on the public page (null: cash only).
 */
export const UpdateStorefrontSettingsInput = z
  .strictObject({
    timeZone: z
      .string()
      .max(64)
      .refine((value) => canonicalTimeZone(value) !== null, {
        error: "must be an IANA time zone name, e.g. America/Mexico_City",
      })
      .nullable()
      .optional(),
    paymentMethods: z
      .array(safeText({ min: 1, max: 50 }))
      .min(1)
      .max(10)
      .refine((names) => new Set(names.map((name) => name.trim().toLowerCase())).size === names.length, {
        error: "must not name a payment method twice",
      })
      .nullable()
      .optional(),
  })
  .meta({ id: "UpdateStorefrontSettingsInput" });
export type UpdateStorefrontSettingsInput = z.infer<typeof UpdateStorefrontSettingsInput>;

/** What the dashboard shows of the settings: the zone in force and whether it is the currency's default. */
export type StorefrontSettingsDto = {
  storefrontId: string;
  timeZone: string;
  isDefaultTimeZone: boolean;
  paymentMethods: string[];
  /** Whether the payment methods are the default (cash only). */
  isDefaultPaymentMethods: boolean;
};
