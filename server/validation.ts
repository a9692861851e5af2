import { z } from "zod";
import { AppError, type Language } from "@/server/errors";

const LOCALES = { es: z.locales.es(), en: z.locales.en(), pt: z.locales.pt() } as const;

/**
 * `delivery.ranges[1].fromKm` from a zod path (docs/api.md, "Request pipeline": `param` is the JSON path).
 */
export function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out;
}

/**
 * Parses `value` with `schema`; the first issue becomes a 400 `invalid_request` whose `param` is the JSON
 * path of the offending field (for an unknown field, the field itself) and whose message says what is wrong,
 * in the caller's language. `prefix` names where the value came from when it is not the body (e.g. query).
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, language: Language): z.output<S> {
  const result = schema.safeParse(value, { error: LOCALES[language].localeError });
  if (result.success) return result.data;
  throw validationError(result.error, language);
}

export function validationError(error: z.ZodError, _language: Language): AppError {
  const issue = error.issues[0];
  if (!issue) return new AppError("invalid_request");
  let path: PropertyKey[] = [...issue.path];
  if (issue.code === "unrecognized_keys" && issue.keys.length > 0) path = [...path, issue.keys[0] as string];
  const param = path.length > 0 ? jsonPath(path) : null;
  const detail = param ? `${param}: ${issue.message}` : issue.message;
  return new AppError("invalid_request", { param, detail });
}
