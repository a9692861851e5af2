import type { Metadata } from "next";
import Form from "next/form";
import Link from "next/link";
import { cache } from "react";
import { buttonClasses } from "@/app/_components/ui/button";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { Input } from "@/app/_components/ui/input";
import { Label } from "@/app/_components/ui/label";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getLanguage, getT } from "@/app/_i18n/server";
import { getServerCaller } from "@/app/_trpc/server";
import { CursorPagination } from "@/app/dashboard/_components/cursor-pagination";
import { orNotFound, queryParam } from "@/app/dashboard/_lib/catalog-server";
import { Shell } from "../../../_components/shell";
import { requireSignedInAccount } from "../../../_lib/session";
import { ProductsTable } from "./_components/products-table";

export const dynamic = "force-dynamic";

/** Rows per page of the products table. */
const PAGE_SIZE = 50;

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

/** The storefront's catalog summary, read once per request (the metadata and the page both need it). */
const loadCatalog = cache(async (storefrontId: string) =>
  (await getServerCaller()).products.catalog({ storefrontId }),
);

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  const t = await getT();
  const catalog = await loadCatalog(id).catch(() => null);
  return {
    title: catalog ? t("products.pageTitle", { storefront: catalog.storefront.name }) : t("products.title"),
  };
}

/**
 * /dashboard/storefronts/{id}/products (docs/ui.md, "Products"): the storefront's products by position, searched
 * by title or SKU and filtered by category, a page at a time. The view lives in the URL (`q`, `category`,
 * `cursor`), so a reload or a shared link shows the same rows. Rendered on the server; the table's inline edits are
 * the client part.
 */
export default async function ProductsPage({ params, searchParams }: Props) {
  const [{ id }, query] = await Promise.all([params, searchParams]);
  const q = queryParam(query.q);
  const category = queryParam(query.category);
  const cursor = queryParam(query.cursor);
  const [{ account }, t, language, caller] = await Promise.all([
    requireSignedInAccount(),
    getT(),
    getLanguage(),
    getServerCaller(),
  ]);
  const [catalog, page] = await orNotFound(() =>
    Promise.all([
      loadCatalog(id),
      caller.products.table({ storefrontId: id, q, category, cursor, limit: PAGE_SIZE }),
    ]),
  );
  const base = `/dashboard/storefronts/${id}/products`;
  const keep = (extra: Record<string, string>) => {
    const search = new URLSearchParams({ ...(q ? { q } : {}), ...(category ? { category } : {}), ...extra });
    const text = search.toString();
    return text ? `${base}?${text}` : base;
  };
  const number = new Intl.NumberFormat(language);
  const { usage } = catalog;
  const isFull = usage.used >= usage.limit;
  const isFiltered = Boolean(q || category);
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current={base}
    >
      <nav aria-label={t("products.backToStorefront")} className="mb-2 text-sm">
        <Link href={`/dashboard/storefronts/${id}`} className="text-primary underline underline-offset-2">
          {catalog.storefront.name}
        </Link>
      </nav>
      <PageHeader
        title={t("products.pageTitle", { storefront: catalog.storefront.name })}
        description={t("products.description", { storefront: catalog.storefront.name })}
        actions={
          <>
            <Link href={`${base}/import`} className={buttonClasses("secondary")}>
              {t("products.import")}
            </Link>
            <Link href={`${base}/new`} className={buttonClasses("primary")}>
              {t("products.add")}
            </Link>
          </>
        }
      />
      <section
        aria-labelledby="usage-heading"
        className="mb-6 rounded-lg border border-border bg-surface p-4"
      >
        <p id="usage-heading" className="text-sm font-medium text-fg" data-testid="product-usage">
          {t("products.usage", {
            used: number.format(usage.used),
            limit: number.format(usage.limit),
            plan: usage.plan,
          })}
        </p>
        <div className="mt-2 h-2 overflow-hidden rounded-full bg-surface-muted" aria-hidden="true">
          <div
            className={isFull ? "h-full bg-danger" : "h-full bg-primary"}
            style={{ width: `${Math.min(100, (usage.used / Math.max(usage.limit, 1)) * 100)}%` }}
          />
        </div>
        <p className="mt-2 text-sm text-muted">
          {isFull
            ? t("products.usageFull")
            : t("products.usageHint", { count: number.format(catalog.productCount) })}
        </p>
      </section>
      <Form action={base} className="mb-4 flex flex-col gap-3 sm:flex-row sm:items-end" role="search">
        <div className="min-w-0 flex-1 space-y-1.5">
          <Label htmlFor="products-q">{t("products.search")}</Label>
          <Input
            id="products-q"
            name="q"
            type="search"
            defaultValue={q ?? ""}
            placeholder={t("products.searchPlaceholder")}
          />
        </div>
        <div className="space-y-1.5 sm:w-56">
          <Label htmlFor="products-category">{t("products.category")}</Label>
          <select
            id="products-category"
            name="category"
            defaultValue={category ?? ""}
            className="h-10 w-full rounded-md border border-border-strong bg-surface px-3 text-base text-fg sm:text-sm"
          >
            <option value="">{t("products.allCategories")}</option>
            {catalog.categories.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div className="flex gap-2">
          <button type="submit" className={buttonClasses("secondary")}>
            {t("products.apply")}
          </button>
          {isFiltered ? (
            <Link href={base} className={buttonClasses("ghost")}>
              {t("products.clear")}
            </Link>
          ) : null}
        </div>
      </Form>
      {page.data.length === 0 ? (
        <EmptyState
          title={isFiltered ? t("products.noMatch") : t("products.empty")}
          description={isFiltered ? t("products.noMatchBody") : t("products.emptyBody")}
          action={
            isFiltered ? undefined : (
              <Link href={`${base}/new`} className={buttonClasses("primary")}>
                {t("products.add")}
              </Link>
            )
          }
        />
      ) : (
        <ProductsTable
          // A new view (search, category, page) is a new table: its rows are not the edited ones of the last view.
          key={`${q ?? ""}|${category ?? ""}|${cursor ?? ""}`}
          storefrontId={id}
          currency={catalog.storefront.currency}
          rows={page.data.map((p) => ({
            id: p.id,
            title: p.title,
            sku: p.sku,
            category: p.category,
            position: p.position,
            price: p.price,
            salePrice: p.salePrice,
            stock: p.stock,
            hide: p.hide,
            thumbnailUrl: p.thumbnailUrl ?? p.imageUrl,
            imageProcessingPending: p.imageProcessingPending,
          }))}
        />
      )}
      <CursorPagination
        label={t("products.pagination")}
        firstLabel={t("products.firstPage")}
        nextLabel={t("products.nextPage")}
        firstHref={cursor ? keep({}) : null}
        nextHref={page.nextCursor ? keep({ cursor: page.nextCursor }) : null}
      />
    </Shell>
  );
}
