import fc from "fast-check";
import type { z } from "zod";
import { ERROR_CATALOGUE, type ErrorCode, ErrorEnvelope, pickLanguage } from "@/server/errors";
import type { AnyRoute } from "@/server/http/route";

/**
 * Requests a hostile client would send, generated from /v1/openapi.json itself (docs/api.md, "Hostile and
 * malformed input"): for every operation, valid and mutated bodies, path ids, query strings and headers, plus
 * paths and methods that name no operation. `checkAnswer` says what is wrong with an answer. Used by the
 * property test (server/http/hostile.test.ts, in-process) and by bench/hostile.ts (over HTTP, `npm start`).
 */

type JsonSchema = { [key: string]: unknown };
type Parameter = { in: "path" | "query" | "header"; name: string; required?: boolean; schema: JsonSchema };
type ResponseObject = { "x-error-codes"?: string[]; content?: unknown };
type Operation = {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema } | undefined> };
  responses: Record<string, ResponseObject>;
  security?: Array<Record<string, string[]>>;
};
export type OpenApiDocument = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
};

/** What the generator may use: keys by kind and known ids by path parameter name. */
export type HostileFixtures = {
  keys: { developer: string; user: string };
  /** A key per operation where the usual one must not be used (e.g. a throwaway account for `cancelAccount`). */
  keyFor?: Record<string, string>;
  /** Ids per path parameter name (`storefrontId`, `productId`, `orderId`, `userId`, `id`): own and others'. */
  ids: Record<string, string[]>;
  /** Ids per operation and parameter where the usual ones must not be used (deletes get rows of their own). */
  idsFor?: Record<string, Record<string, string[]>>;
  /** Product ids for order lines. */
  productIds: string[];
};

export type GeneratedRequest = {
  /** The operation the request addresses, or null when its path or method names none. */
  operationId: string | null;
  method: string;
  /** Path and query, percent-encoded as sent. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** What was made hostile, for failure reports. */
  note: string;
};

/** Strings that must never reach the database as they are. */
const HOSTILE_STRINGS = [
  "a\u0000b",
  "\u0000",
  "a\ud800b",
  "\udc00",
  "\ud83d",
  "",
  " ",
  "<img src=x onerror=alert(1)>",
  "javascript:alert(1)",
  "%ZZ",
  "\u202eevil",
  "x".repeat(5000),
  "Ω≈ç√∫ 🍕 𝕏",
  "' or 1=1 --",
  "{{7*7}}",
  "\\u0000",
];
const HOSTILE_NUMBERS = [
  1e10,
  9_999_999_999.99995,
  10_000_000_000,
  9_999_999_999.9999,
  -1,
  -0.0001,
  0.00001,
  2 ** 31,
  2 ** 53 + 2,
  1e308,
  1.5,
];
const HOSTILE_SHAPES: unknown[] = [null, true, false, [], {}, "1", [null], { "": 1 }];
const HOSTILE_KEYS = ["\u0000", "a\ud800", "__proto__", "constructor", "", "extra"];

/** Raw bodies that are not the JSON an operation expects. */
const HOSTILE_RAW_BODIES = [
  "",
  "{",
  "null",
  "[]",
  '"text"',
  '{"a":1,}',
  "\ufeff{}",
  '{"name":"\\ud800"}',
  '{"name":"a\\u0000b"}',
  '{"title":"\\udfff","price":1}',
  '{"price":1e400}',
  '{"__proto__":{"polluted":true}}',
  `${"[".repeat(5000)}${"]".repeat(5000)}`,
  `{"blocks":${"[".repeat(100)}${"]".repeat(100)}}`,
];

/** Path segments where an id goes that cannot name any row. */
const HOSTILE_IDS = [
  "%00",
  "a%00b",
  "%ZZ",
  "%",
  "%C0%AE",
  "%E0%A4%A",
  "%ED%A0%80",
  "%FF",
  "a%2Fb",
  "%20",
  "%F0%9F%98%80",
  "x".repeat(300),
  "stf_01zzzzzzzzzzzzzzzzzzzzzzzz",
  "prd_01zzzzzzzzzzzzzzzzzzzzzzzz",
  "mk_we_0000000000000000",
  "'%20or%201=1",
];

const HOSTILE_IDEMPOTENCY_KEYS = ["k".repeat(256), "k".repeat(300), " ", "é-key", "hostile-reused"];
const IF_MATCH_VALUES = [
  "*",
  '"2026-01-01T00:00:00.000Z"',
  'W/"x"',
  "0000-01-01T00:00:00Z",
  "+275760-09-13T00:00:00.000Z",
  "-000001-01-01T00:00:00Z",
  "garbage",
  "9999-12-31T23:59:59.999Z",
];
const CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "",
];
const ACCEPT_LANGUAGES = ["en", "es", "pt", "pt-BR,pt;q=0.9", "fr", "es;q=0.1, pt;q=0.9", "*", ";;;,q=x"];

/** Every operation of the document with its method and path template. */
export function operationsOf(doc: OpenApiDocument): Array<{ method: string; path: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

/** Generated requests over every operation of `doc`, and some that name no operation. */
export function hostileRequests(
  doc: OpenApiDocument,
  fixtures: HostileFixtures,
): fc.Arbitrary<GeneratedRequest> {
  const operations = operationsOf(doc);
  return fc.oneof(
    {
      weight: 88,
      arbitrary: fc.oneof(
        ...operations.map(({ method, path, op }) => operationRequest(doc, method, path, op, fixtures)),
      ),
    },
    { weight: 12, arbitrary: strayRequest(operations, fixtures) },
  );
}

function operationRequest(
  doc: OpenApiDocument,
  method: string,
  template: string,
  op: Operation,
  fixtures: HostileFixtures,
): fc.Arbitrary<GeneratedRequest> {
  const parameters = op.parameters ?? [];
  const pathParams = parameters.filter((p) => p.in === "path");
  const queryParams = parameters.filter((p) => p.in === "query");
  const isIdempotent = parameters.some((p) => p.in === "header" && p.name === "Idempotency-Key");
  const bodySchema = op.requestBody?.content["application/json"]?.schema;
  return fc
    .record({
      segments: fc.tuple(
        ...pathParams.map((p) =>
          pathSegment(p.name, fixtures.idsFor?.[op.operationId]?.[p.name] ?? fixtures.ids[p.name] ?? []),
        ),
      ),
      query: queryString(doc, queryParams),
      body: bodySchema ? requestBody(doc, bodySchema, fixtures) : fc.constant({ raw: undefined, note: "" }),
      headers: requestHeaders(op, isIdempotent, fixtures),
    })
    .map(({ segments, query, body, headers }) => {
      let path = template;
      pathParams.forEach((p, i) => {
        path = path.replace(`{${p.name}}`, segments[i]?.segment ?? "x");
      });
      const notes = [...segments.map((s) => s.note), query.note, body.note, headers.note].filter(Boolean);
      return {
        operationId: op.operationId,
        method,
        path: `${path}${query.search}`,
        headers:
          body.raw === undefined
            ? headers.headers
            : { "content-type": "application/json", ...headers.headers },
        body: body.raw,
        note: notes.join("; "),
      };
    });
}

function pathSegment(name: string, known: string[]): fc.Arbitrary<{ segment: string; note: string }> {
  return fc.oneof(
    ...(known.length > 0
      ? [
          {
            weight: 8,
            arbitrary: fc.constantFrom(...known).map((id) => ({ segment: encodeURIComponent(id), note: "" })),
          },
        ]
      : []),
    {
      weight: 2,
      arbitrary: fc.constantFrom(...HOSTILE_IDS).map((segment) => ({ segment, note: `${name}=${segment}` })),
    },
    {
      weight: 1,
      arbitrary: fc
        .string({ unit: "grapheme", minLength: 1, maxLength: 20 })
        // `.` and `..` are path structure, not ids: URL parsing removes them (the stray requests try them).
        .filter((id) => id !== "." && id !== "..")
        .map((id) => ({ segment: encodeURIComponent(noReplacementChar(id)), note: `${name}=random` })),
    },
  );
}

function queryString(
  doc: OpenApiDocument,
  params: Parameter[],
): fc.Arbitrary<{ search: string; note: string }> {
  const valid = fc.tuple(
    ...params.map((p) =>
      fc.option(
        valueFor(doc, p.schema, {}, 0).map(
          (value) => `${encodeURIComponent(p.name)}=${encodeURIComponent(String(value))}`,
        ),
        { nil: undefined, freq: 2 },
      ),
    ),
  );
  const hostile = fc.oneof(
    fc.constantFrom(
      "foo=bar",
      "limit=-1",
      "limit=abc",
      "limit=1e3",
      "limit=",
      "limit=1&limit=2",
      "cursor=%00",
      "cursor=%ZZ",
      "cursor=%ED%A0%80",
      `cursor=${"c".repeat(600)}`,
      "%00=1",
      "%ZZ=1",
      "a[b]=1",
      "=",
      "&&&",
    ),
  );
  return fc.record({ valid, hostile: sometimes(hostile, 5) }).map(({ valid: parts, hostile: extra }) => {
    const all = [...parts.filter((p): p is string => p !== undefined), ...(extra ? [extra] : [])];
    return {
      search: all.length > 0 ? `?${all.join("&")}` : "",
      note: extra ? `query ${extra.slice(0, 40)}` : "",
    };
  });
}

/** `arbitrary` one time in `inverse`, else undefined. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, inverse: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: inverse - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

function requestHeaders(
  op: Operation,
  isIdempotent: boolean,
  fixtures: HostileFixtures,
): fc.Arbitrary<{ headers: Record<string, string>; note: string }> {
  const scopes = op.security?.[0] ? (Object.values(op.security[0])[0] ?? []) : [];
  const needsKey = (op.security?.length ?? 0) > 0;
  const kindKey = scopes.some((s) => s.startsWith("developer:"))
    ? fixtures.keys.developer
    : fixtures.keys.user;
  const ownKey = fixtures.keyFor?.[op.operationId] ?? kindKey;
  const otherKey = kindKey === fixtures.keys.developer ? fixtures.keys.user : fixtures.keys.developer;
  const authorization = needsKey
    ? fc.oneof(
        { weight: 16, arbitrary: fc.constant({ value: `Bearer ${ownKey}`, note: "" }) },
        { weight: 1, arbitrary: fc.constant({ value: `Bearer ${otherKey}`, note: "other kind of key" }) },
        { weight: 1, arbitrary: fc.constant({ value: undefined, note: "no key" }) },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom(
              "Bearer",
              "Bearer mk_user_",
              `Bearer mk_user_${"A".repeat(43)}`,
              "Basic Zm9vOmJhcg==",
              "Bearer a b",
            )
            .map((value) => ({ value, note: `authorization ${value.slice(0, 20)}` })),
        },
      )
    : fc.constant({ value: undefined, note: "" });
  const idempotencyKey = isIdempotent
    ? fc.oneof(
        { weight: 6, arbitrary: fc.constant({ value: undefined, note: "" }) },
        { weight: 3, arbitrary: fc.uuid().map((value) => ({ value, note: "" })) },
        {
          weight: 2,
          arbitrary: fc
            .constantFrom("reused-1", "reused-2")
            .map((value) => ({ value, note: `key ${value}` })),
        },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom(...HOSTILE_IDEMPOTENCY_KEYS)
            .map((value) => ({ value, note: `idempotency-key ${value.slice(0, 12)}(${value.length})` })),
        },
      )
    : fc.constant({ value: undefined, note: "" });
  return fc
    .record({
      authorization,
      idempotencyKey,
      language: fc.option(fc.constantFrom(...ACCEPT_LANGUAGES), { nil: undefined }),
      ifMatch: sometimes(fc.constantFrom(...IF_MATCH_VALUES), 6),
      contentType: sometimes(fc.constantFrom(...CONTENT_TYPES), 10),
    })
    .map(({ authorization: auth, idempotencyKey: key, language, ifMatch, contentType }) => {
      const headers: Record<string, string> = {};
      if (auth.value !== undefined) headers.authorization = auth.value;
      if (key.value !== undefined) headers["idempotency-key"] = key.value;
      if (language !== undefined) headers["accept-language"] = language;
      if (ifMatch !== undefined) headers["if-match"] = ifMatch;
      if (contentType !== undefined) headers["content-type"] = contentType;
      const notes = [auth.note, key.note, ifMatch ? `if-match ${ifMatch}` : ""].filter(Boolean);
      return { headers, note: notes.join(", ") };
    });
}

function requestBody(
  doc: OpenApiDocument,
  schema: JsonSchema,
  fixtures: HostileFixtures,
): fc.Arbitrary<{ raw: string | undefined; note: string }> {
  const valid = valueFor(doc, schema, fixtures, 0);
  return fc.oneof(
    { weight: 6, arbitrary: valid.map((value) => ({ raw: JSON.stringify(value), note: "" })) },
    {
      weight: 4,
      arbitrary: fc
        .record({ value: valid, at: fc.nat(), replacement: hostileValue(), asKey: fc.boolean() })
        .map(({ value, at, replacement, asKey }) => mutate(value, at, replacement, asKey)),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...HOSTILE_RAW_BODIES)
        .map((raw) => ({ raw, note: `raw body ${raw.slice(0, 30)}` })),
    },
    { weight: 1, arbitrary: fc.constant({ raw: undefined, note: "no body" }) },
  );
}

function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(...HOSTILE_NUMBERS),
    fc.constantFrom(...HOSTILE_SHAPES),
    fc.constantFrom(40, 200).map((depth) => nest(depth)),
    fc.jsonValue({ maxDepth: 2 }),
  );
}

function nest(depth: number): unknown {
  let value: unknown = "deep";
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { d: value };
  return value;
}

/** Replaces the value at the `at`-th place of `value` (or adds a hostile key there). */
function mutate(
  value: unknown,
  at: number,
  replacement: unknown,
  asKey: boolean,
): { raw: string; note: string } {
  const places: Array<{ path: Array<string | number>; value: unknown }> = [];
  const walk = (current: unknown, path: Array<string | number>) => {
    places.push({ path, value: current });
    if (Array.isArray(current)) {
      for (const [i, child] of current.entries()) walk(child, [...path, i]);
    } else if (current && typeof current === "object") {
      for (const [key, child] of Object.entries(current)) walk(child, [...path, key]);
    }
  };
  walk(value, []);
  const place = places[at % places.length] ?? { path: [], value };
  const copy = structuredClone(value) as unknown;
  const label = place.path.join(".") || "(body)";
  if (asKey && place.value && typeof place.value === "object" && !Array.isArray(place.value)) {
    const key = HOSTILE_KEYS[at % HOSTILE_KEYS.length] ?? "extra";
    const target = place.path.reduce<unknown>((node, k) => (node as Record<string, unknown>)[k], copy);
    (target as Record<string, unknown>)[key] = replacement;
    return { raw: JSON.stringify(copy), note: `key ${JSON.stringify(key)} added at ${label}` };
  }
  if (place.path.length === 0) return { raw: JSON.stringify(replacement), note: "body replaced" };
  const parent = place.path
    .slice(0, -1)
    .reduce<unknown>((node, k) => (node as Record<string, unknown>)[k], copy) as Record<
    string | number,
    unknown
  >;
  parent[place.path[place.path.length - 1] as string | number] = replacement;
  return { raw: JSON.stringify(copy), note: `${label} = ${JSON.stringify(replacement)?.slice(0, 40)}` };
}

/** Property names whose values should be usable, not random: so valid bodies reach the operations. */
function hinted(name: string | undefined, fixtures: Partial<HostileFixtures>): fc.Arbitrary<unknown> | null {
  if (name === "productId" && fixtures.productIds?.length) return fc.constantFrom(...fixtures.productIds);
  if (name === "email") return fc.nat().map((n) => `hostile-${n}@example.com`);
  if (name === "url") return fc.nat({ max: 999 }).map((n) => `https://hooks.example.com/h${n}`);
  if (name === "imageUrl" || name === "thumbnailUrl" || name === "logoUrl") {
    // Private addresses: the image task refuses them without a DNS lookup, so none is still running when the
    // run ends (and its database closes).
    return fc.constantFrom("https://10.0.0.1/a.png", "http://192.168.0.1/b.jpg");
  }
  if (name === "version") return fc.constantFrom("2026-05-12", "1999-01-01");
  if (name === "price" || name === "fixedPrice") {
    return fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 10, max: 500 }) },
      { weight: 1, arbitrary: fc.constantFrom(9_999_999_999, 0.5, 0) },
    );
  }
  if (name === "salePrice") {
    return fc.oneof(
      { weight: 3, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 9 }) },
    );
  }
  if (name === "minOptions") return fc.constant(0);
  if (name === "maxOptions") return fc.integer({ min: 0, max: 5 });
  if (name === "open" || name === "close") return fc.constantFrom("09:00", "18:30", "24:00", null);
  if (name === "ranges") {
    return fc.constantFrom(null, [
      { fromKm: 0, toKm: 5, price: 10 },
      { fromKm: 5, toKm: null, price: 25 },
    ]);
  }
  if (name === "slug") return fc.nat().map((n) => `s-${n}`);
  return null;
}

/** A value `schema` accepts (most of the time: `pattern` and cross-field rules are best effort). */
export function valueFor(
  doc: OpenApiDocument,
  schema: JsonSchema,
  fixtures: Partial<HostileFixtures>,
  depth: number,
  name?: string,
): fc.Arbitrary<unknown> {
  const resolved = resolve(doc, schema);
  const hint = hinted(name, fixtures);
  if (hint) return isNullable(resolved) ? fc.oneof(hint, fc.constant(null)) : hint;
  if ("const" in resolved) return fc.constant(resolved.const);
  if (Array.isArray(resolved.enum)) return fc.constantFrom(...(resolved.enum as unknown[]));
  if (Array.isArray(resolved.anyOf)) {
    return fc.oneof(
      ...(resolved.anyOf as JsonSchema[]).map((s) => valueFor(doc, s, fixtures, depth + 1, name)),
    );
  }
  if (resolved.not) return fc.constant(undefined);
  if (Array.isArray(resolved.type)) {
    return fc.oneof(
      ...resolved.type.map((type) => valueFor(doc, { ...resolved, type }, fixtures, depth, name)),
    );
  }
  switch (resolved.type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({
        min: typeof resolved.minimum === "number" ? resolved.minimum : -1000,
        max: typeof resolved.maximum === "number" ? Math.min(resolved.maximum, 2 ** 31 - 1) : 1000,
      });
    case "number": {
      const min = typeof resolved.minimum === "number" ? resolved.minimum : -1000;
      const max = typeof resolved.maximum === "number" ? resolved.maximum : 1000;
      return fc.oneof(
        fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, 1e6)) }),
        fc.constant(min),
      );
    }
    case "string":
      return stringOf(resolved);
    case "array": {
      if (depth > 6) return fc.constant([]);
      const items = (resolved.items as JsonSchema | undefined) ?? {};
      const minLength = typeof resolved.minItems === "number" ? resolved.minItems : 0;
      const maxLength = Math.max(
        minLength,
        Math.min(typeof resolved.maxItems === "number" ? resolved.maxItems : 3, 3),
      );
      return fc.array(valueFor(doc, items, fixtures, depth + 1, name), { minLength, maxLength });
    }
    case "object": {
      const properties = (resolved.properties as Record<string, JsonSchema> | undefined) ?? {};
      const required = new Set((resolved.required as string[] | undefined) ?? []);
      if (depth > 6) return fc.constant({});
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, property] of Object.entries(properties)) {
        const resolvedProperty = resolve(doc, property);
        if (resolvedProperty.not) continue;
        model[key] = valueFor(doc, property, fixtures, depth + 1, key);
      }
      return fc
        .record(model, { requiredKeys: [...required].filter((k) => k in model) })
        .map((record) => JSON.parse(JSON.stringify(record)) as unknown);
    }
    default:
      return fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown);
  }
}

function isNullable(schema: JsonSchema): boolean {
  return (schema.anyOf as JsonSchema[] | undefined)?.some((s) => s.type === "null") ?? false;
}

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === "uri")
    return fc.constantFrom("https://img.example.com/a.png", "https://example.com/");
  if (schema.format === "email") return fc.nat().map((n) => `u${n}@example.com`);
  if (typeof schema.pattern === "string") return fc.stringMatching(new RegExp(schema.pattern));
  const minLength = typeof schema.minLength === "number" ? schema.minLength : 0;
  const maxLength = Math.max(
    minLength,
    Math.min(typeof schema.maxLength === "number" ? schema.maxLength : 30, 30),
  );
  return fc
    .oneof(fc.string({ minLength, maxLength }), fc.string({ unit: "grapheme", minLength, maxLength }))
    .map(noReplacementChar)
    .filter(
      (s) =>
        [...s].length >= minLength &&
        s.length <= (typeof schema.maxLength === "number" ? schema.maxLength : Infinity),
    );
}

/** The generator never sends U+FFFD itself, so a stored U+FFFD can only be a surrogate the database replaced. */
function noReplacementChar(value: string): string {
  return value.replaceAll("\ufffd", "?");
}

function resolve(doc: OpenApiDocument, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let i = 0; i < 10 && typeof current.$ref === "string"; i++) {
    const name = current.$ref.replace("#/components/schemas/", "");
    const { $ref: _ref, ...rest } = current;
    current = { ...(doc.components.schemas[name] ?? {}), ...rest };
  }
  return current;
}

/** Paths and methods that name no operation: empty segments, malformed literals, dot segments, wrong methods. */
function strayRequest(
  operations: Array<{ method: string; path: string; op: Operation }>,
  fixtures: HostileFixtures,
): fc.Arbitrary<GeneratedRequest> {
  const storefrontId = fixtures.ids.storefrontId?.[0] ?? "stf_x";
  const paths = [
    "/v1/storefronts/",
    `/v1/storefronts/${storefrontId}/`,
    `/v1/storefronts/${storefrontId}/products/`,
    "/v1/me/",
    "/v1/",
    "/v1",
    "/v1/stor%ZZefronts",
    "/v1/%ZZ",
    "/v1/%",
    "/v1/%C0%AE",
    "/v1/STOREFRONTS",
    "/v1/nope",
    `/v1/storefronts/${storefrontId}/%2e%2e`,
    "/v1/storefronts/%2e%2e/products",
    "/v1/storefronts//products",
    `/v1/storefronts/${storefrontId}//products`,
    "/v1//storefronts",
    "/v1/me?%ZZ",
  ];
  return fc.oneof(
    fc
      .record({
        path: fc.constantFrom(...paths),
        method: fc.constantFrom("GET", "POST", "PATCH", "DELETE"),
        withKey: fc.boolean(),
      })
      .map(
        ({ path, method, withKey }): GeneratedRequest => ({
          operationId: null,
          method,
          path,
          headers: withKey
            ? { authorization: `Bearer ${fixtures.keys.user}` }
            : ({} as Record<string, string>),
          note: `stray ${method} ${path}`,
        }),
      ),
    fc.constantFrom(...operations).chain(({ path }) => {
      const allowed = operations.filter((o) => o.path === path).map((o) => o.method);
      const others = ["GET", "POST", "PATCH", "DELETE", "PUT"].filter((m) => !allowed.includes(m));
      return fc.constantFrom(...others).map(
        (method): GeneratedRequest => ({
          operationId: null,
          method,
          path: path.replace(/\{\w+\}/g, storefrontId),
          headers: { authorization: `Bearer ${fixtures.keys.user}` },
          note: `wrong method ${method} ${path}`,
        }),
      );
    }),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Checking an answer

export type Answer = { status: number; headers: Headers; text: string };

/**
 * What is wrong with `answer` to `request` (empty: nothing). Every answer carries X-Request-Id; none is a 5xx;
 * every non-2xx is the envelope with the same requestId, a code of the catalogue with its status, a code the
 * operation declares for that status, and a message in the language asked for; every 2xx is declared and
 * matches the operation's response schema.
 */
export function checkAnswer(
  doc: OpenApiDocument,
  routes: Map<string, AnyRoute>,
  request: GeneratedRequest,
  answer: Answer,
): string[] {
  const problems: string[] = [];
  const requestId = answer.headers.get("x-request-id");
  if (!requestId) problems.push("no X-Request-Id");
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  const operation = request.operationId ? findOperation(doc, request.operationId) : null;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    problems.push(`body is not JSON: ${answer.text.slice(0, 80)}`);
    return problems;
  }
  if (answer.status >= 200 && answer.status < 300) {
    if (!operation) return problems;
    if (!operation.responses[String(answer.status)]) problems.push(`status ${answer.status} not declared`);
    const schema = routes.get(request.operationId ?? "")?.responses[answer.status]?.schema as
      | z.ZodType
      | undefined;
    const parsed = schema?.safeParse(body);
    if (parsed && !parsed.success) {
      problems.push(
        `2xx body does not match its schema: ${parsed.error.issues[0]?.path.join(".")} ${parsed.error.issues[0]?.message}`,
      );
    }
    return problems;
  }
  const envelope = ErrorEnvelope.safeParse(body);
  if (!envelope.success) {
    problems.push(`not the error envelope: ${answer.text.slice(0, 120)}`);
    return problems;
  }
  const error = envelope.data.error;
  if (error.requestId !== requestId)
    problems.push(`requestId ${error.requestId} != X-Request-Id ${requestId}`);
  const entry = ERROR_CATALOGUE[error.code as ErrorCode];
  if (!entry) problems.push(`code ${error.code} is not in the catalogue`);
  else if (entry.status !== answer.status) problems.push(`code ${error.code} answered with ${answer.status}`);
  if (operation) {
    const declared = operation.responses[String(answer.status)];
    if (!declared)
      problems.push(`status ${answer.status} (${error.code}) not declared by ${request.operationId}`);
    else if (!declared["x-error-codes"]?.includes(error.code)) {
      problems.push(`code ${error.code} not declared by ${request.operationId} for ${answer.status}`);
    }
  }
  const language = pickLanguage(request.headers["accept-language"]);
  const isReplay = answer.headers.get("idempotent-replayed") === "true";
  if (
    entry &&
    !isReplay &&
    error.code !== "rate_limit_exceeded" &&
    !error.message.startsWith(entry.messages[language])
  ) {
    problems.push(`message not in ${language}: ${error.message.slice(0, 100)}`);
  }
  return problems;
}

function findOperation(doc: OpenApiDocument, operationId: string): Operation | null {
  for (const { op } of operationsOf(doc)) if (op.operationId === operationId) return op;
  return null;
}
