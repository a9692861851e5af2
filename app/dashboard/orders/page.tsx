import type { Metadata } from "next";
import Form from "next/form";
import Link from "next/link";
import { buttonClasses } from "@/app/_components/ui/button";
import { Label } from "@/app/_components/ui/label";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getT } from "@/app/_i18n/server";
import { getServerCaller } from "@/app/_trpc/server";
import { CursorPagination } from "@/app/dashboard/_components/cursor-pagination";
import { orNotFound, queryParam } from "@/app/dashboard/_lib/catalog-server";
import { ORDER_STATUSES, type OrderStatus, type PaymentStatus } from "@/server/orders/schema";
import { Shell } from "../_components/shell";
import { requireSignedInAccount } from "../_lib/session";
import { OrdersList } from "./_components/orders-list";

export const dynamic = "force-dynamic";

const PAGE_SIZE = 25;
const SELECT =
  "h-10 w-full rounded-md border border-border-strong bg-surface px-3 text-base text-fg sm:text-sm";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("orders.title") };
}

function isStatus(value: string | undefined): value is OrderStatus {
  return (ORDER_STATUSES as readonly string[]).includes(value ?? "");
}

/**
 * /dashboard/orders (docs/ui.md, "Orders"): the account's orders across its storefronts, newest first, filtered by
 * storefront, status and payment (kept in the URL). The first page is rendered on the server and refreshed every
 * 5 seconds in the browser, so new orders appear without a reload.
 */
export default async function OrdersPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const query = await searchParams;
  const storefrontId = queryParam(query.storefront);
  const statusParam = queryParam(query.status);
  const status = isStatus(statusParam) ? statusParam : undefined;
  const paymentParam = queryParam(query.payment);
  const paymentStatus: PaymentStatus | undefined =
    paymentParam === "paid" || paymentParam === "pending" ? paymentParam : undefined;
  const cursor = queryParam(query.cursor);
  const [{ account }, t, caller] = await Promise.all([requireSignedInAccount(), getT(), getServerCaller()]);
  const filters = { storefrontId, status, paymentStatus, limit: PAGE_SIZE };
  const [storefronts, page] = await orNotFound(() =>
    Promise.all([caller.orders.storefronts({ limit: 100 }), caller.orders.list({ ...filters, cursor })]),
  );
  const isFiltered = Boolean(storefrontId || status || paymentStatus);
  const keep = (extra: Record<string, string>) => {
    const search = new URLSearchParams({
      ...(storefrontId ? { storefront: storefrontId } : {}),
      ...(status ? { status } : {}),
      ...(paymentStatus ? { payment: paymentStatus } : {}),
      ...extra,
    }).toString();
    return search ? `/dashboard/orders?${search}` : "/dashboard/orders";
  };
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current="/dashboard/orders"
    >
      <PageHeader title={t("orders.title")} description={t("orders.description")} />
      <Form
        action="/dashboard/orders"
        className="mb-4 grid gap-3 sm:grid-cols-[1fr_1fr_1fr_auto] sm:items-end"
      >
        <div className="space-y-1.5">
          <Label htmlFor="orders-storefront">{t("orders.storefront")}</Label>
          <select
            id="orders-storefront"
            name="storefront"
            defaultValue={storefrontId ?? ""}
            className={SELECT}
          >
            <option value="">{t("orders.allStorefronts")}</option>
            {storefronts.data.map((storefront) => (
              <option key={storefront.id} value={storefront.id}>
                {storefront.name}
              </option>
            ))}
          </select>
        </div>
        <div className="space-y-1.5">
          <Label htmlFor="orders-status">{t("orders.status")}</Label>
          <select id="orders-status" name="status" defaultValue={status ?? ""} className={SELECT}>
            <option value="">{t("orders.allStatuses")}</option>
            {ORDER_STATUSES.map((value) => (
              <option key={value} value={value}>
                {t(`orders.status.${value}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="space-y-1.5">
          <Label htmlFor="orders-payment">{t("orders.payment")}</Label>
          <select id="orders-payment" name="payment" defaultValue={paymentStatus ?? ""} className={SELECT}>
            <option value="">{t("orders.allPayments")}</option>
            <option value="pending">{t("orders.payment.pending")}</option>
            <option value="paid">{t("orders.payment.paid")}</option>
          </select>
        </div>
        <div className="flex gap-2">
          <button type="submit" className={buttonClasses("secondary")}>
            {t("orders.apply")}
          </button>
          {isFiltered ? (
            <Link href="/dashboard/orders" className={buttonClasses("ghost")}>
              {t("orders.clear")}
            </Link>
          ) : null}
        </div>
      </Form>
      <OrdersList
        filters={filters}
        cursor={cursor ?? null}
        initialPage={page}
        storefronts={Object.fromEntries(storefronts.data.map((s) => [s.id, s.name]))}
        isFiltered={isFiltered}
      />
      <CursorPagination
        label={t("orders.pagination")}
        firstLabel={t("orders.firstPage")}
        nextLabel={t("orders.nextPage")}
        firstHref={cursor ? keep({}) : null}
        nextHref={page.nextCursor ? keep({ cursor: page.nextCursor }) : null}
      />
    </Shell>
  );
}
