import { getOpenApiDocument } from "@/server/wiring/rest";

/**
 * The API reference's view of /v1/openapi.json (the very document the server serves): operations grouped by tag,
 * in the document's order, and the helpers that describe a JSON Schema in a line.
 */

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  example?: unknown;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

export type Parameter = {
  in: "path" | "query" | "header";
  name: string;
  required?: boolean;
  description?: string;
  schema: JsonSchema;
};

type Response = {
  description: string;
  content?: { "application/json"?: { schema: JsonSchema } };
  "x-error-codes"?: string[];
};

export type Operation = {
  method: string;
  path: string;
  operationId: string;
  summary?: string;
  description?: string;
  tags: string[];
  security: Array<Record<string, string[]>>;
  parameters: Parameter[];
  /** JSON for most operations; raw bytes or multipart for uploads (`POST /v1/files`). */
  requestBody?: { content: Record<string, { schema?: JsonSchema } | undefined> };
  responses: Record<string, Response>;
};

export type ApiDocument = {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Omit<Operation, "method" | "path">>>;
  webhooks: Record<string, { post: Omit<Operation, "method" | "path"> }>;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes: Record<
      string,
      { type: string; scheme?: string; in?: string; name?: string; description?: string }
    >;
  };
};

export function apiDocument(): ApiDocument {
  return getOpenApiDocument() as ApiDocument;
}

/** Every operation, grouped by its first tag, tags in the order they first appear. */
export function operationsByTag(doc: ApiDocument): Array<{ tag: string; operations: Operation[] }> {
  const groups = new Map<string, Operation[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const tag = operation.tags[0] ?? "other";
      const list = groups.get(tag) ?? [];
      list.push({ ...operation, parameters: operation.parameters ?? [], method: method.toUpperCase(), path });
      groups.set(tag, list);
    }
  }
  return [...groups].map(([tag, operations]) => ({ tag, operations }));
}

export function refName(ref: string): string {
  return ref.replace("#/components/schemas/", "");
}

/** The schema a `$ref` names, or the schema itself. */
export function resolve(schema: JsonSchema, doc: ApiDocument): JsonSchema {
  return schema.$ref ? (doc.components.schemas[refName(schema.$ref)] ?? schema) : schema;
}

const SAFE_INTEGER = 9007199254740991;

/** The limits worth telling (`1-100 characters`, `>= 0`); JavaScript's safe-integer bounds say nothing. */
export function constraintsOf(schema: JsonSchema): string[] {
  const out: string[] = [];
  const range = (min?: number, max?: number, unit = "") => {
    const hasMin = min !== undefined && Math.abs(min) !== SAFE_INTEGER;
    const hasMax = max !== undefined && Math.abs(max) !== SAFE_INTEGER;
    if (hasMin && hasMax) out.push(`${min}–${max}${unit}`);
    else if (hasMin) out.push(`≥ ${min}${unit}`);
    else if (hasMax) out.push(`≤ ${max}${unit}`);
  };
  range(schema.minimum, schema.maximum);
  if (schema.exclusiveMinimum !== undefined) out.push(`> ${schema.exclusiveMinimum}`);
  if (schema.exclusiveMaximum !== undefined) out.push(`< ${schema.exclusiveMaximum}`);
  range(schema.minLength, schema.maxLength, " chars");
  range(schema.minItems, schema.maxItems, " items");
  // A format says it better than its regular expression; very long expressions help nobody reading.
  if (schema.pattern && !schema.format && schema.pattern.length <= 60) out.push(`/${schema.pattern}/`);
  return out;
}

/** A JSON value for a "try it" body: required fields only, from examples, defaults, enums and types. */
export function exampleFor(schema: JsonSchema, doc: ApiDocument, depth = 0): unknown {
  const s = resolve(schema, doc);
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  const variants = s.anyOf ?? s.oneOf;
  if (variants?.length) {
    const first = variants.find((v) => v.type !== "null") ?? variants[0];
    return first ? exampleFor(first, doc, depth + 1) : null;
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  if (depth > 6) return null;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const name of s.required ?? []) {
        const property = s.properties?.[name];
        if (property) out[name] = exampleFor(property, doc, depth + 1);
      }
      return out;
    }
    case "array":
      return s.items && (s.minItems ?? 0) > 0 ? [exampleFor(s.items, doc, depth + 1)] : [];
    case "string":
      return s.format === "date-time"
        ? "2026-05-12T10:00:00.000Z"
        : s.format === "email"
          ? "you@example.com"
          : "";
    case "integer":
    case "number":
      return s.minimum !== undefined && Math.abs(s.minimum) !== SAFE_INTEGER ? s.minimum : 0;
    case "boolean":
      return false;
    default:
      return null;
  }
}

/** The path of one operation's anchor on /docs/api. */
export function operationAnchor(operationId: string): string {
  return `op-${operationId}`;
}

export function schemaAnchor(name: string): string {
  return `schema-${name}`;
}
