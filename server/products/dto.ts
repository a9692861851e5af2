import type { ProductDto } from "./schema";
import type { products } from "./tables";

export type ProductRow = typeof products.$inferSelect;

type StoredExtraCategory = {
  title: string;
  obligatory: boolean;
  multipleOption: boolean;
  maxOptions: number;
  minOptions: number;
  extraProducts?: Array<{ title: string; price: number; available: boolean; stock?: number | null }> | null;
};

/**
 * The one mapping from a row to the Product object: every manifest field, null where unset (docs/api.md,
 * "Products").
 */
export function toProductDto(row: ProductRow): ProductDto {
  const extras = row.extraProductsCategory as StoredExtraCategory[] | null;
  return {
    id: row.id,
    title: row.title,
    price: row.price,
    description: row.description,
    salePrice: row.salePrice,
    category: row.category,
    subcategory: row.subcategory,
    imageUrl: row.imageUrl,
    thumbnailUrl: row.thumbnailUrl,
    sku: row.sku,
    slug: row.slug,
    position: row.position,
    cartProduct: row.cartProduct,
    hide: row.hide,
    stock: row.stock,
    tags: row.tags,
    extraProductsCategory: extras
      ? extras.map((category) => ({
          title: category.title,
          obligatory: category.obligatory,
          multipleOption: category.multipleOption,
          maxOptions: category.maxOptions,
          minOptions: category.minOptions,
          extraProducts: category.extraProducts
            ? category.extraProducts.map((option) => ({
                title: option.title,
                price: option.price,
                available: option.available,
                stock: option.stock ?? null,
              }))
            : null,
        }))
      : null,
    imageProcessingPending: row.imageProcessingPending,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
