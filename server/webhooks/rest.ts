import { defineRoute } from "@/server/http/route";
import { ListQuery } from "@/server/lib/pagination";
import { listDeliveries } from "./delivery-log";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateSigningSecret,
  sendTestEvent,
  updateEndpoint,
} from "./endpoints";
import { EventTypeList, listEventTypes } from "./event-schemas";
import {
  CreateWebhookEndpointInput,
  DeletedWebhookEndpoint,
  EndpointIdParams,
  ListDeliveriesQuery,
  TestFireInput,
  TestFireResponse,
  UpdateWebhookEndpointInput,
  WebhookDeliveryList,
  WebhookEndpointDto,
  WebhookEndpointList,
  WebhookEndpointWithSecretDto,
} from "./schema";

const tags = ["webhooks"];

/** Developer webhook endpoints over /v1 (docs/webhooks.md, "Endpoints"), and the event catalog for tools. */
export const webhookRoutes = [
  defineRoute({
    operationId: "createWebhookEndpoint",
    method: "POST",
    path: "/v1/webhook_endpoints",
    summary: "Register a webhook endpoint; the response carries its signingSecret, shown this once only.",
    tags,
    auth: "key",
    body: CreateWebhookEndpointInput,
    responses: { 201: { description: "Endpoint created", schema: WebhookEndpointWithSecretDto } },
    errors: ["invalid_webhook_url", "webhook_endpoint_limit_reached"],
    handler: async (ctx, { body }) => ({ status: 201, body: await createEndpoint(ctx, { endpoint: body }) }),
  }),
  defineRoute({
    operationId: "listWebhookEndpoints",
    method: "GET",
    path: "/v1/webhook_endpoints",
    summary: "List the account's developer webhook endpoints, ordered by id.",
    tags,
    auth: "key",
    query: ListQuery,
    responses: { 200: { description: "A page of endpoints", schema: WebhookEndpointList } },
    handler: async (ctx, { query }) => ({ status: 200, body: await listEndpoints(ctx, query) }),
  }),
  defineRoute({
    operationId: "getWebhookEndpoint",
    method: "GET",
    path: "/v1/webhook_endpoints/{id}",
    summary: "Get one webhook endpoint (without its secret).",
    tags,
    auth: "key",
    params: EndpointIdParams,
    responses: { 200: { description: "The endpoint", schema: WebhookEndpointDto } },
    handler: async (ctx, { params }) => ({
      status: 200,
      body: await getEndpoint(ctx, { endpointId: params.id }),
    }),
  }),
  defineRoute({
    operationId: "updateWebhookEndpoint",
    method: "POST",
    path: "/v1/webhook_endpoints/{id}",
    summary: "Partially update an endpoint: url, description, enabled (pause/resume), subscribedEvents.",
    tags,
    auth: "key",
    params: EndpointIdParams,
    body: UpdateWebhookEndpointInput,
    responses: { 200: { description: "The updated endpoint (no secret)", schema: WebhookEndpointDto } },
    errors: ["invalid_webhook_url"],
    handler: async (ctx, { params, body }) => ({
      status: 200,
      body: await updateEndpoint(ctx, { endpointId: params.id, patch: body }),
    }),
  }),
  defineRoute({
    operationId: "deleteWebhookEndpoint",
    method: "DELETE",
    path: "/v1/webhook_endpoints/{id}",
    summary: "Delete an endpoint permanently, with its delivery log and pending deliveries.",
    tags,
    auth: "key",
    params: EndpointIdParams,
    responses: { 200: { description: "Deleted", schema: DeletedWebhookEndpoint } },
    handler: async (ctx, { params }) => ({
      status: 200,
      body: await deleteEndpoint(ctx, { endpointId: params.id }),
    }),
  }),
  defineRoute({
    operationId: "rotateWebhookSigningSecret",
    method: "POST",
    path: "/v1/webhook_endpoints/{id}/rotate-secret",
    summary: "Replace the signing secret (signingSecretVersion +1); the old secret stops at once.",
    tags,
    auth: "key",
    params: EndpointIdParams,
    responses: {
      200: { description: "The endpoint with its new secret", schema: WebhookEndpointWithSecretDto },
    },
    handler: async (ctx, { params }) => ({
      status: 200,
      body: await rotateSigningSecret(ctx, { endpointId: params.id }),
    }),
  }),
  defineRoute({
    operationId: "listWebhookDeliveries",
    method: "GET",
    path: "/v1/webhook_endpoints/{id}/deliveries",
    summary: "The endpoint's delivery log: the last 50 deliveries (30-day retention), newest first.",
    tags,
    auth: "key",
    params: EndpointIdParams,
    query: ListDeliveriesQuery,
    responses: { 200: { description: "Deliveries", schema: WebhookDeliveryList } },
    handler: async (ctx, { params, query }) => ({
      status: 200,
      body: await listDeliveries(ctx, { endpointId: params.id, ...query }),
    }),
  }),
  defineRoute({
    operationId: "sendTestWebhook",
    method: "POST",
    path: "/v1/webhook_endpoints/{id}/test",
    summary: "Send a sample event of the given type, with `__test: true`, to this endpoint only.",
    tags,
    auth: "key",
    params: EndpointIdParams,
    body: TestFireInput,
    responses: { 202: { description: "Queued for delivery", schema: TestFireResponse } },
    errors: ["webhook_endpoint_paused", "webhook_action_rate_limited"],
    handler: async (ctx, { params, body }) => ({
      status: 202,
      body: await sendTestEvent(ctx, { endpointId: params.id, ...body }),
    }),
  }),
  // Public like /v1/openapi.json, whose `webhooks` section holds the same schemas: no key, not rate limited
  // (docs/webhooks.md, "Event types for tools").
  defineRoute({
    operationId: "listEventTypes",
    method: "GET",
    path: "/v1/event_types",
    summary: "The webhook event types, each with the JSON Schema of its envelope.",
    tags,
    auth: "none",
    responses: { 200: { description: "Every event type", schema: EventTypeList } },
    handler: async () => ({ status: 200, body: listEventTypes() }),
  }),
];
