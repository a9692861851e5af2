import type { Translate } from "@/app/_i18n/catalogue";
import { discountPercent, formatMoney } from "../_lib/format";

/**
 * A price as customers read it: the sale price as a discount (the new price, the old one struck through, the
 * percent saved), each with words for screen readers, never colour alone. Renders on the server and in client
 * components alike.
 */
export function Price({
  price,
  salePrice,
  language,
  currency,
  t,
  size = "md",
}: {
  price: number;
  salePrice: number | null;
  language: string;
  currency: string;
  t: Translate;
  size?: "md" | "lg";
}) {
  const percent = discountPercent(price, salePrice);
  const amountClass = size === "lg" ? "text-xl font-semibold" : "font-semibold";
  if (salePrice === null || percent === null) {
    return <p className={amountClass}>{formatMoney(price, language, currency)}</p>;
  }
  return (
    <p className="flex flex-wrap items-baseline gap-x-2">
      <span className={`${amountClass} text-(--accent)`}>
        <span className="sr-only">{t("storefront.salePrice")}: </span>
        {formatMoney(salePrice, language, currency)}
      </span>
      <s className="text-sm text-muted">
        <span className="sr-only">{t("storefront.regularPrice")}: </span>
        {formatMoney(price, language, currency)}
      </s>
      <span className="rounded bg-(--accent-soft) px-1.5 text-xs font-semibold text-(--accent)">
        {t("storefront.discount", { percent })}
      </span>
    </p>
  );
}
