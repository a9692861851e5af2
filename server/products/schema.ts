import { z } from "zod";
import { ErrorEnvelope } from "@/server/errors";
import { amount, httpUrl, safeText } from "@/server/fields";
import { ListQuery } from "@/server/lib/pagination";
import { localized, pathId, text } from "@/server/validation";

/**
 * The maxima of a product's texts and lists (docs/api.md, "Products", "Maxima"): with the plan's product limits
 * they bound what an account stores and what a page of products answers.
 */
export const PRODUCT_MAXIMA = {
  title: 200,
  description: 5000,
  category: 100,
  sku: 100,
  slug: 200,
  tags: 50,
  tag: 50,
  optionGroups: 20,
  optionGroupTitle: 200,
  optionsPerGroup: 50,
  optionTitle: 200,
  /** maxOptions and minOptions: more than a group can hold would mean nothing. */
  optionCount: 1000,
} as const;

/** An option of an extra-products category (docs/api.md, "Products"). */
export const ExtraProductOption = z
  .strictObject({
    title: safeText({ max: PRODUCT_MAXIMA.optionTitle }),
    price: amount(),
    available: z.boolean(),
    stock: z.int().min(0).nullable().optional(),
  })
  .meta({ id: "ExtraProductOption" });

/**
 * An extra-products category (docs/api.md, "Products"). `minOptions` may not exceed `maxOptions`; both
 * are >= 0.
 */
export const ExtraProductsCategory = z
  .strictObject({
    title: safeText({ max: PRODUCT_MAXIMA.optionGroupTitle }),
    obligatory: z.boolean(),
    multipleOption: z.boolean(),
    maxOptions: z.int().min(0).max(PRODUCT_MAXIMA.optionCount),
    minOptions: z.int().min(0).max(PRODUCT_MAXIMA.optionCount),
    extraProducts: z.array(ExtraProductOption).max(PRODUCT_MAXIMA.optionsPerGroup).nullable().optional(),
  })
  .superRefine((value, ctx) => {
    if (value.minOptions > value.maxOptions) {
      ctx.addIssue({
        code: "custom",
        path: ["minOptions"],
        message: localized({
          en: "must not be greater than maxOptions",
          es: "no debe ser mayor que maxOptions",
          pt: "não deve ser maior que maxOptions",
        }),
      });
    }
  })
  .meta({ id: "ExtraProductsCategory" });

/** Every optional field of a product: shared by the manifest (create) and PATCH. */
const optionalProductFields = {
  description: safeText({ max: PRODUCT_MAXIMA.description }).nullable().optional(),
  salePrice: amount().nullable().optional().meta({ description: "Must be below `price`." }),
  category: safeText({ max: PRODUCT_MAXIMA.category }).nullable().optional(),
  subcategory: safeText({ max: PRODUCT_MAXIMA.category }).nullable().optional(),
  imageUrl: httpUrl().nullable().optional().meta({
    description: "http(s). The product answers `imageProcessingPending: true` until it is fetched.",
  }),
  thumbnailUrl: httpUrl().nullable().optional(),
  sku: safeText({ max: PRODUCT_MAXIMA.sku }).nullable().optional(),
  slug: safeText({ max: PRODUCT_MAXIMA.slug }).nullable().optional(),
  position: z.int32().nullable().optional(),
  cartProduct: z.boolean().nullable().optional(),
  hide: z.boolean().nullable().optional(),
  stock: z.int32().min(0).nullable().optional(),
  tags: z
    .array(safeText({ max: PRODUCT_MAXIMA.tag }))
    .max(PRODUCT_MAXIMA.tags)
    .nullable()
    .optional(),
  extraProductsCategory: z
    .array(ExtraProductsCategory)
    .max(PRODUCT_MAXIMA.optionGroups)
    .nullable()
    .optional(),
};

function checkSalePrice(value: { price?: number; salePrice?: number | null }, ctx: z.RefinementCtx): void {
  if (value.price !== undefined && value.salePrice != null && value.salePrice >= value.price) {
    ctx.addIssue({
      code: "custom",
      path: ["salePrice"],
      message: localized({
        en: "must be below price",
        es: "debe ser menor que price",
        pt: "deve ser menor que price",
      }),
    });
  }
}

/** The input `ProductManifest` (docs/api.md, "Products"): `title` and `price` required. */
export const ProductManifest = z
  .strictObject({
    title: safeText({ min: 1, max: PRODUCT_MAXIMA.title }),
    price: amount(),
    ...optionalProductFields,
  })
  .superRefine(checkSalePrice)
  .meta({ id: "ProductManifest" });
export type ProductManifest = z.infer<typeof ProductManifest>;

/**
 * PATCH of a product: every field changeable (docs/api.md, "Products"), every field optional.
 * `salePrice < price` is checked again against the stored values when only one of them is sent.
 */
export const UpdateProductInput = z
  .strictObject({
    title: safeText({ min: 1, max: PRODUCT_MAXIMA.title }).optional(),
    price: amount().optional(),
    ...optionalProductFields,
  })
  .superRefine(checkSalePrice)
  .meta({ id: "UpdateProductInput" });
export type UpdateProductInput = z.infer<typeof UpdateProductInput>;

/** POST /v1/storefronts/{storefrontId}/products/batch: up to 100 products, created in order. */
export const BatchCreateProductsInput = z
  .strictObject({ products: z.array(ProductManifest).min(1).max(100) })
  .meta({ id: "BatchCreateProductsInput" });
export type BatchCreateProductsInput = z.infer<typeof BatchCreateProductsInput>;

export const ExtraProductOptionDto = z.object({
  title: z.string(),
  price: z.number(),
  available: z.boolean(),
  stock: z.number().int().nullable(),
});

export const ExtraProductsCategoryDto = z.object({
  title: z.string(),
  obligatory: z.boolean(),
  multipleOption: z.boolean(),
  maxOptions: z.number().int(),
  minOptions: z.number().int(),
  extraProducts: z.array(ExtraProductOptionDto).nullable(),
});

/**
 * The product response (docs/api.md, "Products"): id, every manifest field (null where unset),
 * imageProcessingPending, timestamps.
 */
export const ProductDto = z
  .object({
    id: z.string().meta({ description: "Prefix `prd_`." }),
    title: z.string(),
    price: z.number(),
    description: z.string().nullable(),
    salePrice: z.number().nullable(),
    category: z.string().nullable(),
    subcategory: z.string().nullable(),
    imageUrl: z.string().nullable(),
    thumbnailUrl: z.string().nullable(),
    sku: z.string().nullable(),
    slug: z.string().nullable(),
    position: z.number().int().nullable(),
    cartProduct: z.boolean().nullable(),
    hide: z.boolean().nullable(),
    stock: z.number().int().nullable(),
    tags: z.array(z.string()).nullable(),
    extraProductsCategory: z.array(ExtraProductsCategoryDto).nullable(),
    imageProcessingPending: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "Product" });
export type ProductDto = z.infer<typeof ProductDto>;

export const ProductResponse = z.object({ product: ProductDto }).meta({ id: "ProductResponse" });

/** A product the plan limit kept out (defined in the core, server/errors.ts, for the doors' one renderer). */
export type { RejectedProduct } from "@/server/errors";

/** REST's rejected product (docs/api.md, "Plan limits"): its index and the envelope's error object. */
export const RejectedProductDto = z
  .object({
    index: z.number().int(),
    error: ErrorEnvelope.shape.error.meta({
      description: "The envelope's error object: `products_over_limit`.",
    }),
  })
  .meta({ id: "RejectedProduct" });

export const BatchCreateProductsResponse = z
  .object({ products: z.array(ProductDto), rejected: z.array(RejectedProductDto).optional() })
  .meta({ id: "BatchCreateProductsResponse" });

export const ProductList = z
  .object({ data: z.array(ProductDto), nextCursor: z.string().nullable() })
  .meta({ id: "ProductList" });

export const ProductParams = z.strictObject({
  storefrontId: pathId("storefront_not_found"),
  productId: pathId("product_not_found"),
});

/**
 * The dashboard's products table (docs/ui.md, "Products"): a storefront's products by `position` (unset last, then
 * by id), optionally those whose title or SKU contains `q` (any case) and those of one `category`.
 */
export const ProductTableQuery = ListQuery.extend({
  storefrontId: pathId("storefront_not_found"),
  q: text({ max: 200 }).trim().optional(),
  category: text({ max: 200 }).optional(),
});
export type ProductTableQuery = z.infer<typeof ProductTableQuery>;

/** What the products page shows above its table: the storefront, its categories, and the plan's product usage. */
export type ProductCatalogSummary = {
  storefront: { id: string; name: string; currency: string; language: string };
  /** The storefront's categories in their order, then categories named only on products, alphabetically. */
  categories: string[];
  /** Products of this storefront. */
  productCount: number;
  /** Products of the whole account against the plan's limit (the 2,000 drafts before the paywall). */
  usage: { used: number; limit: number; plan: string };
};
