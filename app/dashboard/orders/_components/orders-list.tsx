"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Badge, statusTone } from "@/app/_components/ui/badge";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { Table, TableCaption, TableContainer, TBody, Td, THead, Th, Tr } from "@/app/_components/ui/table";
import { useLanguage, useT } from "@/app/_i18n/client";
import { useTRPC } from "@/app/_trpc/client";
import { formatMoney } from "@/app/dashboard/_lib/catalog-forms";
import type { Page } from "@/server/lib/pagination";
import type { OrderDto, OrderStatus, PaymentStatus } from "@/server/orders/schema";

/** How often the first page asks for new orders. */
export const ORDERS_REFETCH_MS = 5_000;

type Filters = {
  storefrontId?: string;
  status?: OrderStatus;
  paymentStatus?: PaymentStatus;
  limit: number;
};

/**
 * The orders table (docs/ui.md, "Orders"). The first page refetches every 5 seconds (TanStack Query), so an order
 * placed on the storefront page or over /v1 shows up without a reload; later pages stay as loaded.
 */
export function OrdersList({
  filters,
  cursor,
  initialPage,
  storefronts,
  isFiltered,
}: {
  filters: Filters;
  cursor: string | null;
  initialPage: Page<OrderDto>;
  storefronts: Record<string, string>;
  isFiltered: boolean;
}) {
  const t = useT();
  const language = useLanguage();
  const trpc = useTRPC();
  const input = { ...filters, ...(cursor ? { cursor } : {}) };
  const { data } = useQuery(
    trpc.orders.list.queryOptions(input, {
      initialData: initialPage,
      staleTime: 0,
      refetchInterval: cursor ? false : ORDERS_REFETCH_MS,
      refetchIntervalInBackground: false,
    }),
  );
  const page = data ?? initialPage;
  const dateTime = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });
  if (page.data.length === 0) {
    return (
      <EmptyState
        title={isFiltered ? t("orders.noMatch") : t("orders.empty")}
        description={isFiltered ? undefined : t("orders.emptyBody")}
      />
    );
  }
  return (
    <TableContainer label={t("orders.caption")}>
      <Table>
        <TableCaption className="sr-only">{t("orders.caption")}</TableCaption>
        <THead>
          <Tr>
            <Th>{t("orders.colOrder")}</Th>
            <Th>{t("orders.colStorefront")}</Th>
            <Th>{t("orders.colCreated")}</Th>
            <Th>{t("orders.colCustomer")}</Th>
            <Th className="text-right">{t("orders.colTotal")}</Th>
            <Th>{t("orders.colStatus")}</Th>
            <Th>{t("orders.colPayment")}</Th>
          </Tr>
        </THead>
        <TBody>
          {page.data.map((order) => (
            <Tr key={order.id} data-testid="order-row" data-order-id={order.id}>
              <Td className="whitespace-nowrap">
                <Link
                  href={`/dashboard/orders/${order.id}`}
                  className="font-medium text-primary underline-offset-2 hover:underline"
                  aria-label={t("orders.openOrder", { number: order.publicOrderId })}
                >
                  {t("orders.number", { number: order.publicOrderId })}
                </Link>
              </Td>
              <Td>{storefronts[order.storefrontId] ?? order.storefrontId}</Td>
              <Td className="whitespace-nowrap">{dateTime.format(new Date(order.createdAt))}</Td>
              <Td>{order.customer.name}</Td>
              <Td className="text-right whitespace-nowrap tabular-nums">
                {formatMoney(order.totalPrice, order.currency, language)}
              </Td>
              <Td>
                <div className="flex flex-col items-start gap-1">
                  <Badge tone={statusTone(order.orderStatus)}>
                    {t(`orders.status.${order.orderStatus}`)}
                  </Badge>
                  {order.customStatus ? (
                    <span className="text-xs text-muted">{order.customStatus.label}</span>
                  ) : null}
                </div>
              </Td>
              <Td>
                <Badge tone={statusTone(order.paymentStatus)}>
                  {t(`orders.payment.${order.paymentStatus}`)}
                </Badge>
              </Td>
            </Tr>
          ))}
        </TBody>
      </Table>
    </TableContainer>
  );
}
