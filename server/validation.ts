import { z } from "zod";
import { AppError, type ErrorCode, type Language, type Messages } from "@/server/errors";

const LOCALES = { es: z.locales.es(), en: z.locales.en(), pt: z.locales.pt() } as const;

/**
 * The language of the parse running now. `parseInput` sets it around `safeParse`, which is synchronous, so no
 * other request can run in between; outside `parseInput` (a form in the browser, a test) it is English.
 */
let parseLanguage: Language = "en";

/** A custom validation message in the language of the parse running now (for `ctx.addIssue`). */
export function localized(messages: Messages): string {
  return messages[parseLanguage];
}

/** A schema's custom message (`{ error: localizedError({...}) }`), in the language of the parse running now. */
export function localizedError(messages: Messages): () => string {
  return () => messages[parseLanguage];
}

/** `delivery.ranges[1].fromKm` from a zod path (docs/api.md, "Request pipeline": `param` is the JSON path). */
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
  // The issues are read inside too: zod writes their messages when they are first read.
  return parseIn(language, () => {
    const result = schema.safeParse(value, { error: LOCALES[language].localeError });
    if (result.success) return result.data;
    throw validationError(result.error, language);
  });
}

function parseIn<T>(language: Language, parse: () => T): T {
  const outer = parseLanguage;
  parseLanguage = language;
  try {
    return parse();
  } finally {
    parseLanguage = outer;
  }
}

export function validationError(error: z.ZodError, language: Language): AppError {
  const issue = error.issues[0];
  if (!issue) return new AppError("invalid_request");
  let path: PropertyKey[] = [...issue.path];
  if (issue.code === "unrecognized_keys" && issue.keys.length > 0) path = [...path, issue.keys[0] as string];
  const param = path.length > 0 ? jsonPath(path) : null;
  // The issue's message is in `language` (zod's locale, or our own localized messages): so is the detail.
  return new AppError("invalid_request", {
    param,
    detail: { [language]: param ? `${param}: ${issue.message}` : issue.message },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Text every schema shares (docs/api.md, "Hostile and malformed input"). Every string an input carries to the
// database goes through `text()` (or a helper built on it), whatever the door: REST, tRPC, GraphQL and MCP parse
// with the same schemas, so they refuse the same strings with the same `param`.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when `value` is text PostgreSQL can keep as sent: no NUL (text and jsonb refuse it) and no unpaired
 * surrogate (jsonb refuses `\ud800`; a text column would store U+FFFD in its place, so the value read back would
 * differ from the one written).
 */
export function isCleanText(value: string): boolean {
  return !value.includes("\u0000") && !LONE_SURROGATE.test(value);
}

export const NOT_TEXT_MESSAGES: Messages = {
  en: "must be valid Unicode text without NUL characters or unpaired surrogates",
  es: "debe ser texto Unicode válido, sin caracteres NUL ni sustitutos sin pareja",
  pt: "deve ser texto Unicode válido, sem caracteres NUL nem substitutos sem par",
};

/** A string that reaches the database: NUL characters and unpaired surrogates are a 400 with the field's `param`. */
export function text(options: { min?: number; max?: number } = {}) {
  let schema = z.string();
  if (options.min !== undefined) schema = schema.min(options.min);
  if (options.max !== undefined) schema = schema.max(options.max);
  return schema.refine(isCleanText, { error: localizedError(NOT_TEXT_MESSAGES) });
}

/** How deep a free-form JSON value (`blocks`) may nest: deeper documents are a 400, never a database error. */
export const MAX_JSON_DEPTH = 32;

/**
 * Any JSON value kept as sent (a storefront's `blocks`): every string and every object key must be clean text
 * (`isCleanText`), and arrays and objects nest at most `MAX_JSON_DEPTH` levels. Walked without recursion, so
 * no document can exhaust the stack.
 */
export function jsonValue() {
  return z.unknown().superRefine((value, ctx) => {
    const problem = findJsonProblem(value);
    if (problem) ctx.addIssue({ code: "custom", path: problem.path, message: problem.message });
  });
}

function findJsonProblem(value: unknown): { path: PropertyKey[]; message: string } | null {
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value, path: [] }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { value: current, path } = item;
    if (typeof current === "string") {
      if (!isCleanText(current)) return { path, message: localized(NOT_TEXT_MESSAGES) };
      continue;
    }
    if (typeof current !== "object" || current === null) continue;
    if (path.length >= MAX_JSON_DEPTH) {
      return {
        path,
        message: localized({
          en: `must not nest more than ${MAX_JSON_DEPTH} levels`,
          es: `no debe anidar más de ${MAX_JSON_DEPTH} niveles`,
          pt: `não deve aninhar mais de ${MAX_JSON_DEPTH} níveis`,
        }),
      };
    }
    const entries: Iterable<[PropertyKey, unknown]> = Array.isArray(current)
      ? current.entries()
      : Object.entries(current);
    for (const [key, child] of entries) {
      if (typeof key === "string" && !isCleanText(key)) {
        return { path: [...path, key], message: localized(NOT_TEXT_MESSAGES) };
      }
      stack.push({ value: child, path: [...path, key] });
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Ids: one rule for every door (docs/api.md, "Hostile and malformed input")

/** No Marea id is longer (`stf_` + a ULID is 30 characters; an endpoint's `mk_we_` + 16 hex, 22). */
export const MAX_ID_LENGTH = 64;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what an id must not hold
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

const NOT_ID_MESSAGES: Messages = {
  en: "must be an id: no control characters",
  es: "debe ser un id: sin caracteres de control",
  pt: "deve ser um id: sem caracteres de controle",
};

/**
 * An id, whatever the door carries it in (a /v1 path, a tRPC or MCP argument, a GraphQL `ID`): 1-64 characters
 * of clean text (`text()`) without control characters. What a door answers for an id this refuses is the door's
 * (/v1: the resource's 404, see `pathId`; tRPC, GraphQL and MCP: 400 `invalid_request` naming the argument); an
 * id it accepts is looked up, and one that names no row of the caller's is the resource's 404 everywhere.
 */
export function id() {
  return text({ min: 1, max: MAX_ID_LENGTH }).refine((value) => !CONTROL_CHARACTER.test(value), {
    error: localizedError(NOT_ID_MESSAGES),
  });
}

// Ids in paths

/** Which catalogue code answers a path id that cannot name a row (see `pathId`). */
const PATH_IDS = z.registry<{ notFound: ErrorCode }>();

/**
 * An id taken from a URL path (`id()`). One that cannot name any row (empty, over 64 characters, not clean text,
 * a control character, or a path segment that was not valid percent-encoded UTF-8) answers the resource's own 404
 * (`notFound`), as an id that names no row does: it never reaches the database (docs/api.md, "Hostile and
 * malformed input").
 */
export function pathId(notFound: ErrorCode, description?: string) {
  let schema = id();
  if (description) schema = schema.meta({ description });
  PATH_IDS.add(schema, { notFound });
  return schema;
}

/** The 404 code of a path parameter declared with `pathId`, or undefined. */
export function notFoundCodeOf(params: z.ZodType, name: string): ErrorCode | undefined {
  const field = params instanceof z.ZodObject ? (params.shape as Record<string, z.ZodType>)[name] : undefined;
  return field ? PATH_IDS.get(field)?.notFound : undefined;
}

/**
 * Parses the path parameters of a route. A parameter the router could not decode arrives as `undefined`; it
 * and any id `pathId` refuses answer the resource's 404 with `param` = the parameter's name.
 */
export function parsePathParams<S extends z.ZodType>(
  schema: S,
  params: Record<string, string | undefined>,
  language: Language,
): z.output<S> {
  return parseIn(language, () => {
    const result = schema.safeParse(params);
    if (result.success) return result.data;
    const name = result.error.issues[0]?.path[0];
    const notFound = typeof name === "string" ? notFoundCodeOf(schema, name) : undefined;
    if (notFound && typeof name === "string") throw new AppError(notFound, { param: name });
    throw validationError(result.error, language);
  });
}

/**
 * Every issue of `value` against `schema`, each as `{ param, message }` in `language`: what a dashboard form shows
 * next to each field before it sends (docs/ui.md, "Products"). The same schema and messages as `parseInput`, which
 * the server runs again and answers with the first issue only.
 */
export function validationIssues(
  schema: z.ZodType,
  value: unknown,
  language: Language,
): Array<{ param: string | null; message: string }> {
  return parseIn(language, () => {
    const result = schema.safeParse(value, { error: LOCALES[language].localeError });
    if (result.success) return [];
    return result.error.issues.map((issue) => {
      let path: PropertyKey[] = [...issue.path];
      if (issue.code === "unrecognized_keys" && issue.keys.length > 0)
        path = [...path, issue.keys[0] as string];
      return { param: path.length > 0 ? jsonPath(path) : null, message: issue.message };
    });
  });
}
