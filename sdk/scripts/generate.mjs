// Generates src/schema.ts from an OpenAPI document (default ../openapi.json; a path or an http(s) URL such as
// http://localhost:3000/v1/openapi.json). sdk/test/generated.test.ts runs the same function on the document the
// service serves and compares, so a schema change without regenerating fails the tests.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";

export const SCHEMA_FILE = fileURLToPath(new URL("../src/schema.ts", import.meta.url));

/** The TypeScript source of `document`'s types (paths, operations, components, webhooks). */
export async function generateSchemaSource(document) {
  const ast = await openapiTS(document, { alphabetize: false, defaultNonNullable: false });
  return `${COMMENT_HEADER}${astToString(ast)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const source = process.argv[2] ?? fileURLToPath(new URL("../openapi.json", import.meta.url));
  const document = /^https?:/.test(source)
    ? await (await fetch(source)).json()
    : JSON.parse(readFileSync(source, "utf8"));
  writeFileSync(SCHEMA_FILE, await generateSchemaSource(document));
  process.stdout.write(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)}\n`);
}
