"use client";

import Link from "next/link";
import { type FormEvent, useId, useRef, useState } from "react";
import { Button } from "@/app/_components/ui/button";
import { Notice } from "@/app/_components/ui/notice";
import { useLanguage, useT } from "@/app/_i18n/client";
import { PUBLIC_ORDER_LIMITS } from "@/server/orders/limits";
import {
  checkOptionChoices,
  groupLimits,
  type OptionChoice,
  type OptionGroup,
} from "@/server/orders/options";
import { formatMoney } from "../_lib/format";
import { announce } from "./announcer";
import { useCart, useIsHydrated } from "./cart-store";
import { optionProblemMessage } from "./option-messages";

export type OrderableProduct = {
  id: string;
  title: string;
  /** What one unit costs before options: the sale price when set. */
  unitPrice: number;
  stock: number | null;
  groups: OptionGroup[];
};

/**
 * A product's option groups and quantity, and "Add to cart". The same rule function as the server
 * (server/orders/options.ts) decides before anything reaches the cart: an obligatory group left empty, too many
 * or too few choices, an unavailable or sold-out option are named next to their group. Rendered on the server
 * too, so every option is listed without JavaScript; adding needs it.
 */
export function ProductOrderForm({
  slug,
  currency,
  product,
}: {
  slug: string;
  currency: string;
  product: OrderableProduct;
}) {
  const t = useT();
  const language = useLanguage();
  const cart = useCart(slug);
  const isHydrated = useIsHydrated();
  const id = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [choices, setChoices] = useState<OptionChoice[]>([]);
  const [amount, setAmount] = useState(1);
  const [errors, setErrors] = useState<Record<number, string>>({});
  const [amountError, setAmountError] = useState<string | null>(null);
  const [added, setAdded] = useState(false);
  const money = (value: number) => formatMoney(value, language, currency);
  const check = checkOptionChoices(product.groups, choices, amount);
  const total = (product.unitPrice + check.extraPrice) * amount;
  const isChosen = (group: number, option: number) =>
    choices.some((c) => c.group === group && c.option === option);

  function toggle(group: number, option: number, isSingle: boolean) {
    setAdded(false);
    setErrors((current) => {
      const { [group]: _, ...rest } = current;
      return rest;
    });
    setChoices((current) => {
      if (isSingle) return [...current.filter((c) => c.group !== group), { group, option }];
      return isChosen(group, option)
        ? current.filter((c) => !(c.group === group && c.option === option))
        : [...current, { group, option }];
    });
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const problems: Record<number, string> = {};
    for (const problem of check.problems) {
      problems[problem.group] ??= optionProblemMessage(t, problem, product.groups);
    }
    const tooMany = product.stock !== null && amount > product.stock;
    setErrors(problems);
    setAmountError(tooMany ? t("storefront.onlyLeft", { count: product.stock ?? 0 }) : null);
    if (Object.keys(problems).length > 0 || tooMany) {
      setAdded(false);
      const first = formRef.current?.querySelector<HTMLElement>(
        '[data-invalid] input:not(:disabled), input[aria-invalid="true"]',
      );
      first?.focus();
      return;
    }
    cart.add({
      productId: product.id,
      title: product.title,
      options: check.options.map(({ group, option }) => ({ group, option })),
      optionTitles: check.options.map((option) => option.title),
      amount,
      unitPrice: product.unitPrice + check.extraPrice,
    });
    setAdded(true);
    announce(t("storefront.added", { title: product.title }));
  }

  const hasErrors = Object.keys(errors).length > 0 || amountError !== null;
  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate className="space-y-5">
      {product.groups.map((group, groupIndex) => {
        const options = group.extraProducts ?? [];
        if (options.length === 0) return null;
        const limits = groupLimits(group);
        const isSingle = !group.multipleOption;
        const rule = isSingle
          ? t("storefront.product.chooseOne")
          : limits.min > 0 && limits.min === limits.max
            ? t("storefront.product.chooseExactly", { count: limits.min })
            : limits.min > 0
              ? t("storefront.product.chooseRange", { min: limits.min, max: limits.max })
              : limits.max < options.length
                ? t("storefront.product.chooseUpTo", { max: limits.max })
                : t("storefront.product.chooseAny");
        const errorId = `${id}-g${groupIndex}-error`;
        const error = errors[groupIndex];
        return (
          <fieldset
            // biome-ignore lint/suspicious/noArrayIndexKey: groups are addressed by their index (the order's `group`).
            key={groupIndex}
            aria-describedby={error ? errorId : undefined}
            data-invalid={error ? true : undefined}
            className={`rounded-lg border bg-surface p-4 ${error ? "border-danger" : "border-border"}`}
            data-testid="option-group"
          >
            <legend className="px-1 font-semibold">
              {group.title}{" "}
              <span className="ml-1 text-sm font-normal text-muted">
                {rule} ·{" "}
                {limits.isRequired ? t("storefront.product.required") : t("storefront.product.optional")}
              </span>
            </legend>
            {error ? (
              <p id={errorId} className="mt-1 text-sm font-medium text-danger">
                {error}
              </p>
            ) : null}
            <ul className="mt-2 space-y-1">
              {options.map((option, optionIndex) => {
                const inputId = `${id}-g${groupIndex}-o${optionIndex}`;
                const isOut = !option.available || option.stock === 0;
                return (
                  // biome-ignore lint/suspicious/noArrayIndexKey: options are addressed by their index (the order's `option`).
                  <li key={optionIndex}>
                    <label
                      htmlFor={inputId}
                      className={`flex min-h-11 items-center gap-3 rounded-md px-2 ${isOut ? "text-muted" : "cursor-pointer hover:bg-surface-muted"}`}
                    >
                      <input
                        id={inputId}
                        type={isSingle ? "radio" : "checkbox"}
                        name={`g${groupIndex}`}
                        value={optionIndex}
                        checked={isChosen(groupIndex, optionIndex)}
                        disabled={isOut}
                        onChange={() => toggle(groupIndex, optionIndex, isSingle)}
                        className="size-5 accent-(--primary)"
                      />
                      <span className="flex-1">
                        {option.title}
                        {isOut ? (
                          <span className="text-sm">
                            {" "}
                            (
                            {option.stock === 0
                              ? t("storefront.soldOut").toLowerCase()
                              : t("storefront.product.unavailable")}
                            )
                          </span>
                        ) : null}
                      </span>
                      {option.price > 0 ? (
                        <span className="text-sm text-muted">
                          {t("storefront.product.plus", { price: money(option.price) })}
                        </span>
                      ) : null}
                    </label>
                  </li>
                );
              })}
            </ul>
          </fieldset>
        );
      })}
      <div className="flex flex-wrap items-end gap-4">
        <div className="space-y-1.5">
          <label htmlFor={`${id}-amount`} className="block text-sm font-medium">
            {t("storefront.product.quantity")}
          </label>
          <input
            id={`${id}-amount`}
            type="number"
            inputMode="numeric"
            min={1}
            max={Math.min(
              product.stock ?? PUBLIC_ORDER_LIMITS.maxUnitsPerLine,
              PUBLIC_ORDER_LIMITS.maxUnitsPerLine,
            )}
            value={amount}
            aria-invalid={amountError ? true : undefined}
            aria-describedby={amountError ? `${id}-amount-error` : undefined}
            onChange={(event) => {
              setAdded(false);
              setAmountError(null);
              setAmount(
                Math.max(1, Math.min(Number(event.target.value) || 1, PUBLIC_ORDER_LIMITS.maxUnitsPerLine)),
              );
            }}
            className="h-11 w-24 rounded-md border border-border-strong bg-surface px-3 text-base aria-invalid:border-danger"
          />
        </div>
        <Button type="submit" size="lg" disabled={!isHydrated} className="flex-1 sm:flex-none">
          {t("storefront.product.addToCart", { price: money(total) })}
        </Button>
      </div>
      {amountError ? (
        <p id={`${id}-amount-error`} className="text-sm font-medium text-danger">
          {amountError}
        </p>
      ) : null}
      {hasErrors ? (
        <Notice tone="danger" role="alert">
          {t("storefront.product.fixChoices")}
        </Notice>
      ) : null}
      {added ? (
        <Notice tone="success">
          <span>{t("storefront.added", { title: product.title })} </span>
          <Link href={`/s/${slug}/checkout`}>{t("storefront.product.viewCart")}</Link>
        </Notice>
      ) : null}
    </form>
  );
}
