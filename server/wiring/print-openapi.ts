import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getOpenApiDocument } from "./rest";

/**
 * `npm run sdk:generate` first writes the document `/v1/openapi.json` serves to sdk/openapi.json, from which the SDK's
 * types are generated (sdk/README.md). sdk/test/generated.test.ts fails when either file differs from the code's.
 */
export const SDK_OPENAPI_FILE = fileURLToPath(new URL("../../sdk/openapi.json", import.meta.url));

export function printedOpenApi(): string {
  return `${JSON.stringify(getOpenApiDocument(), null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  writeFileSync(SDK_OPENAPI_FILE, printedOpenApi());
  process.stdout.write(`wrote ${path.relative(process.cwd(), SDK_OPENAPI_FILE)}\n`);
}
