import { describe, expect, it } from "vitest";
import { ProductManifest } from "@/server/products/schema";
import { parseCsv, productsFromCsv, productsFromFile } from "./import-file";

describe("bulk import files", () => {
  it("CSV: quoted fields with commas, doubled quotes and line breaks; CRLF; a BOM", () => {
    expect(parseCsv('\uFEFFa,b\r\n"x, y","say ""hi""\nthere"\r\n')).toEqual([
      ["a", "b"],
      ["x, y", 'say "hi"\nthere'],
    ]);
    expect(() => parseCsv('a\n"open')).toThrow();
  });

  it("CSV rows become manifests the API's schema accepts: numbers, booleans, tags, option groups; empty cells left out", () => {
    const groups = JSON.stringify([
      { title: "Tamaño", obligatory: true, multipleOption: false, minOptions: 1, maxOptions: 1 },
    ]);
    const csv = `title,price,salePrice,stock,hide,tags,extraProductsCategory,sku\nConcha,"12,5",,3,yes,pan|dulce,"${groups.replaceAll('"', '""')}",\n`;
    const [row] = productsFromCsv(csv);
    expect(row).toEqual({
      title: "Concha",
      price: 12.5,
      stock: 3,
      hide: true,
      tags: ["pan", "dulce"],
      extraProductsCategory: JSON.parse(groups),
    });
    expect(ProductManifest.safeParse(row).success).toBe(true);
  });

  it("a bad price stays bad, so the schema names it (the spec's validation, not a silent zero)", () => {
    const [row] = productsFromCsv("title,price\nConcha,doce\n");
    const result = ProductManifest.safeParse(row);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["price"]);
  });

  it("JSON: an array, or the batch body", () => {
    expect(productsFromFile("a.json", '[{"title":"A","price":1}]')).toEqual([{ title: "A", price: 1 }]);
    expect(productsFromFile("b.txt", '{"products":[{"title":"B","price":2}]}')).toEqual([
      { title: "B", price: 2 },
    ]);
    expect(() => productsFromFile("c.json", '{"title":"C"}')).toThrow();
  });
});
