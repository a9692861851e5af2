/**
 * Reading a bulk-import file in the browser (docs/ui.md, "Products", import): CSV or JSON, into one raw product
 * object per row. The CSV is what spreadsheets write (RFC 4180 through papaparse: quoted fields with separators,
 * doubled quotes and line breaks; CRLF or LF; a UTF-8 BOM), separated by `,`, `;` or tab (read from the header
 * line), with a decimal point or a decimal comma (read from the file's numbers, never guessed). Each row is then
 * checked with the API's own `ProductManifest` schema; the server checks again.
 */
import Papa from "papaparse";

const NUMBER_FIELDS = new Set(["price", "salePrice", "position", "stock"]);
const BOOLEAN_FIELDS = new Set(["hide", "cartProduct"]);
const JSON_FIELDS = new Set(["extraProductsCategory"]);
/** The separators a header line may use, in the order a tie is settled. */
const SEPARATORS = [";", "\t", ","] as const;
export type Separator = (typeof SEPARATORS)[number];
export type DecimalMark = "." | ",";

/** Why a row (or the whole file) cannot be read; the page words it (`import.problem.*`). */
export type ImportProblemReason =
  | "unclosedQuote"
  | "badQuote"
  | "tooManyCells"
  | "badNumber"
  | "ambiguousNumber"
  | "mixedDecimalMarks";

/**
 * A problem at a row as the spreadsheet numbers it (the header is row 1) and, for a cell, its column's name from
 * the header. `value` is the cell's text; `firstRow`/`firstColumn` name the cell that fixed the decimal mark.
 */
export type ImportProblem = {
  row: number;
  column?: string;
  reason: ImportProblemReason;
  value?: string;
  cells?: number;
  columns?: number;
  firstRow?: number;
  firstColumn?: string;
};

/** The file cannot be read at all (a quote left open swallows the rest of the file). */
export class ImportFileError extends Error {
  constructor(readonly problem: ImportProblem) {
    super(`row ${problem.row}: ${problem.reason}`);
    this.name = "ImportFileError";
  }
}

/** One product of the file, at its spreadsheet row; `problem` keeps it from being sent. */
export type ImportRow = { row: number; product: Record<string, unknown>; problem: ImportProblem | null };

function withoutBom(text: string): string {
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

/**
 * The text of a file's bytes: UTF-8 (with or without a BOM) when they are valid UTF-8, else Windows-1252, which is
 * what Excel on Windows saves as plain "CSV" in Spanish and Portuguese (only "CSV UTF-8" writes UTF-8).
 */
export function decodeFile(bytes: ArrayBuffer | Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

/** The separator of the header line: the candidate it holds most often outside quotes (`,` when it has none). */
export function detectSeparator(text: string): Separator {
  const counts = new Map<string, number>();
  let quoted = false;
  for (const c of withoutBom(text)) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "\n" || c === "\r")) break;
    else if (!quoted) counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let best: Separator = ",";
  let most = 0;
  for (const separator of SEPARATORS) {
    const count = counts.get(separator) ?? 0;
    if (count > most) {
      best = separator;
      most = count;
    }
  }
  return best;
}

type Parsed = { separator: Separator; rows: Array<{ row: number; cells: string[] }> };

/** The non-blank records of a CSV text, each at its spreadsheet row (header = 1). */
function parseRecords(text: string): Parsed {
  const source = withoutBom(text);
  const separator = detectSeparator(source);
  const result = Papa.parse<string[]>(source, { delimiter: separator, header: false, skipEmptyLines: false });
  const error = result.errors.find((e) => e.type === "Quotes");
  if (error) {
    throw new ImportFileError({
      row: (error.row ?? 0) + 1,
      reason: error.code === "MissingQuotes" ? "unclosedQuote" : "badQuote",
    });
  }
  const rows = result.data
    .map((cells, index) => ({ row: index + 1, cells }))
    .filter(({ cells }) => cells.some((value) => value.trim() !== ""));
  return { separator, rows };
}

/** The rows of a CSV text, as arrays of cells (blank rows left out). */
export function parseCsv(text: string): string[][] {
  return parseRecords(text).rows.map((row) => row.cells);
}

type NumberShape =
  | { kind: "plain" }
  | { kind: "mark"; mark: DecimalMark }
  | { kind: "ambiguous" }
  | { kind: "bad" };

/**
 * What a number cell says about the decimal mark. `12,50`, `0,5`, `1.234,56` and `1.234.567` can only be
 * decimal-comma writing; `12.50`, `1,234.56` and `1,234,567` only decimal-point; `1.234` and `1,234` are either
 * (a thousand and some, or one and a fraction), so they need the file's other numbers.
 */
function numberShape(value: string): NumberShape {
  if (/^-?\d+$/.test(value)) return { kind: "plain" };
  if (/^-?[1-9]\d{0,2}[.,]\d{3}$/.test(value)) return { kind: "ambiguous" };
  if (/^-?\d+,\d+$/.test(value)) return { kind: "mark", mark: "," };
  if (/^-?\d+\.\d+$/.test(value)) return { kind: "mark", mark: "." };
  if (/^-?[1-9]\d{0,2}(\.\d{3})+(,\d+)?$/.test(value)) return { kind: "mark", mark: "," };
  if (/^-?[1-9]\d{0,2}(,\d{3})+(\.\d+)?$/.test(value)) return { kind: "mark", mark: "." };
  return { kind: "bad" };
}

function numberValue(value: string, mark: DecimalMark): number {
  const thousands = mark === "," ? "." : ",";
  return Number(value.replaceAll(thousands, "").replace(mark, "."));
}

function cellValue(field: string, value: string): unknown {
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

/** A CSV file read: its separator, the decimal mark its numbers use (null: none says), and its products. */
export type CsvFile = { separator: Separator; decimalMark: DecimalMark | null; rows: ImportRow[] };

/**
 * CSV rows under a header row of field names; an empty cell leaves its field out. A row with more cells than the
 * header, a number cell that is not a number, one that could be read two ways while no other number of the file
 * settles the mark, or one whose mark differs from the file's, is kept back with a problem naming its row and
 * column.
 */
export function readCsv(text: string): CsvFile {
  const { separator, rows } = parseRecords(text);
  const [header, ...records] = rows;
  if (!header) return { separator, decimalMark: null, rows: [] };
  const fields = header.cells.map((name) => name.trim());
  // The decimal mark: the first number cell that can only be read one way fixes it for the whole file.
  let decided: { mark: DecimalMark; row: number; column: string } | null = null;
  for (const { row, cells } of records) {
    fields.forEach((field, index) => {
      if (decided || !NUMBER_FIELDS.has(field)) return;
      const shape = numberShape((cells[index] ?? "").trim());
      if (shape.kind === "mark") decided = { mark: shape.mark, row, column: field };
    });
    if (decided) break;
  }
  const mark = decided as { mark: DecimalMark; row: number; column: string } | null;
  const products = records.map(({ row, cells }): ImportRow => {
    const product: Record<string, unknown> = {};
    let problem: ImportProblem | null = null;
    const report = (found: ImportProblem) => {
      problem ??= found;
    };
    if (cells.length > fields.length && cells.slice(fields.length).some((value) => value.trim() !== "")) {
      report({ row, reason: "tooManyCells", cells: cells.length, columns: fields.length });
    }
    fields.forEach((field, index) => {
      const value = (cells[index] ?? "").trim();
      if (!field || value === "") return;
      if (!NUMBER_FIELDS.has(field)) {
        product[field] = cellValue(field, value);
        return;
      }
      const shape = numberShape(value);
      if (shape.kind === "plain") product[field] = Number(value);
      else if (shape.kind === "bad") {
        // The text stays, so the schema names the field too (never a silent zero).
        product[field] = value;
        report({ row, column: field, reason: "badNumber", value });
      } else if (!mark) {
        product[field] = value;
        report({ row, column: field, reason: "ambiguousNumber", value });
      } else if (shape.kind === "mark" && shape.mark !== mark.mark) {
        product[field] = value;
        report({
          row,
          column: field,
          reason: "mixedDecimalMarks",
          value,
          firstRow: mark.row,
          firstColumn: mark.column,
        });
      } else product[field] = numberValue(value, mark.mark);
    });
    return { row, product, problem };
  });
  return { separator, decimalMark: mark?.mark ?? null, rows: products };
}

/** The products of a CSV text (problems aside: `readCsv` has them). */
export function productsFromCsv(text: string): Array<Record<string, unknown>> {
  return readCsv(text).rows.map((row) => row.product);
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

function isJsonFile(name: string, text: string): boolean {
  return name.toLowerCase().endsWith(".json") || /^\s*[[{]/.test(withoutBom(text));
}

/** The products of a file, by its name (`.json`) or its first character. */
export function productsFromFile(name: string, text: string): Array<Record<string, unknown>> {
  return isJsonFile(name, text) ? productsFromJson(withoutBom(text)) : productsFromCsv(text);
}

/** The rows of a file: a CSV's at their spreadsheet rows (header = 1), a JSON array's items from 1. */
export function rowsFromFile(name: string, text: string): ImportRow[] {
  if (!isJsonFile(name, text)) return readCsv(text).rows;
  return productsFromJson(withoutBom(text)).map((product, index) => ({
    row: index + 1,
    product,
    problem: null,
  }));
}
