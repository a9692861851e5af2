import { describe, expect, it } from "vitest";
import type { ProductDto } from "@/server/products/schema";
import { productJsonLd, serializeJsonLd, storeJsonLd } from "./json-ld";

const product = {
  id: "prd_1",
  title: "Pizza </script><script>alert(1)</script>",
  price: 120,
  salePrice: 99.5,
  description: "Tomato & cheese <!-- -->",
  stock: 0,
  imageUrl: "https://cdn.example.com/p.png",
  thumbnailUrl: null,
  sku: "PZ-1",
  category: "Pizzas",
} as unknown as ProductDto;

describe("structured data", () => {
  it("a product is a Product with an Offer: sale price, currency, availability from stock", () => {
    const data = productJsonLd(
      { name: "Napoli", currency: "MXN" },
      product,
      "https://x.test/s/napoli/p/prd_1",
    );
    expect(data).toMatchObject({
      "@type": "Product",
      sku: "PZ-1",
      offers: {
        "@type": "Offer",
        price: "99.50",
        priceCurrency: "MXN",
        availability: "https://schema.org/OutOfStock",
      },
    });
    expect(
      productJsonLd({ name: "Napoli", currency: "MXN" }, { ...product, stock: null }, "u").offers,
    ).toMatchObject({ availability: "https://schema.org/InStock" });
  });

  it("the store is a Store with its URL, logo and phone", () => {
    const data = storeJsonLd(
      {
        name: "Napoli",
        currency: "MXN",
        branding: { logoUrl: "https://cdn.example.com/l.png", backgroundUrl: null, theme: null, font: null },
        biography: null,
        whatsapp: "+5215512345678",
      },
      "https://x.test/s/napoli",
    );
    expect(data).toEqual({
      "@context": "https://schema.org",
      "@type": "Store",
      name: "Napoli",
      url: "https://x.test/s/napoli",
      logo: "https://cdn.example.com/l.png",
      image: "https://cdn.example.com/l.png",
      telephone: "+5215512345678",
      currenciesAccepted: "MXN",
    });
  });

  it("merchant text cannot close the script element or open a comment, and reads back unchanged", () => {
    const data = productJsonLd({ name: "Napoli", currency: "MXN" }, product, "u");
    const text = serializeJsonLd({ ...data, extra: "\u2028\u2029" });
    expect(text).not.toMatch(/<|>|&|\u2028|\u2029/);
    expect(text).toContain("\\u003c/script\\u003e");
    expect(JSON.parse(text)).toEqual({ ...data, extra: "\u2028\u2029" });
  });
});
