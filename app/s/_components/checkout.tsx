"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, type ReactNode, useEffect, useId, useMemo, useRef, useState } from "react";
import { Button } from "@/app/_components/ui/button";
import { Notice } from "@/app/_components/ui/notice";
import { useLanguage, useT } from "@/app/_i18n/client";
import { checkOptionChoices, type OptionGroup } from "@/server/orders/options";
import { type DeliverySettings, deliveryPriceFor, type FulfillmentType } from "@/server/orders/pricing";
import { HONEYPOT_FIELD, PublicOrderInput } from "@/server/orders/schema";
import { openingState, type Schedule } from "@/server/storefronts/opening-hours";
import { formatMoney, formatOpening } from "../_lib/format";
import { CALLING_CODES, defaultRegion, toE164 } from "../_lib/phone";
import { type CartLine, useCart, useIsHydrated } from "./cart-store";
import { optionProblemMessage } from "./option-messages";

/** What the checkout knows of each product: enough to price a line and to tell what is no longer possible. */
export type CatalogProduct = {
  title: string;
  unitPrice: number;
  stock: number | null;
  groups: OptionGroup[];
};

export type CheckoutProps = {
  slug: string;
  currency: string;
  whatsapp: string | null;
  catalog: Record<string, CatalogProduct>;
  delivery: DeliverySettings;
  pickup: boolean | null;
  dineIn: boolean | null;
  offered: FulfillmentType[];
  paymentMethods: string[];
  schedule: Schedule;
  timeZone: string;
  /** When the server rendered the page: the first paint in the browser matches it (hydration), then moves on. */
  renderedAt: number;
};

type ErrorResponse = { error?: { code?: string; message?: string; param?: string | null } };

const FIELDS = [
  "customer.name",
  "customer.phone",
  "fulfillment.type",
  "fulfillment.distanceKm",
  "paymentMethod.name",
];

/** A line as the page can price it now, and what stops it from being ordered (named, never dropped). */
function lineState(
  line: CartLine,
  lines: CartLine[],
  catalog: Record<string, CatalogProduct>,
  t: ReturnType<typeof useT>,
): { unitPrice: number; problem: string | null } {
  const product = catalog[line.productId];
  if (!product)
    return { unitPrice: line.unitPrice, problem: t("storefront.cart.unavailable", { title: line.title }) };
  const check = checkOptionChoices(product.groups, line.options, line.amount);
  const unitPrice = product.unitPrice + check.extraPrice;
  if (product.stock === 0)
    return { unitPrice, problem: t("storefront.cart.soldOut", { title: product.title }) };
  const wanted = lines.filter((l) => l.productId === line.productId).reduce((sum, l) => sum + l.amount, 0);
  if (product.stock !== null && wanted > product.stock) {
    return {
      unitPrice,
      problem: t("storefront.cart.onlyLeft", { title: product.title, count: product.stock }),
    };
  }
  const problem = check.problems[0];
  if (problem) {
    return {
      unitPrice,
      problem:
        problem.kind === "sold_out" || problem.kind === "unavailable"
          ? `${product.title}: ${optionProblemMessage(t, problem, product.groups)}`
          : t("storefront.cart.optionsChanged", { title: product.title }),
    };
  }
  return { unitPrice, problem: null };
}

function FieldError({ id, children }: { id: string; children: ReactNode }) {
  return (
    <p id={id} className="text-sm font-medium text-danger">
      {children}
    </p>
  );
}

/**
 * The cart and the order form (docs/ui.md, "Public storefront"). Lines are priced from the page's catalog and
 * checked with the server's own rules (options, stock); a line that can no longer be ordered says so and blocks
 * the order until the customer removes it. The request carries product ids, amounts and option choices only:
 * the server prices everything from the stored catalog. Errors come back with `param` and land on their field
 * or line.
 */
export function Checkout(props: CheckoutProps) {
  const { slug, catalog, currency, offered, paymentMethods } = props;
  const t = useT();
  const language = useLanguage();
  const router = useRouter();
  const cart = useCart(slug);
  const isHydrated = useIsHydrated();
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const noticeRef = useRef<HTMLDivElement>(null);
  const [name, setName] = useState("");
  const [region, setRegion] = useState(() => defaultRegion(props.whatsapp, currency));
  const [phone, setPhone] = useState("");
  const [fulfillment, setFulfillment] = useState<FulfillmentType | null>(offered[0] ?? null);
  const [distance, setDistance] = useState("");
  const [payment, setPayment] = useState(paymentMethods[0] ?? "");
  const [honeypot, setHoneypot] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [lineErrors, setLineErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [isSending, setSending] = useState(false);
  const [now, setNow] = useState(() => new Date(props.renderedAt));
  useEffect(() => {
    setNow(new Date());
    const timer = window.setInterval(() => setNow(new Date()), 60_000);
    return () => window.clearInterval(timer);
  }, []);

  const money = (value: number) => formatMoney(value, language, currency);
  const regionNames = useMemo(() => {
    try {
      return new Intl.DisplayNames([language], { type: "region" });
    } catch {
      return null;
    }
  }, [language]);
  const lines = cart.lines.map((line) => ({ line, ...lineState(line, cart.lines, catalog, t) }));
  const subtotal = lines.reduce((sum, { line, unitPrice }) => sum + unitPrice * line.amount, 0);
  const distanceKm = distance.trim() === "" ? null : Number(distance.replace(",", "."));
  const delivery =
    fulfillment === null
      ? null
      : deliveryPriceFor(
          { delivery: props.delivery, pickup: props.pickup, dineIn: props.dineIn },
          {
            type: fulfillment,
            distanceKm: distanceKm !== null && Number.isFinite(distanceKm) ? distanceKm : null,
          },
        );
  const deliveryPrice = delivery?.ok ? delivery.price : 0;
  const isByDistance = fulfillment === "delivery" && props.delivery?.type === "distance";
  const state = openingState(props.schedule, props.timeZone, now);
  const closedMessage = state.isOpen
    ? null
    : state.opensAt
      ? t("storefront.checkout.closed", { when: formatOpening(state.opensAt, now, language, props.timeZone) })
      : t("storefront.checkout.closedForNow");

  function fulfillmentLabel(type: FulfillmentType): string {
    if (type === "pickup") return t("storefront.pickup");
    if (type === "dine_in") return t("storefront.dineIn");
    const settings = props.delivery;
    if (settings?.type === "fixed") {
      const price = settings.fixedPrice ?? 0;
      return `${t("storefront.delivery")} · ${price === 0 ? t("storefront.cart.free") : money(price)}`;
    }
    return t("storefront.delivery");
  }

  const rangesHint = (props.delivery?.ranges ?? [])
    .slice()
    .sort((a, b) => a.fromKm - b.fromKm)
    .map((range) =>
      range.toKm == null
        ? t("storefront.checkout.rangeOpen", { from: range.fromKm, price: money(range.price) })
        : t("storefront.checkout.range", { from: range.fromKm, to: range.toKm, price: money(range.price) }),
    )
    .join("; ");

  function clearError(param: string) {
    setErrors(({ [param]: _, ...rest }) => rest);
    setFormError(null);
  }

  function focusFirstProblem() {
    window.requestAnimationFrame(() => {
      const target = formRef.current?.querySelector<HTMLElement>(
        '[aria-invalid="true"], [data-line-problem] button',
      );
      (target ?? noticeRef.current)?.focus();
    });
  }

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (isSending || lines.length === 0) return;
    setFormError(null);
    setLineErrors({});
    const local: Record<string, string> = {};
    if (name.trim() === "") local["customer.name"] = t("storefront.checkout.nameRequired");
    const e164 = toE164(region, phone);
    if (!/^\+[1-9]\d{7,14}$/.test(e164)) local["customer.phone"] = t("storefront.checkout.phoneInvalid");
    if (fulfillment === null) local["fulfillment.type"] = t("storefront.checkout.noFulfillment");
    if (delivery && !delivery.ok && delivery.param === "fulfillment.distanceKm") {
      local["fulfillment.distanceKm"] =
        delivery.reason === "distance_required"
          ? t("storefront.checkout.distanceRequired")
          : t("storefront.checkout.outOfRange");
    }
    setErrors(local);
    const hasLineProblems = lines.some((l) => l.problem !== null);
    if (Object.keys(local).length > 0 || hasLineProblems) {
      setFormError(hasLineProblems ? t("storefront.checkout.fixCart") : t("storefront.checkout.fixErrors"));
      focusFirstProblem();
      return;
    }
    const body = {
      items: cart.lines.map((line) => ({
        productId: line.productId,
        amount: line.amount,
        ...(line.options.length > 0 ? { options: line.options } : {}),
      })),
      customer: { name: name.trim(), phone: e164 },
      paymentMethod: { name: payment },
      fulfillment: { type: fulfillment, ...(isByDistance ? { distanceKm } : {}) },
      [HONEYPOT_FIELD]: honeypot,
    };
    const parsed = PublicOrderInput.safeParse(body);
    if (!parsed.success) {
      setFormError(t("storefront.checkout.fixErrors"));
      return;
    }
    const sentLines = [...cart.lines];
    setSending(true);
    try {
      const response = await fetch(`/s/${slug}/orders`, {
        method: "POST",
        headers: { "content-type": "application/json", "accept-language": language },
        body: JSON.stringify(parsed.data),
      });
      const answer = (await response.json().catch(() => ({}))) as ErrorResponse & { statusUrl?: string };
      if (response.ok && answer.statusUrl) {
        cart.clear();
        router.push(answer.statusUrl);
        return;
      }
      const error = answer.error;
      const message = error?.message ?? t("storefront.checkout.failed");
      const param = error?.param ?? "";
      const item = /^items\[(\d+)\]/.exec(param);
      const line = item ? sentLines[Number(item[1])] : undefined;
      if (line) {
        setLineErrors({ [line.key]: message });
        setFormError(t("storefront.checkout.fixCart"));
      } else if (FIELDS.includes(param)) {
        setErrors({ [param]: message });
        setFormError(t("storefront.checkout.fixErrors"));
      } else {
        setFormError(message);
      }
      setSending(false);
      focusFirstProblem();
    } catch {
      setFormError(t("storefront.checkout.failed"));
      setSending(false);
    }
  }

  if (isHydrated && cart.lines.length === 0) {
    return (
      <div className="space-y-4 rounded-lg border border-border bg-surface p-6 text-center">
        <p>{t("storefront.cart.empty")}</p>
        <Link href={`/s/${slug}`}>{t("storefront.cart.back")}</Link>
      </div>
    );
  }

  const errorOf = (param: string) => errors[param];
  const describe = (param: string, hint?: string) =>
    [hint, errors[param] ? `${id}-${param}-error` : null].filter(Boolean).join(" ") || undefined;
  const inputClass =
    "h-11 w-full rounded-md border border-border-strong bg-surface px-3 text-base text-fg aria-invalid:border-danger aria-invalid:ring-1 aria-invalid:ring-danger";

  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate className="grid gap-6 lg:grid-cols-[1fr_20rem]">
      <div className="space-y-6">
        <section aria-labelledby={`${id}-cart`} className="rounded-lg border border-border bg-surface p-4">
          <h2 id={`${id}-cart`} className="text-lg font-semibold">
            {t("storefront.cart.title")}
          </h2>
          <ul className="mt-3 divide-y divide-border">
            {lines.map(({ line, unitPrice, problem }) => {
              const shown = lineErrors[line.key] ?? problem;
              return (
                <li
                  key={line.key}
                  className="py-3"
                  data-testid="cart-line"
                  data-line-problem={shown ? true : undefined}
                >
                  <div className="flex items-start justify-between gap-3">
                    <div className="min-w-0">
                      <p className="font-medium">{catalog[line.productId]?.title ?? line.title}</p>
                      {line.optionTitles.length > 0 ? (
                        <p className="text-sm text-muted">{line.optionTitles.join(", ")}</p>
                      ) : null}
                      <p className="text-sm text-muted">{money(unitPrice)}</p>
                    </div>
                    <p className="font-medium">{money(unitPrice * line.amount)}</p>
                  </div>
                  <div className="mt-2 flex items-center gap-2">
                    <Button
                      variant="secondary"
                      size="sm"
                      aria-label={t("storefront.cart.decrease", { title: line.title })}
                      onClick={() => {
                        setLineErrors({});
                        cart.setAmount(line.key, line.amount - 1);
                      }}
                    >
                      −
                    </Button>
                    <span className="min-w-8 text-center" aria-live="polite">
                      <span className="sr-only">
                        {t("storefront.cart.quantityOf", { title: line.title, count: line.amount })}
                      </span>
                      <span aria-hidden="true">{line.amount}</span>
                    </span>
                    <Button
                      variant="secondary"
                      size="sm"
                      aria-label={t("storefront.cart.increase", { title: line.title })}
                      onClick={() => {
                        setLineErrors({});
                        cart.setAmount(line.key, line.amount + 1);
                      }}
                    >
                      +
                    </Button>
                    <Button
                      variant="ghost"
                      size="sm"
                      className="ml-auto"
                      aria-label={t("storefront.cart.removeNamed", { title: line.title })}
                      onClick={() => {
                        setLineErrors({});
                        cart.remove(line.key);
                      }}
                    >
                      {t("storefront.cart.remove")}
                    </Button>
                  </div>
                  {shown ? (
                    <p className="mt-2 text-sm font-medium text-danger" data-testid="line-problem">
                      {shown}
                    </p>
                  ) : null}
                </li>
              );
            })}
          </ul>
          <p className="mt-3">
            <Link href={`/s/${slug}`}>{t("storefront.cart.back")}</Link>
          </p>
        </section>

        <section
          aria-labelledby={`${id}-details`}
          className="space-y-4 rounded-lg border border-border bg-surface p-4"
        >
          <h2 id={`${id}-details`} className="text-lg font-semibold">
            {t("storefront.checkout.details")}
          </h2>
          <div className="space-y-1.5">
            <label htmlFor={`${id}-name`} className="block text-sm font-medium">
              {t("storefront.checkout.name")}
            </label>
            <input
              id={`${id}-name`}
              name="name"
              autoComplete="name"
              required
              value={name}
              aria-invalid={errorOf("customer.name") ? true : undefined}
              aria-describedby={describe("customer.name")}
              onChange={(event) => {
                setName(event.target.value);
                clearError("customer.name");
              }}
              className={inputClass}
            />
            {errorOf("customer.name") ? (
              <FieldError id={`${id}-customer.name-error`}>{errorOf("customer.name")}</FieldError>
            ) : null}
          </div>
          <div className="grid gap-3 sm:grid-cols-[12rem_1fr]">
            <div className="space-y-1.5">
              <label htmlFor={`${id}-region`} className="block text-sm font-medium">
                {t("storefront.checkout.country")}
              </label>
              <select
                id={`${id}-region`}
                value={region}
                autoComplete="tel-country-code"
                onChange={(event) => {
                  setRegion(event.target.value);
                  clearError("customer.phone");
                }}
                className={inputClass}
              >
                {CALLING_CODES.map((entry) => (
                  <option key={entry.region} value={entry.region}>
                    {regionNames?.of(entry.region) ?? entry.region} (+{entry.code})
                  </option>
                ))}
              </select>
            </div>
            <div className="space-y-1.5">
              <label htmlFor={`${id}-phone`} className="block text-sm font-medium">
                {t("storefront.checkout.phone")}
              </label>
              <input
                id={`${id}-phone`}
                type="tel"
                name="phone"
                autoComplete="tel-national"
                inputMode="tel"
                required
                value={phone}
                aria-invalid={errorOf("customer.phone") ? true : undefined}
                aria-describedby={describe("customer.phone", `${id}-phone-hint`)}
                onChange={(event) => {
                  setPhone(event.target.value);
                  clearError("customer.phone");
                }}
                className={inputClass}
              />
              <p id={`${id}-phone-hint`} className="text-sm text-muted">
                {t("storefront.checkout.phoneHint")}
              </p>
              {errorOf("customer.phone") ? (
                <FieldError id={`${id}-customer.phone-error`}>{errorOf("customer.phone")}</FieldError>
              ) : null}
            </div>
          </div>

          {offered.length > 0 ? (
            <fieldset className="space-y-2" aria-describedby={describe("fulfillment.type")}>
              <legend className="text-sm font-medium">{t("storefront.checkout.fulfillment")}</legend>
              <div className="flex flex-wrap gap-2">
                {offered.map((type) => (
                  <label
                    key={type}
                    className="flex min-h-11 cursor-pointer items-center gap-2 rounded-md border border-border-strong px-3 has-checked:border-primary has-checked:bg-primary-soft"
                  >
                    <input
                      type="radio"
                      name="fulfillment"
                      value={type}
                      checked={fulfillment === type}
                      onChange={() => {
                        setFulfillment(type);
                        clearError("fulfillment.type");
                      }}
                      className="size-4 accent-(--primary)"
                    />
                    {fulfillmentLabel(type)}
                  </label>
                ))}
              </div>
              {errorOf("fulfillment.type") ? (
                <FieldError id={`${id}-fulfillment.type-error`}>{errorOf("fulfillment.type")}</FieldError>
              ) : null}
            </fieldset>
          ) : (
            <Notice tone="danger">{t("storefront.checkout.noFulfillment")}</Notice>
          )}

          {isByDistance ? (
            <div className="space-y-1.5">
              <label htmlFor={`${id}-distance`} className="block text-sm font-medium">
                {t("storefront.checkout.distance")}
              </label>
              <input
                id={`${id}-distance`}
                type="number"
                inputMode="decimal"
                min={0}
                step={0.1}
                value={distance}
                aria-invalid={errorOf("fulfillment.distanceKm") ? true : undefined}
                aria-describedby={describe("fulfillment.distanceKm", `${id}-distance-hint`)}
                onChange={(event) => {
                  setDistance(event.target.value);
                  clearError("fulfillment.distanceKm");
                }}
                className={`${inputClass} max-w-40`}
              />
              <p id={`${id}-distance-hint`} className="text-sm text-muted">
                {t("storefront.checkout.distanceHint", { ranges: rangesHint })}
              </p>
              {errorOf("fulfillment.distanceKm") ? (
                <FieldError id={`${id}-fulfillment.distanceKm-error`}>
                  {errorOf("fulfillment.distanceKm")}
                </FieldError>
              ) : null}
            </div>
          ) : null}

          <fieldset className="space-y-2" aria-describedby={describe("paymentMethod.name")}>
            <legend className="text-sm font-medium">{t("storefront.checkout.payment")}</legend>
            <div className="flex flex-wrap gap-2">
              {paymentMethods.map((method) => (
                <label
                  key={method}
                  className="flex min-h-11 cursor-pointer items-center gap-2 rounded-md border border-border-strong px-3 has-checked:border-primary has-checked:bg-primary-soft"
                >
                  <input
                    type="radio"
                    name="payment"
                    value={method}
                    checked={payment === method}
                    onChange={() => {
                      setPayment(method);
                      clearError("paymentMethod.name");
                    }}
                    className="size-4 accent-(--primary)"
                  />
                  {method}
                </label>
              ))}
            </div>
            {errorOf("paymentMethod.name") ? (
              <FieldError id={`${id}-paymentMethod.name-error`}>{errorOf("paymentMethod.name")}</FieldError>
            ) : null}
          </fieldset>

          {/* Simple bots fill every field; people never see this one (docs/api.md, "Public storefront"). */}
          <div aria-hidden="true" className="absolute -left-[10000px] h-px w-px overflow-hidden">
            <label htmlFor={`${id}-website`}>{t("storefront.checkout.honeypot")}</label>
            <input
              id={`${id}-website`}
              name={HONEYPOT_FIELD}
              tabIndex={-1}
              autoComplete="off"
              value={honeypot}
              onChange={(event) => setHoneypot(event.target.value)}
            />
          </div>
        </section>
      </div>

      <aside
        aria-labelledby={`${id}-summary`}
        className="h-fit space-y-3 rounded-lg border border-border bg-surface p-4 lg:sticky lg:top-4"
      >
        <h2 id={`${id}-summary`} className="text-lg font-semibold">
          {t("storefront.cart.total")}
        </h2>
        <dl className="space-y-1 text-sm">
          <div className="flex justify-between">
            <dt>{t("storefront.cart.subtotal")}</dt>
            <dd>{money(subtotal)}</dd>
          </div>
          {fulfillment === "delivery" ? (
            <div className="flex justify-between">
              <dt>{t("storefront.cart.delivery")}</dt>
              <dd data-testid="delivery-price">
                {delivery?.ok
                  ? delivery.price === 0
                    ? t("storefront.cart.free")
                    : money(delivery.price)
                  : t("storefront.cart.toBeCalculated")}
              </dd>
            </div>
          ) : null}
          <div className="flex justify-between border-t border-border pt-2 text-base font-semibold">
            <dt>{t("storefront.cart.total")}</dt>
            <dd data-testid="order-total">{money(subtotal + deliveryPrice)}</dd>
          </div>
        </dl>
        {closedMessage ? (
          <Notice tone="danger" className="text-sm">
            {closedMessage}
          </Notice>
        ) : null}
        <div ref={noticeRef} tabIndex={-1} className="outline-none">
          {formError ? (
            <Notice tone="danger" role="alert">
              {formError}
            </Notice>
          ) : null}
        </div>
        <Button
          type="submit"
          size="lg"
          className="w-full"
          loading={isSending}
          disabled={!isHydrated || offered.length === 0 || closedMessage !== null}
        >
          {t("storefront.checkout.place", { total: money(subtotal + deliveryPrice) })}
        </Button>
      </aside>
    </form>
  );
}
