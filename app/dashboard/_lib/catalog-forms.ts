import type { z } from "zod";
import type { Language } from "@/server/errors";
import { validationIssues } from "@/server/validation";

/**
 * Field errors of the products and orders forms (docs/ui.md, "Products"): keyed by the API's JSON path of the
 * field (`salePrice`, `extraProductsCategory[0].minOptions`), so a client-side check with the API's own schema and
 * a catalogue error's `param` from the server land on the same field.
 */
export type FieldErrors = Record<string, string>;

/** A procedure's input wraps the API body (`product`, `patch`, `change`): its `param` names the body's field. */
export function bodyParam(param: string | null | undefined, wrappers: string[]): string | null {
  if (!param) return null;
  for (const wrapper of wrappers) {
    if (param === wrapper) return null;
    if (param.startsWith(`${wrapper}.`)) return param.slice(wrapper.length + 1);
  }
  return param;
}

/** Every issue of `value` against the API's schema, one message per field (the first one for that field). */
export function checkWithSchema(schema: z.ZodType, value: unknown, language: Language): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of validationIssues(schema, value, language)) {
    const key = issue.param ?? "";
    if (!(key in errors)) errors[key] = issue.message;
  }
  return errors;
}

/** An amount in the storefront's currency and the reader's language. */
export function formatMoney(amount: number, currency: string, language: string): string {
  try {
    return new Intl.NumberFormat(language, { style: "currency", currency }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}
