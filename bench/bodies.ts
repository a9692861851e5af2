/** The request bodies the catalog loads send; `n` varies them so every request changes something. */
export function storefrontPatchBody(n: number) {
  return {
    branding: { font: n % 2 === 0 ? "Inter" : "Lora" },
    schedule: { monday: { close: n % 2 === 0 ? "20:00" : "21:00" }, sunday: { closed: n % 2 === 0 } },
    delivery: { enabled: true, fixedPrice: n % 50 },
  };
}

export function productCreateBody(n: number) {
  return {
    title: `Concha ${n}`,
    price: 18.5,
    salePrice: 15,
    category: "Pan",
    sku: `SKU-${n}`,
    stock: 40,
    tags: ["pan dulce", "horneado hoy"],
  };
}
