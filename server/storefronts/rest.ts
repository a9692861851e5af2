import { rejectedToRest } from "@/server/http/envelope";
import { defineRoute } from "@/server/http/route";
import { ListQuery } from "@/server/lib/pagination";
import { updateStorefront } from "./patch";
import { publishStorefront, unpublishStorefront } from "./publish";
import {
  CreateStorefrontInput,
  CreateStorefrontResponse,
  DeletedResponse,
  StorefrontList,
  StorefrontParams,
  StorefrontResponse,
  UpdateStorefrontInput,
} from "./schema";
import { createStorefront, deleteStorefront, getStorefront, listStorefronts } from "./service";

/**
 * The `updatedAt` an If-Match header names (docs/api.md, "Optimistic concurrency"): absent or `*` means no
 * condition; quotes and a weak `W/` prefix are dropped; anything else is handed on and never matches unless it
 * is that timestamp.
 */
function ifMatchTimestamp(header: string | null): string | null {
  if (header === null) return null;
  const value = header
    .trim()
    .replace(/^W\//, "")
    .replace(/^"(.*)"$/, "$1");
  return value === "*" ? null : value;
}

/** Storefront operations over /v1 (docs/api.md, "Storefronts"). Each handler calls one service function. */
export const storefrontRoutes = [
  defineRoute({
    operationId: "createStorefront",
    method: "POST",
    path: "/v1/storefronts",
    summary:
      "Create a storefront, with `whatsapp` and an optional `products` manifest (max 100). Products past the plan's limit are rejected one by one (207).",
    tags: ["storefronts"],
    auth: "key",
    body: CreateStorefrontInput,
    responses: {
      201: { description: "Storefront and every product created", schema: CreateStorefrontResponse },
      207: {
        description: "Storefront created; some products were over the plan limit (`rejected`)",
        schema: CreateStorefrontResponse,
      },
    },
    errors: ["plan_max_storefronts_reached", "slug_taken"],
    handler: async (ctx, { body }) => {
      const { rejected, ...created } = await createStorefront(ctx, body);
      return rejected
        ? { status: 207, body: { ...created, rejected: rejectedToRest(ctx, rejected) } }
        : { status: 201, body: created };
    },
  }),
  defineRoute({
    operationId: "listStorefronts",
    method: "GET",
    path: "/v1/storefronts",
    summary: "The account's storefronts, ordered by id (`limit` 1-100, default 20; `cursor`).",
    tags: ["storefronts"],
    auth: "key",
    query: ListQuery,
    responses: { 200: { description: "A page of storefronts", schema: StorefrontList } },
    handler: async (ctx, { query }) => ({ status: 200, body: await listStorefronts(ctx, query) }),
  }),
  defineRoute({
    operationId: "getStorefront",
    method: "GET",
    path: "/v1/storefronts/{storefrontId}",
    summary: "One storefront.",
    tags: ["storefronts"],
    auth: "key",
    params: StorefrontParams,
    responses: { 200: { description: "The storefront", schema: StorefrontResponse } },
    errors: ["storefront_deleted"],
    handler: async (ctx, { params }) => ({
      status: 200,
      body: { storefront: await getStorefront(ctx, params) },
    }),
  }),
  defineRoute({
    operationId: "updateStorefront",
    method: "PATCH",
    path: "/v1/storefronts/{storefrontId}",
    summary:
      "Deep-merge a change into a storefront; arrays replace. `whatsapp` and `products` are rejected. `If-Match: <updatedAt>` guards against lost updates (409).",
    tags: ["storefronts"],
    auth: "key",
    params: StorefrontParams,
    body: UpdateStorefrontInput,
    responses: { 200: { description: "The updated storefront", schema: StorefrontResponse } },
    errors: ["storefront_deleted", "storefront_conflict", "slug_taken"],
    handler: async (ctx, { params, body, headers }) => ({
      status: 200,
      body: {
        storefront: await updateStorefront(ctx, {
          storefrontId: params.storefrontId,
          patch: body,
          expectedUpdatedAt: ifMatchTimestamp(headers.get("if-match")),
        }),
      },
    }),
  }),
  defineRoute({
    operationId: "deleteStorefront",
    method: "DELETE",
    path: "/v1/storefronts/{storefrontId}",
    summary: "Delete a storefront (later calls on it answer 410 `storefront_deleted`).",
    tags: ["storefronts"],
    auth: "key",
    params: StorefrontParams,
    responses: { 200: { description: "Deleted", schema: DeletedResponse } },
    errors: ["storefront_deleted"],
    handler: async (ctx, { params }) => ({ status: 200, body: await deleteStorefront(ctx, params) }),
  }),
  defineRoute({
    operationId: "publishStorefront",
    method: "POST",
    path: "/v1/storefronts/{storefrontId}/publish",
    summary:
      "Publish a storefront: needs a verified account on a plan that can publish. Assigns a slug from the name if none is set.",
    tags: ["storefronts"],
    auth: "key",
    params: StorefrontParams,
    responses: { 200: { description: "The published storefront", schema: StorefrontResponse } },
    errors: ["storefront_deleted", "email_not_verified", "plan_cannot_publish", "slug_taken"],
    handler: async (ctx, { params }) => ({
      status: 200,
      body: { storefront: await publishStorefront(ctx, params) },
    }),
  }),
  defineRoute({
    operationId: "unpublishStorefront",
    method: "POST",
    path: "/v1/storefronts/{storefrontId}/unpublish",
    summary: "Unpublish a storefront (its slug is kept).",
    tags: ["storefronts"],
    auth: "key",
    params: StorefrontParams,
    responses: { 200: { description: "The unpublished storefront", schema: StorefrontResponse } },
    errors: ["storefront_deleted"],
    handler: async (ctx, { params }) => ({
      status: 200,
      body: { storefront: await unpublishStorefront(ctx, params) },
    }),
  }),
];
