import type { Metadata } from "next";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { type Language, translator } from "@/app/_i18n/catalogue";
import { createServiceContext } from "@/server/context";
import { dbReady } from "@/server/db/client";
import { isAppError } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import { lineTitle } from "@/server/orders/options";
import { getPublicOrder, type PublicOrderView } from "@/server/orders/public";
import type { OrderStatus } from "@/server/orders/schema";
import { StatusFollower } from "../../../_components/status-follower";
import { StorefrontFrame } from "../../../_components/storefront-frame";
import { formatMoney } from "../../../_lib/format";

// Per order and token: never cached.
export const dynamic = "force-dynamic";

type Props = {
  params: Promise<{ slug: string; orderId: string }>;
  searchParams: Promise<{ t?: string | string[] }>;
};

async function load(orderId: string, token: string): Promise<PublicOrderView | null> {
  const ctx = createServiceContext({ db: await dbReady(), requestId: newId("req") });
  try {
    return await getPublicOrder(ctx, { orderId, token });
  } catch (error) {
    if (isAppError(error) && error.code === "order_not_found") return null;
    throw error;
  }
}

function tokenOf(value: string | string[] | undefined): string {
  return typeof value === "string" ? value : "";
}

export async function generateMetadata({ params, searchParams }: Props): Promise<Metadata> {
  const [{ orderId }, query] = await Promise.all([params, searchParams]);
  const view = await load(orderId, tokenOf(query.t));
  // The link holds the token: never indexed, never sent on as a referrer.
  const hidden = { robots: { index: false, follow: false }, referrer: "no-referrer" } as const;
  if (!view) return { title: { absolute: "404" }, ...hidden };
  const t = translator(view.storefront.language as Language);
  return {
    title: {
      absolute: `${t("storefront.status.title", { number: view.order.publicOrderId })} · ${view.storefront.name}`,
    },
    ...hidden,
  };
}

const FLOW: Record<"delivery" | "other", OrderStatus[]> = {
  delivery: ["pending", "accepted", "preparing", "ready", "delivering", "delivered"],
  other: ["pending", "accepted", "preparing", "ready", "delivered"],
};

/**
 * The customer's order status page (docs/api.md, "Order status page"): the link from the checkout holds a token
 * that only the customer has; a wrong one is 404. It shows the order as placed and follows its status.
 */
export default async function OrderStatusPage({ params, searchParams }: Props) {
  const [{ slug, orderId }, query] = await Promise.all([params, searchParams]);
  const token = tokenOf(query.t);
  const view = await load(orderId, token);
  if (!view) notFound();
  const { order, storefront } = view;
  if (storefront.slug && storefront.slug !== slug)
    redirect(`/s/${storefront.slug}/orders/${orderId}?t=${token}`);
  const language = storefront.language as Language;
  const t = translator(language);
  const money = (value: number) => formatMoney(value, language, order.currency);
  const isFinal = order.orderStatus === "delivered" || order.orderStatus === "cancelled";
  const flow = FLOW[order.fulfillment.type === "delivery" ? "delivery" : "other"];
  const reached = flow.indexOf(order.orderStatus);
  const fulfillment =
    order.fulfillment.type === "delivery"
      ? `${t("storefront.delivery")}${order.fulfillment.distanceKm !== null ? ` · ${t("storefront.status.distance", { km: new Intl.NumberFormat(language).format(order.fulfillment.distanceKm) })}` : ""}`
      : order.fulfillment.type === "pickup"
        ? t("storefront.pickup")
        : t("storefront.dineIn");
  return (
    <StorefrontFrame storefront={storefront} page="status">
      <header className="border-b border-border bg-surface">
        <div className="mx-auto flex max-w-2xl items-center gap-3 px-4 py-3">
          {storefront.slug ? (
            <Link href={`/s/${storefront.slug}`} className="text-sm font-medium">
              ← {t("storefront.product.back", { store: storefront.name })}
            </Link>
          ) : (
            <p className="text-sm font-medium">{storefront.name}</p>
          )}
        </div>
      </header>
      <main className="mx-auto max-w-2xl space-y-5 px-4 py-6">
        <div className="space-y-1">
          <h1 className="text-2xl font-bold tracking-tight" data-testid="order-number">
            {t("storefront.status.title", { number: order.publicOrderId })}
          </h1>
          <p>{t("storefront.status.thanks", { name: order.customerName, store: storefront.name })}</p>
          <p className="text-sm text-muted">{t("storefront.status.keepLink")}</p>
        </div>

        <section
          aria-labelledby="status-title"
          className="space-y-3 rounded-lg border border-border bg-surface p-4"
        >
          <h2 id="status-title" className="text-sm font-medium text-muted">
            {t("storefront.status.current")}
          </h2>
          <p
            data-testid="order-status"
            className={`text-xl font-semibold ${order.orderStatus === "cancelled" ? "text-danger" : "text-primary"}`}
          >
            {order.status.label}
          </p>
          {order.orderStatus === "cancelled" ? null : (
            <ol
              aria-label={t("storefront.status.progress")}
              className="flex flex-wrap gap-x-4 gap-y-1 text-sm"
            >
              {flow.map((status, index) => (
                <li
                  key={status}
                  aria-current={index === reached ? "step" : undefined}
                  className={index <= reached ? "font-medium text-fg" : "text-muted"}
                >
                  <span aria-hidden="true">{index < reached ? "✓ " : index === reached ? "● " : "○ "}</span>
                  {t(`storefront.status.step.${status}`)}
                  {index < reached ? <span className="sr-only"> ({t("storefront.status.done")})</span> : null}
                  {index === reached ? (
                    <span className="sr-only"> ({t("storefront.status.now")})</span>
                  ) : null}
                </li>
              ))}
            </ol>
          )}
          <noscript>
            <a href={`/s/${slug}/orders/${orderId}?t=${token}`}>{t("storefront.status.refresh")}</a>
          </noscript>
        </section>

        <section
          aria-labelledby="items-title"
          className="space-y-3 rounded-lg border border-border bg-surface p-4"
        >
          <h2 id="items-title" className="text-lg font-semibold">
            {t("storefront.status.items")}
          </h2>
          <ul className="divide-y divide-border">
            {order.items.map((item, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: an order's lines never move.
              <li key={index} className="flex justify-between gap-3 py-2">
                <span>
                  {item.amount} × {lineTitle(item.title, item.options)}
                </span>
                <span>{money(item.price * item.amount)}</span>
              </li>
            ))}
          </ul>
          <dl className="space-y-1 border-t border-border pt-2 text-sm">
            <div className="flex justify-between gap-4">
              <dt>{t("storefront.cart.subtotal")}</dt>
              <dd>{money(order.subtotalPrice)}</dd>
            </div>
            <div className="flex justify-between gap-4">
              <dt>{t("storefront.cart.delivery")}</dt>
              <dd>{order.deliveryPrice === 0 ? t("storefront.cart.free") : money(order.deliveryPrice)}</dd>
            </div>
            <div className="flex justify-between gap-4 text-base font-semibold">
              <dt>{t("storefront.cart.total")}</dt>
              <dd data-testid="status-total">{money(order.totalPrice)}</dd>
            </div>
            <div className="flex justify-between gap-4">
              <dt>{t("storefront.status.fulfillment")}</dt>
              <dd className="text-right">{fulfillment}</dd>
            </div>
            <div className="flex justify-between gap-4">
              <dt>{t("storefront.status.payment")}</dt>
              <dd className="text-right">
                {order.paymentMethod.name} (
                {order.paymentStatus === "paid" ? t("storefront.status.paid") : t("storefront.status.toPay")})
              </dd>
            </div>
          </dl>
        </section>
        <StatusFollower
          statusKey={`${order.orderStatus}:${order.status.id}:${order.status.label}`}
          label={order.status.label}
          isFinal={isFinal}
        />
      </main>
    </StorefrontFrame>
  );
}
