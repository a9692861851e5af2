import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { gql } from "@/server/graphql/testing";
import { connectClient } from "@/server/mcp/testing";
import { createStorefrontWithProduct } from "@/server/orders/testing";
import { createMerchant } from "@/server/storefronts/testing";
import { call } from "@/server/testing/api";
import { TOOLS } from "@/server/wiring/mcp";

// docs/api.md, "Maxima": every text and every list an input carries has a declared maximum, in /v1/openapi.json
// (generated from the zod schemas that validate requests) and in the MCP tools' input schemas (the same zod
// schemas, or the tool's own). GraphQL parses its inputs with the same schemas (server/graphql/input.ts).

type JsonSchema = Record<string, unknown>;

/** Every string without `maxLength` (nor a fixed set of values) and every array without `maxItems`, by path. */
function unbounded(root: unknown, components: Record<string, unknown>, at: string): string[] {
  const found: string[] = [];
  const seen = new Set<unknown>();
  const walk = (node: unknown, path: string): void => {
    if (typeof node !== "object" || node === null) return;
    const schema = node as JsonSchema;
    if (typeof schema.$ref === "string") {
      const target = components[schema.$ref.split("/").at(-1) ?? ""];
      if (seen.has(target)) return;
      seen.add(target);
      walk(target, path);
      return;
    }
    const isFixed = "enum" in schema || "const" in schema;
    if (schema.type === "string" && !isFixed && typeof schema.maxLength !== "number") found.push(path);
    if (schema.type === "array" && typeof schema.maxItems !== "number") found.push(`${path}[]`);
    for (const key of ["anyOf", "oneOf", "allOf"]) {
      for (const [index, child] of ((schema[key] as unknown[]) ?? []).entries())
        walk(child, `${path}|${index}`);
    }
    for (const [name, child] of Object.entries((schema.properties as JsonSchema) ?? {})) {
      walk(child, `${path}.${name}`);
    }
    if (typeof schema.additionalProperties === "object") walk(schema.additionalProperties, `${path}.*`);
    if (schema.items) walk(schema.items, `${path}[]`);
  };
  walk(root, at);
  return found;
}

type Parameter = { name: string; in: string; schema: unknown };
type Operation = {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: unknown }> };
};

describe("M4: every input text and list has a maximum", () => {
  it("M4: /v1/openapi.json declares maxLength on every input string and maxItems on every input array", async () => {
    const { body } = await call<{
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, unknown> };
    }>("GET", "/v1/openapi.json");
    const found: string[] = [];
    for (const methods of Object.values(body.paths)) {
      for (const operation of Object.values(methods)) {
        // Every media type a body takes (JSON; and an upload's bytes, bounded by their size).
        for (const [type, media] of Object.entries(operation.requestBody?.content ?? {}))
          found.push(
            ...unbounded(media.schema, body.components.schemas, `${operation.operationId} body ${type}`),
          );
        for (const parameter of operation.parameters ?? []) {
          found.push(
            ...unbounded(
              parameter.schema,
              body.components.schemas,
              `${operation.operationId} ${parameter.name}`,
            ),
          );
        }
      }
    }
    expect(found).toEqual([]);
  });

  it("M4: every MCP tool's input schema declares the same maxima", () => {
    const found = TOOLS.flatMap((tool) =>
      unbounded(z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }), {}, tool.name),
    );
    expect(found).toEqual([]);
  });
});

describe("M4: the maxima hold on every door", () => {
  let merchant: Awaited<ReturnType<typeof createMerchant>>;
  let storefrontId: string;
  let mcp: Awaited<ReturnType<typeof connectClient>>;
  beforeAll(async () => {
    merchant = await createMerchant({ verified: true, plan: "PRO" });
    ({ storefrontId } = await createStorefrontWithProduct(merchant.userKey));
    mcp = await connectClient(merchant.userKey);
  });
  afterAll(async () => {
    await mcp.close();
  });

  const product = {
    title: "Pan",
    price: 10,
    tags: Array.from({ length: 51 }, (_, i) => `tag${i}`),
  };

  it("M4: 51 tags are refused on /v1 (param tags), GraphQL (param tags) and MCP alike", async () => {
    const rest = await call("POST", `/v1/storefronts/${storefrontId}/products`, {
      key: merchant.userKey,
      body: product,
    });
    expect(rest.status).toBe(400);
    expect(rest.body).toMatchObject({ error: { code: "invalid_request", param: "tags" } });
    const graph = await gql(
      `mutation($s: ID!, $input: ProductManifest!) { createProduct(storefrontId: $s, input: $input) { id } }`,
      { key: merchant.userKey, variables: { s: storefrontId, input: product } },
    );
    expect(graph.body.errors?.[0]?.extensions).toMatchObject({ code: "invalid_request", param: "tags" });
    const tool = (await mcp.callTool({
      name: "marea.create_product",
      arguments: { storefrontId, product },
    })) as { isError?: boolean; content: Array<{ text: string }> };
    expect(tool.isError).toBe(true);
    expect(JSON.parse(tool.content[0]?.text ?? "{}")).toMatchObject({ code: "invalid_request" });
  });

  it("M4: a product description over 5,000 characters, a group title over 200 and 21 groups are refused", async () => {
    const group = { title: "Size", obligatory: false, multipleOption: false, maxOptions: 1, minOptions: 0 };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ description: "d".repeat(5001) }, "description"],
      [{ extraProductsCategory: [{ ...group, title: "t".repeat(201) }] }, "extraProductsCategory[0].title"],
      [{ extraProductsCategory: Array.from({ length: 21 }, () => group) }, "extraProductsCategory"],
      [{ imageUrl: `https://cdn.example.com/${"a".repeat(2048)}.png` }, "imageUrl"],
    ];
    for (const [fields, param] of cases) {
      const rest = await call("POST", `/v1/storefronts/${storefrontId}/products`, {
        key: merchant.userKey,
        body: { title: "Pan", price: 10, ...fields },
      });
      expect(rest.body, param).toMatchObject({ error: { code: "invalid_request", param } });
    }
  });

  it("M4: storefront theme colours are hex, the font at most 60, biography 2,000, 201 categories and blocks over 64 KiB refused", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ branding: { theme: { primary: "red", secondary: "#fff", tertiary: "#000" } } }, "branding.theme"],
      [{ branding: { font: "f".repeat(61) } }, "branding.font"],
      [{ biography: { title: "Hola", description: "b".repeat(2001) } }, "biography"],
      [{ categories: Array.from({ length: 201 }, (_, i) => ({ name: `c${i}` })) }, "categories"],
      [{ categories: [{ name: "c".repeat(101) }] }, "categories[0].name"],
      [{ blocks: [{ text: "x".repeat(64 * 1024) }] }, "blocks"],
    ];
    for (const [patch, param] of cases) {
      const rest = await call("PATCH", `/v1/storefronts/${storefrontId}`, {
        key: merchant.userKey,
        body: patch,
      });
      expect(rest.status, param).toBe(400);
      const refused = (rest.body as { error: { param: string } }).error.param;
      expect(refused.startsWith(param), `${refused} for ${param}`).toBe(true);
    }
    const ok = await call("PATCH", `/v1/storefronts/${storefrontId}`, {
      key: merchant.userKey,
      body: {
        branding: { theme: { primary: "#0E7490", secondary: "#fff", tertiary: "#f59e0b" }, font: "Lora" },
      },
    });
    expect(ok.status).toBe(200);
  });
});
