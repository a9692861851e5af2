"use client";

import Link from "next/link";
import { useLanguage, useT } from "@/app/_i18n/client";
import { announce } from "./announcer";
import { useCart, useIsHydrated } from "./cart-store";
import { Price } from "./price";
import "./storefront.css";

/**
 * What a card needs of a product, with short keys: a page of 200 products carries this once per product to the
 * browser (the HTML carries the rendered cards), so every byte repeats 200 times.
 * i: id, t: title, d: description, p: price, s: salePrice, m: image URL (the 160 px WebP when resized), x: the
 * 480 px WebP, e: above the fold (loaded at once), k: stock, o: has option groups; a key without a value is left out.
 */
export type CardProduct = {
  i: string;
  t: string;
  d?: string;
  p: number;
  s?: number;
  m?: string;
  x?: string;
  e?: true;
  k?: number;
  o?: true;
};

function AddToCart({ slug, product }: { slug: string; product: CardProduct }) {
  const t = useT();
  const cart = useCart(slug);
  const isHydrated = useIsHydrated();
  return (
    <button
      type="button"
      className="sf-add"
      disabled={!isHydrated}
      aria-label={t("storefront.addNamed", { title: product.t })}
      onClick={() => {
        cart.add({
          productId: product.i,
          title: product.t,
          options: [],
          optionTitles: [],
          amount: 1,
          unitPrice: product.s ?? product.p,
        });
        announce(t("storefront.added", { title: product.t }));
      }}
    >
      {t("storefront.add")}
    </button>
  );
}

/**
 * The cards of one category: image, title (the way to the product's page), description, price or discount,
 * and "Add" (no options), "Choose" (options: on the product's page) or "Sold out" (stock 0). "Add" waits for
 * JavaScript; everything else is plain HTML.
 */
export function ProductGrid({
  slug,
  currency,
  products,
}: {
  slug: string;
  currency: string;
  products: CardProduct[];
}) {
  const t = useT();
  const language = useLanguage();
  return (
    <ul className="sf-grid">
      {products.map((product) => {
        const href = `/s/${slug}/p/${product.i}`;
        return (
          <li key={product.i} className="sf-card">
            {product.m ? (
              // biome-ignore lint/performance/noImgElement: the merchant's own image URL on any host.
              <img
                src={product.m}
                srcSet={product.x ? `${product.m} 160w, ${product.x} 480w` : undefined}
                sizes={product.x ? "88px" : undefined}
                width={88}
                height={88}
                alt=""
                loading={product.e ? "eager" : "lazy"}
                decoding="async"
              />
            ) : null}
            <div>
              <h3>
                <Link href={href} prefetch={false}>
                  {product.t}
                </Link>
              </h3>
              {product.d ? <p>{product.d}</p> : null}
              <div>
                <Price
                  price={product.p}
                  salePrice={product.s ?? null}
                  language={language}
                  currency={currency}
                  t={t}
                />
                {product.k === 0 ? (
                  <span className="sf-out">{t("storefront.soldOut")}</span>
                ) : product.o ? (
                  <Link
                    href={href}
                    prefetch={false}
                    className="sf-choose"
                    aria-label={t("storefront.chooseNamed", { title: product.t })}
                  >
                    {t("storefront.choose")}
                  </Link>
                ) : (
                  <AddToCart slug={slug} product={product} />
                )}
              </div>
            </div>
          </li>
        );
      })}
    </ul>
  );
}
