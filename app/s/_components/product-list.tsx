import type { ResponsiveImage } from "@/server/files/service";
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

/** Cards above the fold load at once; the rest when scrolled near (docs/ui.md, "Public storefront"). */
const EAGER_CARDS = 4;

/**
 * The card's image: the resized WebP at 160 px, and 480 px for dense screens (the card shows 88 CSS px), unless
 * the merchant set a thumbnail of their own; else the URLs as they are.
 */
function cardImage(product: ProductDto, image: ResponsiveImage | undefined): Pick<CardProduct, "m" | "x"> {
  const [small, larger] = image?.variants ?? [];
  if (small && (product.thumbnailUrl === null || product.thumbnailUrl === small.url))
    return { m: small.url, ...(larger ? { x: larger.url } : {}) };
  const url = product.thumbnailUrl ?? product.imageUrl;
  return url ? { m: url } : {};
}

function toCard(product: ProductDto, image: ResponsiveImage | undefined, isEager: boolean): CardProduct {
  return {
    i: product.id,
    t: product.title,
    p: product.price,
    ...(product.description ? { d: product.description } : {}),
    ...(product.salePrice !== null ? { s: product.salePrice } : {}),
    ...cardImage(product, image),
    ...(isEager ? { e: true as const } : {}),
    ...(product.stock !== null ? { k: product.stock } : {}),
    ...(hasOptions(product) ? { o: true as const } : {}),
  };
}

export function ProductSections({
  storefront,
  sections,
  images = {},
}: {
  storefront: StorefrontDto;
  sections: ProductSection[];
  images?: Record<string, ResponsiveImage>;
}) {
  let eager = EAGER_CARDS;
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
            products={section.products.map((product) => toCard(product, images[product.id], eager-- > 0))}
          />
        </section>
      ))}
    </>
  );
}
