import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { printSchema } from "graphql";
import { schema } from "./graphql";

/**
 * `npm run graphql:schema` writes the printed schema to docs/schema.graphql (committed; schema.test.ts fails when
 * the code's schema differs from it).
 */
export const SCHEMA_FILE = fileURLToPath(new URL("../../docs/schema.graphql", import.meta.url));

export function printedSchema(): string {
  return `${printSchema(schema)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  writeFileSync(SCHEMA_FILE, printedSchema());
  process.stdout.write(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)}\n`);
}
