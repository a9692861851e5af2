import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getT } from "@/app/_i18n/server";
import { getServerCaller } from "@/app/_trpc/server";
import { orNotFound } from "@/app/dashboard/_lib/catalog-server";
import { Shell } from "../../../../_components/shell";
import { requireSignedInAccount } from "../../../../_lib/session";
import { ProductEditor } from "../_components/product-editor";

export const dynamic = "force-dynamic";

type Props = {
  params: Promise<{ id: string; productId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id, productId } = await params;
  const t = await getT();
  const caller = await getServerCaller();
  const product = await caller.products.get({ storefrontId: id, productId }).catch(() => null);
  return { title: product ? t("editor.editTitle", { title: product.title }) : t("products.title") };
}

/** /dashboard/storefronts/{id}/products/{productId}: the product editor (docs/ui.md, "Products"). */
export default async function EditProductPage({ params, searchParams }: Props) {
  const [{ id, productId }, query] = await Promise.all([params, searchParams]);
  const [{ account }, t, caller] = await Promise.all([requireSignedInAccount(), getT(), getServerCaller()]);
  const [catalog, product] = await orNotFound(() =>
    Promise.all([
      caller.products.catalog({ storefrontId: id }),
      caller.products.get({ storefrontId: id, productId }),
    ]),
  );
  const base = `/dashboard/storefronts/${id}/products`;
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current={`${base}/${productId}`}
    >
      <nav aria-label={t("editor.backToProducts")} className="mb-2 text-sm">
        <Link href={base} className="text-primary underline underline-offset-2">
          {t("products.pageTitle", { storefront: catalog.storefront.name })}
        </Link>
      </nav>
      <PageHeader
        title={t("editor.editTitle", { title: product.title })}
        description={t("editor.description")}
      />
      <ProductEditor
        storefrontId={id}
        currency={catalog.storefront.currency}
        categories={catalog.categories}
        product={product}
        justCreated={query.created === "1"}
      />
    </Shell>
  );
}
