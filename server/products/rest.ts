import { rejectedToRest } from "@/server/http/envelope";
import { defineRoute } from "@/server/http/route";
import { ListQuery } from "@/server/lib/pagination";
import { DeletedResponse, StorefrontParams } from "@/server/storefronts/schema";
import {
  BatchCreateProductsInput,
  BatchCreateProductsResponse,
  ProductList,
  ProductManifest,
  ProductParams,
  ProductResponse,
  UpdateProductInput,
} from "./schema";
import {
  createProduct,
  createProducts,
  deleteProduct,
  getProduct,
  listProducts,
  planProductCreate,
  updateProduct,
} from "./service";

/** Product operations over /v1 (docs/api.md, "Products"). Each handler calls one service function. */
export const productRoutes = [
  defineRoute({
    operationId: "createProduct",
    method: "POST",
    path: "/v1/storefronts/{storefrontId}/products",
    summary:
      "Create a product. Over the plan's product limit: 402 `plan_max_products_reached`. Honours `Idempotency-Key`.",
    tags: ["products"],
    auth: "key",
    params: StorefrontParams,
    body: ProductManifest,
    responses: { 201: { description: "The product", schema: ProductResponse } },
    errors: ["storefront_deleted", "plan_max_products_reached"],
    // With an Idempotency-Key: the stored response goes into the insert's own statement.
    oneStatement: (ctx, { params, body }) => {
      const plan = planProductCreate(ctx, { storefrontId: params.storefrontId, product: body });
      return { reply: { status: 201, body: { product: plan.product } }, run: plan.run };
    },
    handler: async (ctx, { params, body }) => ({
      status: 201,
      body: { product: await createProduct(ctx, { storefrontId: params.storefrontId, product: body }) },
    }),
  }),
  defineRoute({
    operationId: "createProductsBatch",
    method: "POST",
    path: "/v1/storefronts/{storefrontId}/products/batch",
    summary:
      "Create up to 100 products in order. All created: 201; some past the plan's limit: 207 with `rejected` (`products_over_limit`).",
    tags: ["products"],
    auth: "key",
    params: StorefrontParams,
    body: BatchCreateProductsInput,
    responses: {
      201: { description: "Every product created", schema: BatchCreateProductsResponse },
      207: { description: "Some products were over the plan limit", schema: BatchCreateProductsResponse },
    },
    errors: ["storefront_deleted"],
    handler: async (ctx, { params, body }) => {
      const { rejected, ...created } = await createProducts(ctx, { ...params, ...body });
      return rejected
        ? { status: 207, body: { ...created, rejected: rejectedToRest(ctx, rejected) } }
        : { status: 201, body: created };
    },
  }),
  defineRoute({
    operationId: "listProducts",
    method: "GET",
    path: "/v1/storefronts/{storefrontId}/products",
    summary: "The storefront's products, ordered by id (`limit` 1-100, default 20; `cursor`).",
    tags: ["products"],
    auth: "key",
    params: StorefrontParams,
    query: ListQuery,
    responses: { 200: { description: "A page of products", schema: ProductList } },
    errors: ["storefront_deleted"],
    handler: async (ctx, { params, query }) => ({
      status: 200,
      body: await listProducts(ctx, { ...params, ...query }),
    }),
  }),
  defineRoute({
    operationId: "getProduct",
    method: "GET",
    path: "/v1/storefronts/{storefrontId}/products/{productId}",
    summary: "One product.",
    tags: ["products"],
    auth: "key",
    params: ProductParams,
    responses: { 200: { description: "The product", schema: ProductResponse } },
    errors: ["storefront_deleted"],
    handler: async (ctx, { params }) => ({ status: 200, body: { product: await getProduct(ctx, params) } }),
  }),
  defineRoute({
    operationId: "updateProduct",
    method: "PATCH",
    path: "/v1/storefronts/{storefrontId}/products/{productId}",
    summary: "Change any product field; omitted fields are untouched, null clears an optional field.",
    tags: ["products"],
    auth: "key",
    params: ProductParams,
    body: UpdateProductInput,
    responses: { 200: { description: "The updated product", schema: ProductResponse } },
    errors: ["storefront_deleted"],
    handler: async (ctx, { params, body }) => ({
      status: 200,
      body: { product: await updateProduct(ctx, { ...params, patch: body }) },
    }),
  }),
  defineRoute({
    operationId: "deleteProduct",
    method: "DELETE",
    path: "/v1/storefronts/{storefrontId}/products/{productId}",
    summary: "Delete a product.",
    tags: ["products"],
    auth: "key",
    params: ProductParams,
    responses: { 200: { description: "Deleted", schema: DeletedResponse } },
    errors: ["storefront_deleted"],
    handler: async (ctx, { params }) => ({ status: 200, body: await deleteProduct(ctx, params) }),
  }),
];
