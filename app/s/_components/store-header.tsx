import type { Language } from "@/app/_i18n/catalogue";
import { translator } from "@/app/_i18n/catalogue";
import { offeredFulfillments } from "@/server/orders/pricing";
import type { BrandingImages } from "@/server/storefronts/branding-images";
import type { StorefrontDto } from "@/server/storefronts/schema";
import { formatMoney } from "../_lib/format";
import { OpenBadge } from "./open-badge";

/** Cheapest delivery price: the fixed price, or the lowest range's. Null when delivery is not offered. */
function deliveryLabel(storefront: StorefrontDto, language: Language): string | null {
  const t = translator(language);
  const delivery = storefront.delivery;
  if (!delivery?.enabled) return null;
  if (delivery.type === "fixed") {
    const price = delivery.fixedPrice ?? 0;
    return price === 0
      ? `${t("storefront.delivery")} · ${t("storefront.cart.free")}`
      : t("storefront.deliveryPrice", { price: formatMoney(price, language, storefront.currency) });
  }
  if (delivery.type === "distance") {
    const prices = (delivery.ranges ?? []).map((range) => range.price);
    if (prices.length === 0) return null;
    return t("storefront.deliveryFrom", {
      price: formatMoney(Math.min(...prices), language, storefront.currency),
    });
  }
  return t("storefront.delivery");
}

/**
 * The store's face: cover image, logo, name, biography, open state, the ways it serves (delivery with its
 * price, pickup, dine-in) and WhatsApp. A logo or background that was resized (docs/api.md, "Branding images") is
 * served as its WebP variants with `srcset`; otherwise its URL as it is.
 */
export function StoreHeader({
  storefront,
  timeZone,
  headingLevel = 1,
  brandingImages,
}: {
  storefront: StorefrontDto;
  timeZone: string;
  headingLevel?: 1 | 2;
  brandingImages?: BrandingImages;
}) {
  const language = storefront.language as Language;
  const t = translator(language);
  const branding = storefront.branding;
  const logo = branding?.logoUrl ? brandingImages?.logo : null;
  const background = branding?.backgroundUrl ? brandingImages?.background : null;
  const offered = offeredFulfillments({
    delivery: storefront.delivery,
    pickup: storefront.pickup,
    dineIn: storefront.dineIn,
  });
  const services = offered.map((type) =>
    type === "delivery"
      ? deliveryLabel(storefront, language)
      : type === "pickup"
        ? t("storefront.pickup")
        : t("storefront.dineIn"),
  );
  const Heading = headingLevel === 1 ? "h1" : "p";
  return (
    <header className="bg-surface">
      {branding?.backgroundUrl ? (
        // biome-ignore lint/performance/noImgElement: the merchant's own image URL on any host; no optimizer in between.
        <img
          src={background?.src ?? branding.backgroundUrl}
          srcSet={background?.srcSet}
          sizes={background ? "100vw" : undefined}
          width={background?.width}
          height={background?.height}
          alt=""
          fetchPriority="high"
          className="h-36 w-full object-cover sm:h-52"
        />
      ) : (
        <div
          aria-hidden="true"
          className={branding?.logoUrl ? "h-16 w-full bg-primary sm:h-24" : "h-2 w-full bg-primary"}
        />
      )}
      <div className="mx-auto max-w-5xl px-4 pb-5">
        {branding?.logoUrl ? (
          // biome-ignore lint/performance/noImgElement: the merchant's own image URL on any host.
          <img
            src={logo?.variants[0]?.url ?? branding.logoUrl}
            srcSet={logo?.srcSet}
            sizes={logo ? "80px" : undefined}
            alt=""
            width={80}
            height={80}
            className="-mt-10 size-20 rounded-xl border-4 border-surface bg-surface object-cover shadow"
          />
        ) : null}
        <Heading className="mt-4 text-2xl font-bold tracking-tight sm:text-3xl">{storefront.name}</Heading>
        {storefront.businessType ? <p className="text-sm text-muted">{storefront.businessType}</p> : null}
        {storefront.biography?.description ? (
          <p className="mt-2 max-w-2xl text-fg">{storefront.biography.description}</p>
        ) : null}
        <div className="mt-3 flex flex-wrap items-center gap-2">
          <OpenBadge schedule={storefront.schedule} timeZone={timeZone} renderedAt={Date.now()} />
          {services.filter(Boolean).map((label) => (
            <span key={label} className="rounded-full border border-border px-3 py-1 text-sm">
              {label}
            </span>
          ))}
          {storefront.whatsapp ? (
            <a
              href={`https://wa.me/${storefront.whatsapp.replace(/\D/g, "")}`}
              className="rounded-full border border-border px-3 py-1 text-sm"
              rel="noopener noreferrer"
            >
              {t("storefront.whatsapp")}
            </a>
          ) : null}
        </div>
      </div>
    </header>
  );
}
