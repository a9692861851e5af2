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

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("editor.newTitle") };
}

/** /dashboard/storefronts/{id}/products/new: the product editor, empty (docs/ui.md, "Products"). */
export default async function NewProductPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const [{ account }, t, caller] = await Promise.all([requireSignedInAccount(), getT(), getServerCaller()]);
  const catalog = await orNotFound(() => caller.products.catalog({ storefrontId: id }));
  const base = `/dashboard/storefronts/${id}/products`;
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current={`${base}/new`}
    >
      <nav aria-label={t("editor.backToProducts")} className="mb-2 text-sm">
        <Link href={base} className="text-primary underline underline-offset-2">
          {t("products.pageTitle", { storefront: catalog.storefront.name })}
        </Link>
      </nav>
      <PageHeader title={t("editor.newTitle")} description={t("editor.description")} />
      <ProductEditor
        storefrontId={id}
        currency={catalog.storefront.currency}
        categories={catalog.categories}
        product={null}
      />
    </Shell>
  );
}
