import { describe, expect, it } from "vitest";
import { ProductManifest } from "@/server/products/schema";
import { createMerchant, createTestStorefront } from "@/server/storefronts/testing";
import { sessionContextFor } from "@/server/testing/context";
import { createCaller } from "@/server/wiring/trpc";
import {
  decodeFile,
  detectSeparator,
  ImportFileError,
  parseCsv,
  productsFromCsv,
  productsFromFile,
  readCsv,
  rowsFromFile,
} from "./import-file";

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

// docs/ui.md, "Products", import: the files spreadsheets write. Excel in Spanish and Portuguese separates with `;`
// and writes decimal commas, a BOM and CRLF; the separator comes from the header line, the decimal mark from the
// file's own numbers, and a number that could be read two ways is refused at its row and column, never guessed.
describe("spreadsheet CSV: separator, decimal mark, rows and columns", () => {
  async function merchantCaller() {
    const merchant = await createMerchant({ verified: true });
    const storefront = await createTestStorefront(merchant.userKey);
    const caller = createCaller({ service: await sessionContextFor(merchant.userId), sameOrigin: true });
    return { storefrontId: storefront.id, caller };
  }

  it("a comma file with decimal points: read, checked and saved on the real database", async () => {
    const file = readCsv(
      'title,price,salePrice,stock\nConcha,12.50,9.90,3\n"Pan, integral",1,234.50,9.90,3\n',
    );
    // `1,234.5` unquoted in a comma file is two cells: the row is kept back, named by row 3.
    expect(file.separator).toBe(",");
    expect(file.decimalMark).toBe(".");
    expect(file.rows[0]).toEqual({
      row: 2,
      product: { title: "Concha", price: 12.5, salePrice: 9.9, stock: 3 },
      problem: null,
    });
    expect(file.rows[1]?.row).toBe(3);
    expect(file.rows[1]?.product.title).toBe("Pan, integral");
    expect(file.rows[1]?.problem).toMatchObject({ row: 3, reason: "tooManyCells", cells: 5, columns: 4 });

    const { storefrontId, caller } = await merchantCaller();
    const sendable = file.rows.filter((row) => !row.problem).map((row) => ProductManifest.parse(row.product));
    const saved = await caller.products.importBatch({ storefrontId, products: sendable });
    expect(saved.products.map((p) => [p.title, p.price, p.salePrice])).toEqual([["Concha", 12.5, 9.9]]);
  });

  it("Excel in Spanish: `;`, decimal commas and thousands dots, a BOM, CRLF, a quoted `;` and line break; saved as numbers", async () => {
    const text =
      "\uFEFFtitle;price;salePrice;description;stock\r\n" +
      'Concha;12,50;;"dulce; de vainilla\r\ncon azúcar";1.000\r\n' +
      "\r\n" +
      "Pastel de tres leches;1.234,56;1.100;;2\r\n";
    const file = readCsv(text);
    expect(file.separator).toBe(";");
    expect(file.decimalMark).toBe(",");
    expect(file.rows.map((row) => [row.row, row.problem])).toEqual([
      [2, null],
      [4, null], // row 3 is blank: left out, the numbering stays the spreadsheet's
    ]);
    expect(file.rows[0]?.product).toEqual({
      title: "Concha",
      price: 12.5,
      description: "dulce; de vainilla\r\ncon azúcar",
      stock: 1000,
    });
    expect(file.rows[1]?.product).toMatchObject({ price: 1234.56, salePrice: 1100 });

    const { storefrontId, caller } = await merchantCaller();
    const saved = await caller.products.importBatch({
      storefrontId,
      products: file.rows.map((row) => ProductManifest.parse(row.product)),
    });
    expect(saved.rejected).toEqual([]);
    expect(saved.products.map((p) => [p.title, p.price, p.salePrice, p.stock])).toEqual([
      ["Concha", 12.5, null, 1000],
      ["Pastel de tres leches", 1234.56, 1100, 2],
    ]);
  });

  it("tab-separated files are read too; a header without separators is one column", () => {
    expect(readCsv("title\tprice\nConcha\t0,75\n").rows[0]?.product).toEqual({
      title: "Concha",
      price: 0.75,
    });
    expect(detectSeparator("title\nConcha")).toBe(",");
    expect(detectSeparator('"a;b",c,d\r\n1;2')).toBe(",");
  });

  it("an ambiguous number is refused at its row and column: `1.234` alone could be 1234 or 1.234", () => {
    const file = readCsv("title;price\nConcha;12\nBolillo;1.234\n");
    expect(file.decimalMark).toBeNull();
    expect(file.rows[0]?.problem).toBeNull();
    expect(file.rows[1]?.problem).toEqual({
      row: 3,
      column: "price",
      reason: "ambiguousNumber",
      value: "1.234",
    });
    // Any unambiguous number of the file settles it, before or after.
    expect(readCsv("title;price\nBolillo;1.234\nConcha;0,5\n").rows[0]?.product.price).toBe(1234);
    expect(readCsv("title,price\nBolillo,1.234\nConcha,0.5\n").rows[0]?.product.price).toBe(1.234);
  });

  it("errors name the row and the column: a word for a price, and a mark that differs from the file's", () => {
    const file = readCsv("title;price;salePrice\nConcha;12,50;\nBolillo;doce;\nPan;3.50;2,5\n");
    expect(file.rows[1]?.problem).toEqual({ row: 3, column: "price", reason: "badNumber", value: "doce" });
    expect(file.rows[2]?.problem).toEqual({
      row: 4,
      column: "price",
      reason: "mixedDecimalMarks",
      value: "3.50",
      firstRow: 2,
      firstColumn: "price",
    });
  });

  it("an unclosed quote stops the file, naming the row where it opened", () => {
    const error = (() => {
      try {
        readCsv('title;price\nConcha;1\n"Bolillo;2\nPan;3\n');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ImportFileError);
    expect((error as ImportFileError).problem).toEqual({ row: 3, reason: "unclosedQuote" });
  });

  it("Excel's plain CSV on Windows is Windows-1252: accents survive; UTF-8 files with or without a BOM stay UTF-8", () => {
    // "Café;2,5" in Windows-1252: é is the single byte 0xE9, not valid UTF-8.
    const cp1252 = Uint8Array.from(
      [..."title;price\r\nCaf"].map((c) => c.charCodeAt(0)).concat([0xe9, 0x3b, 0x32, 0x2c, 0x35]),
    );
    expect(readCsv(decodeFile(cp1252)).rows[0]?.product).toEqual({ title: "Café", price: 2.5 });
    const utf8 = new TextEncoder().encode("\uFEFFtitle;price\r\nPão;3,5\r\n");
    expect(readCsv(decodeFile(utf8)).rows[0]?.product).toEqual({ title: "Pão", price: 3.5 });
  });

  it("rows of a file: CSV at spreadsheet rows, JSON items from 1, a BOM before JSON", () => {
    expect(rowsFromFile("a.csv", "title,price\nA,1\n").map((r) => r.row)).toEqual([2]);
    expect(rowsFromFile("b.json", '\uFEFF[{"title":"B","price":2}]')).toEqual([
      { row: 1, product: { title: "B", price: 2 }, problem: null },
    ]);
  });
});
