import type { ProductDto } from "@/server/products/schema";
import type { StorefrontDto } from "@/server/storefronts/schema";
import { type CardProduct, ProductGrid } from "./product-grid";

export type ProductSection = { id: string; name: string; products: ProductDto[] };

/**
 * The storefront's products by category (docs/ui.md, "Public storefront"): its categories in position order
 * (unset last), each with its products in the order the service gives; categories named on products but not
 * in the storefront's list come after them, then products without a category. Empty categories are left out.
 */
export function sectionsOf(
  storefront: StorefrontDto,
  products: ProductDto[],
  otherName: string,
): ProductSection[] {
  const ordered = (storefront.categories ?? [])
    .map((category, index) => ({ ...category, index }))
    .sort(
      (a, b) =>
        (a.position ?? Number.MAX_SAFE_INTEGER) - (b.position ?? Number.MAX_SAFE_INTEGER) ||
        a.index - b.index,
    )
    .map((category) => category.name);
  const names = [...new Set(ordered)];
  const orphans: string[] = [];
  for (const product of products) {
    if (product.category && !names.includes(product.category) && !orphans.includes(product.category)) {
      orphans.push(product.category);
    }
  }
  const sections = [...names, ...orphans].map((name, index) => ({
    id: `c${index + 1}`,
    name,
    products: products.filter((product) => product.category === name),
  }));
  sections.push({ id: "more", name: otherName, products: products.filter((product) => !product.category) });
  return sections.filter((section) => section.products.length > 0);
}

function hasOptions(product: ProductDto): boolean {
  return (product.extraProductsCategory ?? []).some((group) => (group.extraProducts?.length ?? 0) > 0);
}

function toCard(product: ProductDto): CardProduct {
  const image = product.thumbnailUrl ?? product.imageUrl;
  return {
    i: product.id,
    t: product.title,
    p: product.price,
    ...(product.description ? { d: product.description } : {}),
    ...(product.salePrice !== null ? { s: product.salePrice } : {}),
    ...(image ? { m: image } : {}),
    ...(product.stock !== null ? { k: product.stock } : {}),
    ...(hasOptions(product) ? { o: true as const } : {}),
  };
}

export function ProductSections({
  storefront,
  sections,
}: {
  storefront: StorefrontDto;
  sections: ProductSection[];
}) {
  return (
    <>
      {sections.map((section) => (
        <section
          key={section.id}
          id={section.id}
          aria-labelledby={`${section.id}-title`}
          className="scroll-mt-16"
        >
          <h2 id={`${section.id}-title`} className="mb-3 text-xl font-semibold">
            {section.name}
          </h2>
          <ProductGrid
            slug={storefront.slug ?? ""}
            currency={storefront.currency}
            products={section.products.map(toCard)}
          />
        </section>
      ))}
    </>
  );
}
