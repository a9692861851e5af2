import { describe, expect, it } from "vitest";
import { call } from "@/server/testing/api";

type Operation = {
  operationId: string;
  requestBody?: { content: { "application/json": { schema: unknown } } };
  responses: Record<string, { content?: { "application/json": { schema: unknown } } }>;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

/**
 * docs/api.md, "Versioning": every catalog operation appears in /v1/openapi.json with its request and
 * response schemas.
 */
const CATALOG_OPERATIONS: Array<[string, string, string, number, boolean]> = [
  ["createStorefront", "post", "/v1/storefronts", 201, true],
  ["listStorefronts", "get", "/v1/storefronts", 200, false],
  ["getStorefront", "get", "/v1/storefronts/{storefrontId}", 200, false],
  ["updateStorefront", "patch", "/v1/storefronts/{storefrontId}", 200, true],
  ["deleteStorefront", "delete", "/v1/storefronts/{storefrontId}", 200, false],
  ["publishStorefront", "post", "/v1/storefronts/{storefrontId}/publish", 200, false],
  ["unpublishStorefront", "post", "/v1/storefronts/{storefrontId}/unpublish", 200, false],
  ["createProduct", "post", "/v1/storefronts/{storefrontId}/products", 201, true],
  ["createProductsBatch", "post", "/v1/storefronts/{storefrontId}/products/batch", 201, true],
  ["listProducts", "get", "/v1/storefronts/{storefrontId}/products", 200, false],
  ["getProduct", "get", "/v1/storefronts/{storefrontId}/products/{productId}", 200, false],
  ["updateProduct", "patch", "/v1/storefronts/{storefrontId}/products/{productId}", 200, true],
  ["deleteProduct", "delete", "/v1/storefronts/{storefrontId}/products/{productId}", 200, false],
];

describe("GET /v1/openapi.json documents the catalog", () => {
  it.each(CATALOG_OPERATIONS)(
    "%s is at %s %s with its schemas",
    async (operationId, method, path, status, hasBody) => {
      const result = await call<Document>("GET", "/v1/openapi.json");
      expect(result.status).toBe(200);
      const operation = result.body.paths[path]?.[method];
      expect(operation?.operationId).toBe(operationId);
      expect(operation?.responses[String(status)]?.content?.["application/json"].schema).toBeDefined();
      if (hasBody) expect(operation?.requestBody?.content["application/json"].schema).toBeDefined();
    },
  );

  it("describes the Storefront object with every key required, and the exact enums", async () => {
    const { body } = await call<Document>("GET", "/v1/openapi.json");
    const storefront = body.components.schemas.Storefront as { required: string[] };
    expect(storefront.required).toHaveLength(19);
    const input = body.components.schemas.CreateStorefrontInput as {
      properties: {
        currency: { enum: string[] };
        businessType: { anyOf?: Array<{ enum?: string[] }>; enum?: string[] };
      };
    };
    expect(input.properties.currency.enum).toHaveLength(155);
    const businessTypes =
      input.properties.businessType.enum ?? input.properties.businessType.anyOf?.[0]?.enum;
    expect(businessTypes).toHaveLength(42);
    expect(businessTypes).toContain("Panadería y Repostería");
  });
});
