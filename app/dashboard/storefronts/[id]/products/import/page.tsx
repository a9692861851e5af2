import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getLanguage, getT } from "@/app/_i18n/server";
import { getServerCaller } from "@/app/_trpc/server";
import { orNotFound } from "@/app/dashboard/_lib/catalog-server";
import { Shell } from "../../../../_components/shell";
import { requireSignedInAccount } from "../../../../_lib/session";
import { ImportForm } from "../_components/import-form";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("import.title") };
}

/** /dashboard/storefronts/{id}/products/import: bulk import through the batch operation (docs/ui.md, "Products"). */
export default async function ImportProductsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const [{ account }, t, language, caller] = await Promise.all([
    requireSignedInAccount(),
    getT(),
    getLanguage(),
    getServerCaller(),
  ]);
  const catalog = await orNotFound(() => caller.products.catalog({ storefrontId: id }));
  const base = `/dashboard/storefronts/${id}/products`;
  const number = new Intl.NumberFormat(language);
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current={`${base}/import`}
    >
      <nav aria-label={t("editor.backToProducts")} className="mb-2 text-sm">
        <Link href={base} className="text-primary underline underline-offset-2">
          {t("products.pageTitle", { storefront: catalog.storefront.name })}
        </Link>
      </nav>
      <PageHeader
        title={t("import.title")}
        description={t("import.description", { storefront: catalog.storefront.name })}
      />
      <p className="mb-4 text-sm text-muted" data-testid="product-usage">
        {t("products.usage", {
          used: number.format(catalog.usage.used),
          limit: number.format(catalog.usage.limit),
          plan: catalog.usage.plan,
        })}
      </p>
      <ImportForm storefrontId={id} />
    </Shell>
  );
}
