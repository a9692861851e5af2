import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getLanguage, getT } from "@/app/_i18n/server";
import { getServerCaller } from "@/app/_trpc/server";
import { orNotFound } from "@/app/dashboard/_lib/catalog-server";
import { ORDER_TRANSITIONS } from "@/server/orders/lifecycle";
import { Shell } from "../../_components/shell";
import { requireSignedInAccount } from "../../_lib/session";
import { OrderDetail } from "../_components/order-detail";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ orderId: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { orderId } = await params;
  const t = await getT();
  const order = await (await getServerCaller()).orders.get({ orderId }).catch(() => null);
  return { title: order ? t("order.title", { number: order.publicOrderId }) : t("orders.title") };
}

/**
 * /dashboard/orders/{orderId} (docs/ui.md, "Orders"): items with their chosen options, customer, delivery and
 * totals in the order's currency; the merchant moves it to a next status, sets a custom label and marks it paid,
 * each through the same service as /v1, which records its event.
 */
export default async function OrderPage({ params }: Props) {
  const { orderId } = await params;
  const [{ account }, t, language, caller] = await Promise.all([
    requireSignedInAccount(),
    getT(),
    getLanguage(),
    getServerCaller(),
  ]);
  const [order, storefronts] = await orNotFound(() =>
    Promise.all([caller.orders.get({ orderId }), caller.orders.storefronts({ limit: 100 })]),
  );
  const storefront = storefronts.data.find((s) => s.id === order.storefrontId);
  const date = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(
    new Date(order.createdAt),
  );
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current={`/dashboard/orders/${orderId}`}
    >
      <nav aria-label={t("order.back")} className="mb-2 text-sm">
        <Link href="/dashboard/orders" className="text-primary underline underline-offset-2">
          {t("order.back")}
        </Link>
      </nav>
      <PageHeader
        title={t("order.title", { number: order.publicOrderId })}
        description={t("order.description", { storefront: storefront?.name ?? order.storefrontId, date })}
      />
      <OrderDetail initialOrder={order} transitions={ORDER_TRANSITIONS} />
    </Shell>
  );
}
