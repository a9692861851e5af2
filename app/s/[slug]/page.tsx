import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { type Language, translator } from "@/app/_i18n/catalogue";
import { env } from "@/server/env";
import { CartBar } from "../_components/cart-bar";
import { OpeningHours } from "../_components/opening-hours";
import { ProductSections, sectionsOf } from "../_components/product-list";
import { StoreHeader } from "../_components/store-header";
import { StorefrontFrame } from "../_components/storefront-frame";
import { loadPublishedStorefront } from "../_lib/data";
import { serializeJsonLd, storeJsonLd } from "../_lib/json-ld";

// Rendered once per slug and kept (docs/ui.md, "Public storefront", caching): nothing here reads the request,
// the storefront's changes expire it, and `revalidate` (PAGE_REVALIDATE_SECONDS, page-cache.ts) is the fallback
// across processes.
export const dynamic = "force-static";
export const dynamicParams = true;
export const revalidate = 60;
export async function generateStaticParams(): Promise<Array<{ slug: string }>> {
  return [];
}

type Props = { params: Promise<{ slug: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { slug } = await params;
  const published = await loadPublishedStorefront(slug);
  if (!published) return { title: { absolute: "404" }, robots: { index: false } };
  const { storefront } = published;
  const url = `${env().APP_URL}/s/${slug}`;
  const description = storefront.biography?.description ?? storefront.name;
  const image = storefront.branding?.logoUrl ?? storefront.branding?.backgroundUrl;
  return {
    title: { absolute: storefront.name },
    description,
    alternates: { canonical: url },
    openGraph: {
      type: "website",
      url,
      title: storefront.name,
      description,
      siteName: storefront.name,
      locale: storefront.language,
      ...(image ? { images: [{ url: image }] } : {}),
    },
  };
}

export default async function StorefrontPage({ params }: Props) {
  const { slug } = await params;
  const published = await loadPublishedStorefront(slug);
  if (!published) notFound();
  const { storefront, products, settings } = published;
  const t = translator(storefront.language as Language);
  const sections = sectionsOf(storefront, products, t("storefront.otherProducts"));
  const jsonLd = storeJsonLd(storefront, `${env().APP_URL}/s/${slug}`);
  return (
    <StorefrontFrame storefront={storefront} page="store">
      <a
        href="#products"
        className="sr-only z-30 rounded-md bg-surface px-3 py-2 focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
      >
        {t("common.skipToContent")}
      </a>
      <StoreHeader
        storefront={storefront}
        timeZone={settings.timeZone}
        brandingImages={published.brandingImages}
      />
      {sections.length > 1 ? (
        <nav
          aria-label={t("storefront.categories")}
          className="sticky top-0 z-10 border-y border-border bg-bg/95 backdrop-blur"
        >
          <ul className="mx-auto flex max-w-5xl gap-2 overflow-x-auto px-4 py-2">
            {sections.map((section) => (
              <li key={section.id} className="shrink-0">
                <a
                  href={`#${section.id}`}
                  className="inline-block rounded-full border border-border bg-surface px-3 py-1 text-sm text-fg no-underline hover:border-border-strong"
                >
                  {section.name}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      <main id="products" tabIndex={-1} className="mx-auto max-w-5xl space-y-8 px-4 pt-6 pb-28">
        <noscript>
          <p className="rounded-md border-l-4 border-primary bg-primary-soft px-3 py-2 text-sm">
            {t("storefront.noscript")}
          </p>
        </noscript>
        {sections.length === 0 ? <p className="text-muted">{t("storefront.noProducts")}</p> : null}
        <ProductSections storefront={storefront} sections={sections} images={published.images} />
        <OpeningHours storefront={storefront} timeZone={settings.timeZone} />
      </main>
      <footer className="border-t border-border bg-surface px-4 py-6 text-center text-sm text-muted">
        {storefront.name}
      </footer>
      <CartBar slug={slug} currency={storefront.currency} />
      <script
        type="application/ld+json"
        // biome-ignore lint/security/noDangerouslySetInnerHtml: serializeJsonLd escapes <, > and & (app/s/_lib/json-ld.ts).
        dangerouslySetInnerHTML={{ __html: serializeJsonLd(jsonLd) }}
      />
    </StorefrontFrame>
  );
}
