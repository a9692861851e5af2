"use client";

import { clsx } from "clsx";
import { buttonClasses } from "@/app/_components/ui/button";
import { useT } from "@/app/_i18n/client";
import { announce } from "./announcer";
import { useCart, useIsHydrated } from "./cart-store";

/**
 * "Add" for a product without options: one more in the cart. Disabled until the page's JavaScript runs (without
 * it the product's own page still lists everything; ordering needs JavaScript).
 */
export function AddButton({
  slug,
  productId,
  title,
  unitPrice,
}: {
  slug: string;
  productId: string;
  title: string;
  unitPrice: number;
}) {
  const t = useT();
  const cart = useCart(slug);
  const isHydrated = useIsHydrated();
  return (
    <button
      type="button"
      disabled={!isHydrated}
      aria-label={t("storefront.addNamed", { title })}
      className={clsx(buttonClasses("primary", "sm"))}
      onClick={() => {
        cart.add({ productId, title, options: [], optionTitles: [], amount: 1, unitPrice });
        announce(t("storefront.added", { title }));
      }}
    >
      {t("storefront.add")}
    </button>
  );
}
