import Link from "next/link";
import { type Language, translator } from "@/app/_i18n/catalogue";
import type { ProductDto } from "@/server/products/schema";
import type { StorefrontDto } from "@/server/storefronts/schema";
import { AddButton } from "./add-button";
import { Price } from "./price";

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

function ProductCard({ storefront, product }: { storefront: StorefrontDto; product: ProductDto }) {
  const language = storefront.language as Language;
  const t = translator(language);
  const slug = storefront.slug ?? "";
  const href = `/s/${slug}/p/${product.id}`;
  const image = product.thumbnailUrl ?? product.imageUrl;
  const isSoldOut = product.stock === 0;
  return (
    <li className="flex gap-3 rounded-lg border border-border bg-surface p-3" data-testid="product">
      {image ? (
        // biome-ignore lint/performance/noImgElement: the merchant's own image URL on any host.
        <img
          src={image}
          alt=""
          loading="lazy"
          width={88}
          height={88}
          className="size-22 shrink-0 rounded-md object-cover"
        />
      ) : null}
      <div className="flex min-w-0 flex-1 flex-col gap-1">
        <h3 className="font-semibold leading-snug">
          <Link href={href} prefetch={false} className="text-fg no-underline hover:underline">
            {product.title}
          </Link>
        </h3>
        {product.description ? (
          <p className="line-clamp-2 text-sm text-muted">{product.description}</p>
        ) : null}
        <div className="mt-auto flex flex-wrap items-center justify-between gap-2 pt-1">
          <Price
            price={product.price}
            salePrice={product.salePrice}
            language={language}
            currency={storefront.currency}
            t={t}
          />
          {isSoldOut ? (
            <span className="rounded-full bg-surface-muted px-3 py-1 text-sm font-medium text-muted">
              {t("storefront.soldOut")}
            </span>
          ) : hasOptions(product) ? (
            <Link
              href={href}
              prefetch={false}
              aria-label={t("storefront.chooseNamed", { title: product.title })}
              className="inline-flex h-8 items-center rounded-md border border-border-strong bg-surface px-3 text-sm font-medium text-fg no-underline hover:bg-surface-muted"
            >
              {t("storefront.choose")}
            </Link>
          ) : (
            <AddButton
              slug={slug}
              productId={product.id}
              title={product.title}
              unitPrice={product.salePrice ?? product.price}
            />
          )}
        </div>
      </div>
    </li>
  );
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
          <ul className="grid gap-3 md:grid-cols-2">
            {section.products.map((product) => (
              <ProductCard key={product.id} storefront={storefront} product={product} />
            ))}
          </ul>
        </section>
      ))}
    </>
  );
}
