import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { type Language, translator } from "@/app/_i18n/catalogue";
import type { OptionGroup } from "@/server/orders/options";
import { offeredFulfillments } from "@/server/orders/pricing";
import { type CatalogProduct, Checkout } from "../../_components/checkout";
import { StorefrontFrame } from "../../_components/storefront-frame";
import { loadPublishedStorefront } from "../../_lib/data";

// Cached like the store page (docs/ui.md, "Public storefront", caching): the cart itself lives in the browser.
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
  const t = translator(published.storefront.language as Language);
  return {
    title: { absolute: `${t("storefront.checkout.title")} · ${published.storefront.name}` },
    robots: { index: false },
  };
}

export default async function CheckoutPage({ params }: Props) {
  const { slug } = await params;
  const published = await loadPublishedStorefront(slug);
  if (!published) notFound();
  const { storefront, products, settings } = published;
  const t = translator(storefront.language as Language);
  const catalog: Record<string, CatalogProduct> = {};
  for (const product of products) {
    catalog[product.id] = {
      title: product.title,
      unitPrice: product.salePrice ?? product.price,
      stock: product.stock,
      groups: (product.extraProductsCategory ?? []) as OptionGroup[],
    };
  }
  return (
    <StorefrontFrame storefront={storefront} page="checkout">
      <header className="border-b border-border bg-surface">
        <div className="mx-auto flex max-w-5xl items-center gap-3 px-4 py-3">
          <Link href={`/s/${slug}`} className="text-sm font-medium">
            ← {t("storefront.product.back", { store: storefront.name })}
          </Link>
        </div>
      </header>
      <main className="mx-auto max-w-5xl space-y-5 px-4 py-6">
        <h1 className="text-2xl font-bold tracking-tight">{t("storefront.checkout.title")}</h1>
        <noscript>
          <p className="rounded-md border-l-4 border-primary bg-primary-soft px-3 py-2 text-sm">
            {t("storefront.noscript")}
          </p>
        </noscript>
        <Checkout
          slug={slug}
          currency={storefront.currency}
          whatsapp={storefront.whatsapp}
          catalog={catalog}
          delivery={storefront.delivery}
          pickup={storefront.pickup}
          dineIn={storefront.dineIn}
          offered={offeredFulfillments({
            delivery: storefront.delivery,
            pickup: storefront.pickup,
            dineIn: storefront.dineIn,
          })}
          paymentMethods={settings.paymentMethods}
          schedule={storefront.schedule}
          timeZone={settings.timeZone}
          renderedAt={Date.now()}
        />
      </main>
    </StorefrontFrame>
  );
}
