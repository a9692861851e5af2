"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Badge, statusTone } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/app/_components/ui/card";
import { Field } from "@/app/_components/ui/field";
import { Input } from "@/app/_components/ui/input";
import { Notice } from "@/app/_components/ui/notice";
import { Table, TableCaption, TableContainer, TBody, Td, THead, Th, Tr } from "@/app/_components/ui/table";
import { useLanguage, useT } from "@/app/_i18n/client";
import { catalogueError, useTRPC } from "@/app/_trpc/client";
import {
  bodyParam,
  checkWithSchema,
  type FieldErrors,
  formatMoney,
} from "@/app/dashboard/_lib/catalog-forms";
import { CustomStatus, type OrderDto, type OrderStatus, PayOrderInput } from "@/server/orders/schema";

const SELECT =
  "h-10 w-full rounded-md border border-border-strong bg-surface px-3 text-base text-fg sm:text-sm aria-invalid:border-danger";

/** A custom status's id from its label: lower case, letters and digits joined by dashes (1-50 characters). */
function customStatusId(label: string): string {
  const id = label
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 50);
  return id || "custom";
}

/**
 * An order's detail and the merchant's actions (docs/ui.md, "Orders"): next status (only the transitions the
 * service allows are offered; the service checks again), a custom status label, and "mark as paid" with the payment
 * method's name. Each answer replaces the order shown; an error lands on the field its `param` names.
 */
export function OrderDetail({
  initialOrder,
  transitions,
}: {
  initialOrder: OrderDto;
  transitions: Record<OrderStatus, OrderStatus[]>;
}) {
  const t = useT();
  const language = useLanguage();
  const trpc = useTRPC();
  const router = useRouter();
  const [order, setOrder] = useState(initialOrder);
  const next = transitions[order.orderStatus];
  const [nextStatus, setNextStatus] = useState<string>(next[0] ?? "");
  const [label, setLabel] = useState(order.customStatus?.label ?? "");
  const [method, setMethod] = useState(order.paymentMethod.name);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [notice, setNotice] = useState<{ tone: "success" | "danger"; text: string } | null>(null);
  const update = useMutation(trpc.orders.updateStatus.mutationOptions());
  const pay = useMutation(trpc.orders.pay.mutationOptions());
  const money = (amount: number) => formatMoney(amount, order.currency, language);

  function done(saved: OrderDto, text: string) {
    setOrder(saved);
    setNextStatus(transitions[saved.orderStatus][0] ?? "");
    setLabel(saved.customStatus?.label ?? "");
    setErrors({});
    setNotice({ tone: "success", text });
    router.refresh();
  }

  function failed(error: unknown, fallbackField: string) {
    const body = catalogueError(error);
    const param = bodyParam(body?.param, ["change", "paymentMethod"]);
    const field =
      param === "orderStatus" || param === "customStatus.label" || param === "name" ? param : fallbackField;
    setErrors({ [field]: body?.message ?? String(error) });
    setNotice(null);
  }

  async function moveStatus() {
    try {
      const saved = await update.mutateAsync({
        orderId: order.id,
        change: { orderStatus: nextStatus as OrderStatus },
      });
      done(saved, t("order.statusUpdated"));
    } catch (error) {
      failed(error, "orderStatus");
    }
  }

  async function setCustom(clear: boolean) {
    const customStatus = clear ? null : { id: customStatusId(label), label: label.trim() };
    if (customStatus) {
      const found = checkWithSchema(CustomStatus, customStatus, language);
      if (found.label) {
        setErrors({ "customStatus.label": found.label });
        return;
      }
    }
    try {
      const saved = await update.mutateAsync({ orderId: order.id, change: { customStatus } });
      done(saved, t("order.customStatusSet"));
    } catch (error) {
      failed(error, "customStatus.label");
    }
  }

  async function markPaid() {
    const body = { paymentMethod: { name: method } };
    const found = checkWithSchema(PayOrderInput, body, language);
    if (found["paymentMethod.name"]) {
      setErrors({ name: found["paymentMethod.name"] });
      return;
    }
    try {
      const saved = await pay.mutateAsync({ orderId: order.id, ...body });
      done(saved, t("order.paid"));
    } catch (error) {
      failed(error, "name");
    }
  }

  const dateTime = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });
  return (
    <div className="grid gap-6 lg:grid-cols-[2fr_1fr]">
      <div className="min-w-0 space-y-6">
        {notice ? (
          <Notice tone={notice.tone} role="status">
            {notice.text}
          </Notice>
        ) : null}
        <Card>
          <CardHeader>
            <CardTitle>{t("order.items")}</CardTitle>
          </CardHeader>
          <CardContent className="space-y-4">
            <TableContainer label={t("order.itemsCaption")}>
              <Table>
                <TableCaption className="sr-only">{t("order.itemsCaption")}</TableCaption>
                <THead>
                  <Tr>
                    <Th>{t("order.colItem")}</Th>
                    <Th className="text-right">{t("order.colAmount")}</Th>
                    <Th className="text-right">{t("order.colUnit")}</Th>
                    <Th className="text-right">{t("order.colLine")}</Th>
                  </Tr>
                </THead>
                <TBody>
                  {order.items.map((item, index) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: an order's lines never move
                    <Tr key={index} data-testid="order-item">
                      <Td>
                        <div className="font-medium">{item.title}</div>
                        {item.options.length > 0 ? (
                          <ul className="mt-1 space-y-0.5 text-xs text-muted">
                            {item.options.map((option) => (
                              <li key={`${option.group}-${option.option}`}>
                                {t("order.optionLine", { group: option.groupTitle, option: option.title })}
                                {option.price > 0 ? ` (+${money(option.price)})` : ""}
                              </li>
                            ))}
                          </ul>
                        ) : null}
                      </Td>
                      <Td className="text-right tabular-nums">{item.amount}</Td>
                      <Td className="text-right whitespace-nowrap tabular-nums">{money(item.price)}</Td>
                      <Td className="text-right whitespace-nowrap tabular-nums">
                        {money(item.price * item.amount)}
                      </Td>
                    </Tr>
                  ))}
                </TBody>
              </Table>
            </TableContainer>
            <dl className="ml-auto grid max-w-xs grid-cols-[1fr_auto] gap-x-6 gap-y-1 text-sm">
              <dt className="text-muted">{t("order.subtotal")}</dt>
              <dd className="text-right tabular-nums">{money(order.subtotalPrice)}</dd>
              <dt className="text-muted">{t("order.delivery")}</dt>
              <dd className="text-right tabular-nums">{money(order.deliveryPrice)}</dd>
              <dt className="font-semibold">{t("order.total")}</dt>
              <dd className="text-right font-semibold tabular-nums" data-testid="order-total">
                {money(order.totalPrice)}
              </dd>
            </dl>
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>{t("order.customer")}</CardTitle>
          </CardHeader>
          <CardContent>
            <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[auto_1fr]">
              <dt className="text-muted">{t("order.name")}</dt>
              <dd>{order.customer.name}</dd>
              <dt className="text-muted">{t("order.phone")}</dt>
              <dd>
                <a href={`tel:${order.customer.phone}`} className="text-primary underline underline-offset-2">
                  {order.customer.phone}
                </a>
              </dd>
              <dt className="text-muted">{t("order.fulfillment")}</dt>
              <dd>
                {t(`order.fulfillment.${order.fulfillment.type}`)}
                {order.fulfillment.distanceKm !== null
                  ? ` · ${t("order.distance", { km: new Intl.NumberFormat(language).format(order.fulfillment.distanceKm) })}`
                  : ""}
              </dd>
              <dt className="text-muted">{t("order.paymentMethod")}</dt>
              <dd>{order.paymentMethod.name}</dd>
            </dl>
          </CardContent>
        </Card>
      </div>

      <div className="min-w-0 space-y-6">
        <Card>
          <CardHeader>
            <CardTitle>{t("order.state")}</CardTitle>
            <CardDescription>
              {t("order.currentStatus")}:{" "}
              <Badge tone={statusTone(order.orderStatus)} data-testid="order-status">
                {t(`orders.status.${order.orderStatus}`)}
              </Badge>
            </CardDescription>
          </CardHeader>
          <CardContent className="space-y-6">
            {next.length === 0 ? (
              <p className="text-sm text-muted">
                {t("order.noNextStatus", { status: t(`orders.status.${order.orderStatus}`) })}
              </p>
            ) : (
              <div className="space-y-3">
                <Field id="order-next-status" label={t("order.nextStatus")} error={errors.orderStatus}>
                  <select
                    className={SELECT}
                    value={nextStatus}
                    onChange={(event) => setNextStatus(event.target.value)}
                  >
                    {next.map((status) => (
                      <option key={status} value={status}>
                        {t(`orders.status.${status}`)}
                      </option>
                    ))}
                  </select>
                </Field>
                <Button onClick={() => void moveStatus()} loading={update.isPending}>
                  {t("order.updateStatus")}
                </Button>
              </div>
            )}
            <div className="space-y-3 border-t border-border pt-4">
              {order.customStatus ? (
                <p className="text-sm" data-testid="custom-status">
                  {t("order.customLabel", { label: order.customStatus.label })}
                </p>
              ) : null}
              <Field
                id="order-custom-status"
                label={t("order.customStatus")}
                hint={t("order.customStatusHint")}
                error={errors["customStatus.label"]}
              >
                <Input value={label} maxLength={100} onChange={(event) => setLabel(event.target.value)} />
              </Field>
              <div className="flex flex-wrap gap-2">
                <Button variant="secondary" onClick={() => void setCustom(false)} disabled={update.isPending}>
                  {t("order.setCustomStatus")}
                </Button>
                {order.customStatus ? (
                  <Button variant="ghost" onClick={() => void setCustom(true)} disabled={update.isPending}>
                    {t("order.clearCustomStatus")}
                  </Button>
                ) : null}
              </div>
            </div>
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>{t("order.pay")}</CardTitle>
            <CardDescription>
              <Badge tone={statusTone(order.paymentStatus)} data-testid="payment-status">
                {t(`orders.payment.${order.paymentStatus}`)}
              </Badge>
            </CardDescription>
          </CardHeader>
          <CardContent className="space-y-3">
            {order.paymentStatus === "paid" ? (
              <p className="text-sm">
                {t("order.alreadyPaid", {
                  method: order.paymentMethod.name,
                  date: order.paidAt ? dateTime.format(new Date(order.paidAt)) : "",
                })}
              </p>
            ) : (
              <>
                <Field id="order-pay-method" label={t("order.payMethod")} error={errors.name}>
                  <Input value={method} maxLength={100} onChange={(event) => setMethod(event.target.value)} />
                </Field>
                <Button
                  onClick={() => void markPaid()}
                  loading={pay.isPending}
                  disabled={order.orderStatus === "cancelled"}
                >
                  {t("order.markPaid")}
                </Button>
              </>
            )}
          </CardContent>
        </Card>
      </div>
    </div>
  );
}
