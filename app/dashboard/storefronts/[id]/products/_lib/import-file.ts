/**
 * Reading a bulk-import file in the browser (docs/ui.md, "Products", import): CSV (RFC 4180: quoted fields,
 * doubled quotes, CRLF or LF) or JSON, into one raw product object per row. Each row is then checked with the
 * API's own `ProductManifest` schema; the server checks again.
 */

const NUMBER_FIELDS = new Set(["price", "salePrice", "position", "stock"]);
const BOOLEAN_FIELDS = new Set(["hide", "cartProduct"]);
const JSON_FIELDS = new Set(["extraProductsCategory"]);

/** The rows of a CSV text, as arrays of cells. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (quoted) {
      if (c === '"' && source[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c === '"' && cell === "") {
      quoted = true;
    } else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && source[i + 1] === "\n") i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else {
      cell += c;
    }
  }
  if (quoted) throw new Error("a quoted field is not closed");
  if (cell !== "" || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows.filter((cells) => cells.some((value) => value.trim() !== ""));
}

function cellValue(field: string, raw: string): unknown {
  const value = raw.trim();
  if (NUMBER_FIELDS.has(field)) return Number(value.replace(",", "."));
  if (BOOLEAN_FIELDS.has(field))
    return ["true", "1", "yes", "sí", "si", "sim", "x"].includes(value.toLowerCase());
  if (field === "tags")
    return value
      .split("|")
      .map((tag) => tag.trim())
      .filter(Boolean);
  if (JSON_FIELDS.has(field)) {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }
  return value;
}

/** CSV rows under a header row of field names; an empty cell leaves its field out. */
export function productsFromCsv(text: string): Array<Record<string, unknown>> {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  const fields = header.map((name) => name.trim());
  return rows.map((cells) => {
    const product: Record<string, unknown> = {};
    fields.forEach((field, index) => {
      const raw = cells[index] ?? "";
      if (field && raw.trim() !== "") product[field] = cellValue(field, raw);
    });
    return product;
  });
}

/** A JSON array of products, or `{ "products": [...] }` (the batch endpoint's body). */
export function productsFromJson(text: string): Array<Record<string, unknown>> {
  const parsed = JSON.parse(text) as unknown;
  const list = Array.isArray(parsed)
    ? parsed
    : parsed && typeof parsed === "object" && Array.isArray((parsed as { products?: unknown }).products)
      ? (parsed as { products: unknown[] }).products
      : null;
  if (!list) throw new Error('expected an array of products or {"products": [...]}');
  return list.map((item) =>
    item && typeof item === "object" ? (item as Record<string, unknown>) : { value: item },
  );
}

/** The products of a file, by its name (`.json`) or its first character. */
export function productsFromFile(name: string, text: string): Array<Record<string, unknown>> {
  const isJson = name.toLowerCase().endsWith(".json") || /^\s*[[{]/.test(text);
  return isJson ? productsFromJson(text) : productsFromCsv(text);
}
