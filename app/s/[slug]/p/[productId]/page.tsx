import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { type Language, translator } from "@/app/_i18n/catalogue";
import { env } from "@/server/env";
import type { OptionGroup } from "@/server/orders/options";
import { CartBar } from "../../../_components/cart-bar";
import { Price } from "../../../_components/price";
import { ProductOrderForm } from "../../../_components/product-order-form";
import { StorefrontFrame } from "../../../_components/storefront-frame";
import { loadPublishedProduct } from "../../../_lib/data";
import { productJsonLd, serializeJsonLd } from "../../../_lib/json-ld";

// Cached like the store page (docs/ui.md, "Public storefront", caching): expired by the storefront's changes.
export const dynamic = "force-static";
export const dynamicParams = true;
export const revalidate = 60;
export async function generateStaticParams(): Promise<Array<{ slug: string; productId: string }>> {
  return [];
}

type Props = { params: Promise<{ slug: string; productId: string }> };

// One row (the product with its storefront): a made-up product id is a 404 without loading the catalogue.
const load = loadPublishedProduct;

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { slug, productId } = await params;
  const found = await load(slug, productId);
  if (!found) return { title: { absolute: "404" }, robots: { index: false } };
  const { storefront, product } = found;
  const url = `${env().APP_URL}/s/${slug}/p/${product.id}`;
  const description = product.description ?? storefront.biography?.description ?? storefront.name;
  const image = product.imageUrl ?? product.thumbnailUrl ?? storefront.branding?.logoUrl;
  return {
    title: { absolute: `${product.title} · ${storefront.name}` },
    description,
    alternates: { canonical: url },
    openGraph: {
      type: "website",
      url,
      title: product.title,
      description,
      siteName: storefront.name,
      locale: storefront.language,
      ...(image ? { images: [{ url: image }] } : {}),
    },
  };
}

export default async function ProductPage({ params }: Props) {
  const { slug, productId } = await params;
  const found = await load(slug, productId);
  if (!found) notFound();
  const { storefront, product, image: resized } = found;
  const language = storefront.language as Language;
  const t = translator(language);
  const url = `${env().APP_URL}/s/${slug}/p/${product.id}`;
  const image = product.imageUrl ?? product.thumbnailUrl;
  const isSoldOut = product.stock === 0;
  return (
    <StorefrontFrame storefront={storefront} page="product">
      <header className="border-b border-border bg-surface">
        <div className="mx-auto flex max-w-3xl items-center gap-3 px-4 py-3">
          <Link href={`/s/${slug}`} className="text-sm font-medium">
            ← {t("storefront.product.back", { store: storefront.name })}
          </Link>
        </div>
      </header>
      <main className="mx-auto max-w-3xl space-y-5 px-4 pt-6 pb-28">
        {resized ? (
          // biome-ignore lint/performance/noImgElement: the WebP variants this service made (docs/ui.md).
          <img
            src={resized.src}
            srcSet={resized.srcSet}
            sizes="(min-width: 48rem) 48rem, 100vw"
            width={resized.width}
            height={resized.height}
            alt=""
            fetchPriority="high"
            className="aspect-[4/3] w-full rounded-xl object-cover sm:aspect-[16/9]"
          />
        ) : image ? (
          // biome-ignore lint/performance/noImgElement: the merchant's own image URL on any host.
          <img src={image} alt="" className="aspect-[4/3] w-full rounded-xl object-cover sm:aspect-[16/9]" />
        ) : null}
        <div className="space-y-2">
          <h1 className="text-2xl font-bold tracking-tight">{product.title}</h1>
          <Price
            price={product.price}
            salePrice={product.salePrice}
            language={language}
            currency={storefront.currency}
            t={t}
            size="lg"
          />
          {isSoldOut ? (
            <p className="font-medium text-danger">{t("storefront.soldOut")}</p>
          ) : product.stock !== null && product.stock <= 5 ? (
            <p className="text-sm text-warning">{t("storefront.onlyLeft", { count: product.stock })}</p>
          ) : null}
          {product.description ? <p className="whitespace-pre-line text-fg">{product.description}</p> : null}
        </div>
        <noscript>
          <p className="rounded-md border-l-4 border-primary bg-primary-soft px-3 py-2 text-sm">
            {t("storefront.noscript")}
          </p>
        </noscript>
        {isSoldOut ? null : (
          <ProductOrderForm
            slug={slug}
            currency={storefront.currency}
            product={{
              id: product.id,
              title: product.title,
              unitPrice: product.salePrice ?? product.price,
              stock: product.stock,
              groups: (product.extraProductsCategory ?? []) as OptionGroup[],
            }}
          />
        )}
      </main>
      <CartBar slug={slug} currency={storefront.currency} />
      <script
        type="application/ld+json"
        // biome-ignore lint/security/noDangerouslySetInnerHtml: serializeJsonLd escapes <, > and & (app/s/_lib/json-ld.ts).
        dangerouslySetInnerHTML={{ __html: serializeJsonLd(productJsonLd(storefront, product, url)) }}
      />
    </StorefrontFrame>
  );
}
