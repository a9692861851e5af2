import type { ProductDto } from "@/server/products/schema";
import type { StorefrontDto } from "@/server/storefronts/schema";

/**
 * schema.org structured data of the public pages (docs/ui.md, "Public storefront", SEO): the store page describes
 * the store; each product's page carries its Product with an Offer (price in the storefront's currency,
 * availability from its stock). Product markup belongs on the product's own page (search engines ignore it on
 * lists), and a list of 200 products would double in the page: it is sent once as HTML and once for hydration.
 */

type JsonLd = Record<string, unknown>;

/** The price customers pay: the sale price when set. Two decimals, as schema.org expects a plain number. */
function offerPrice(product: Pick<ProductDto, "price" | "salePrice">): string {
  return (product.salePrice ?? product.price).toFixed(2);
}

export function productJsonLd(
  storefront: Pick<StorefrontDto, "name" | "currency">,
  product: ProductDto,
  url: string,
): JsonLd {
  const image = product.imageUrl ?? product.thumbnailUrl;
  return {
    "@context": "https://schema.org",
    "@type": "Product",
    name: product.title,
    ...(product.description ? { description: product.description } : {}),
    ...(image ? { image } : {}),
    ...(product.sku ? { sku: product.sku } : {}),
    ...(product.category ? { category: product.category } : {}),
    url,
    offers: {
      "@type": "Offer",
      price: offerPrice(product),
      priceCurrency: storefront.currency,
      availability: product.stock === 0 ? "https://schema.org/OutOfStock" : "https://schema.org/InStock",
      url,
      seller: { "@type": "Organization", name: storefront.name },
    },
  };
}

export function storeJsonLd(
  storefront: Pick<StorefrontDto, "name" | "currency" | "branding" | "biography" | "whatsapp">,
  url: string,
): JsonLd {
  const logo = storefront.branding?.logoUrl;
  return {
    "@context": "https://schema.org",
    "@type": "Store",
    name: storefront.name,
    url,
    ...(storefront.biography?.description ? { description: storefront.biography.description } : {}),
    ...(logo ? { logo, image: logo } : {}),
    ...(storefront.whatsapp ? { telephone: storefront.whatsapp } : {}),
    currenciesAccepted: storefront.currency,
  };
}

/**
 * JSON for a `<script type="application/ld+json">`: `<`, `>` and `&` (and the two JavaScript line separators)
 * written as \\u escapes, so no text of the merchant's can close the script element (`</script>`) or open a
 * comment, whatever it holds. JSON readers decode the escapes back to the same text.
 */
export function serializeJsonLd(data: unknown): string {
  return JSON.stringify(data)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}
