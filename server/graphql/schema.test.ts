import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { printedSchema, SCHEMA_FILE } from "@/server/wiring/print-schema";

// docs/schema.graphql is the committed, printed schema (docs/graphql.md): clients and reviewers read it.

describe("the printed schema", () => {
  it("docs/schema.graphql is the code's schema (run `npm run graphql:schema` after changing it)", () => {
    expect(readFileSync(SCHEMA_FILE, "utf8")).toBe(printedSchema());
  });

  it("every object with an id is a Node; WebhookEndpoint never has a signingSecret field", () => {
    const printed = printedSchema();
    for (const type of ["Storefront", "Product", "WebhookEndpoint", "Delivery", "Order", "User"]) {
      expect(printed).toMatch(new RegExp(`type ${type} implements Node \\{`));
    }
    const endpoint = /type WebhookEndpoint implements Node \{[^}]*\}/.exec(printed)?.[0] ?? "";
    expect(endpoint).not.toMatch(/signingSecret:/);
  });
});
