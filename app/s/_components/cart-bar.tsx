"use client";

import Link from "next/link";
import { useLanguage, useT } from "@/app/_i18n/client";
import { formatMoney } from "../_lib/format";
import { useCart } from "./cart-store";

/** The cart at a glance, fixed at the bottom while it holds something: count, total seen so far, the way on. */
export function CartBar({ slug, currency }: { slug: string; currency: string }) {
  const t = useT();
  const language = useLanguage();
  const cart = useCart(slug);
  const count = cart.lines.reduce((sum, line) => sum + line.amount, 0);
  if (count === 0) return null;
  const total = cart.lines.reduce((sum, line) => sum + line.unitPrice * line.amount, 0);
  return (
    <div className="fixed inset-x-0 bottom-0 z-20 border-t border-border bg-surface/95 px-4 py-3 shadow-lg backdrop-blur">
      <div className="mx-auto flex max-w-5xl items-center justify-between gap-3">
        <p className="text-sm">
          <span className="font-medium">{t("storefront.cart.count", { count })}</span>
          <span className="text-muted"> · {formatMoney(total, language, currency)}</span>
        </p>
        <Link
          href={`/s/${slug}/checkout`}
          className="inline-flex h-11 items-center rounded-md bg-primary px-5 text-base font-medium text-on-primary no-underline hover:bg-primary-hover hover:text-on-primary"
          data-testid="view-cart"
        >
          {t("storefront.cart.view")}
        </Link>
      </div>
    </div>
  );
}
