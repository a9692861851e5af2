import { z } from "zod";
import { defineRoute } from "@/server/http/route";
import { ListQuery } from "@/server/lib/pagination";
import { payOrder, updateOrderStatus } from "./lifecycle";
import { createOrder } from "./place";
import {
  CreateOrderInput,
  OrderDto,
  OrderIdParams,
  PayOrderInput,
  StorefrontOrdersParams,
  UpdateOrderInput,
} from "./schema";
import { getOrder, listOrders } from "./service";

const OrderResponse = z.object({ order: OrderDto });

export const orderRoutes = [
  defineRoute({
    operationId: "createOrder",
    method: "POST",
    path: "/v1/storefronts/{storefrontId}/orders",
    summary:
      "Place a phone or counter order: prices from the catalog, stock taken atomically; fires order.created.",
    tags: ["orders"],
    auth: "key",
    params: StorefrontOrdersParams,
    body: CreateOrderInput,
    responses: { 201: { description: "Order placed", schema: OrderResponse } },
    errors: ["storefront_deleted", "product_not_found", "insufficient_stock"],
    handler: async (ctx, { params, body }) => ({
      status: 201,
      body: { order: await createOrder(ctx, { storefrontId: params.storefrontId, order: body }) },
    }),
  }),
  defineRoute({
    operationId: "listOrders",
    method: "GET",
    path: "/v1/storefronts/{storefrontId}/orders",
    summary: "The storefront's orders, oldest first, with cursor pagination.",
    tags: ["orders"],
    auth: "key",
    params: StorefrontOrdersParams,
    query: ListQuery,
    responses: {
      200: {
        description: "A page",
        schema: z.object({ data: z.array(OrderDto), nextCursor: z.string().nullable() }),
      },
    },
    errors: ["storefront_deleted"],
    handler: async (ctx, { params, query }) => ({
      status: 200,
      body: await listOrders(ctx, { ...params, ...query }),
    }),
  }),
  defineRoute({
    operationId: "getOrder",
    method: "GET",
    path: "/v1/orders/{orderId}",
    summary: "One order.",
    tags: ["orders"],
    auth: "key",
    params: OrderIdParams,
    responses: { 200: { description: "The order", schema: OrderResponse } },
    handler: async (ctx, { params }) => ({
      status: 200,
      body: { order: await getOrder(ctx, params) },
    }),
  }),
  defineRoute({
    operationId: "updateOrderStatus",
    method: "PATCH",
    path: "/v1/orders/{orderId}",
    summary: "Move the order to a valid next status and/or set a custom status; fires order.status_updated.",
    tags: ["orders"],
    auth: "key",
    params: OrderIdParams,
    body: UpdateOrderInput,
    responses: { 200: { description: "The order", schema: OrderResponse } },
    errors: ["invalid_order_transition"],
    handler: async (ctx, { params, body }) => ({
      status: 200,
      body: { order: await updateOrderStatus(ctx, { orderId: params.orderId, change: body }) },
    }),
  }),
  defineRoute({
    operationId: "payOrder",
    method: "POST",
    path: "/v1/orders/{orderId}/pay",
    summary: "Mark the order paid; fires order.paid.",
    tags: ["orders"],
    auth: "key",
    params: OrderIdParams,
    body: PayOrderInput,
    responses: { 200: { description: "The order", schema: OrderResponse } },
    errors: ["order_already_paid", "invalid_order_transition"],
    handler: async (ctx, { params, body }) => ({
      status: 200,
      body: { order: await payOrder(ctx, { ...params, ...body }) },
    }),
  }),
];
