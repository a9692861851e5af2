import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { printedOpenApi, SDK_OPENAPI_FILE } from "@/server/wiring/print-openapi";
import { getOpenApiDocument } from "@/server/wiring/rest";
// @ts-expect-error: a plain ES module of the SDK's own (sdk/scripts), without type declarations.
import { generateSchemaSource, SCHEMA_FILE } from "../scripts/generate.mjs";

// sdk/README.md, "Regenerating": the SDK's types are generated from the document the service serves. When a schema
// changes, this fails until `npm run sdk:generate` is run and the diff committed; code using a changed field then
// fails the type-check (tsc covers sdk/).
describe("the SDK's generated types match /v1/openapi.json", () => {
  it("sdk/openapi.json is the document the service serves", () => {
    expect(readFileSync(SDK_OPENAPI_FILE, "utf8") === printedOpenApi(), "run `npm run sdk:generate`").toBe(
      true,
    );
  });

  it("sdk/src/schema.ts is what openapi-typescript generates from it", async () => {
    const generated: string = await generateSchemaSource(getOpenApiDocument());
    expect(readFileSync(SCHEMA_FILE, "utf8") === generated, "run `npm run sdk:generate`").toBe(true);
  }, 120_000);
});
