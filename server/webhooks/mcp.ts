import { z } from "zod";
import { ListQuery } from "@/server/lib/pagination";
import { READ_ONLY, toolsFor } from "@/server/mcp/tool";
import { id } from "@/server/validation";
import { listDeliveries } from "./delivery-log";
import { listEndpoints } from "./endpoints";
import { WEBHOOK_OPERATIONS } from "./operations";
import { WebhookDeliveryList, WebhookEndpointList } from "./schema";

const tool = toolsFor(WEBHOOK_OPERATIONS);

/**
 * Webhook tools (docs/mcp.md, "Tools"): a developer key reads its developer endpoints (as over /v1); a user key or
 * an OAuth app reads the account's merchant endpoints (order.* of its own storefronts): the service's default
 * (server/webhooks/endpoint-scope.ts).
 */
export const webhookTools = [
  tool(
    "marea.list_webhook_endpoints",
    {
      title: "List webhook endpoints",
      description:
        "The account's webhook endpoints (URL, subscribed events, enabled), without signing secrets. Pass `nextCursor` as `cursor` for the next page.",
      operation: "listWebhookEndpoints",
      input: ListQuery,
      output: WebhookEndpointList,
      annotations: READ_ONLY,
    },
    (ctx, input) => listEndpoints(ctx, input),
  ),
  tool(
    "marea.list_deliveries",
    {
      title: "List webhook deliveries",
      description:
        "An endpoint's delivery log, newest first (at most 50, last 30 days): event, status, attempts and the receiver's answers.",
      operation: "listWebhookDeliveries",
      input: z.strictObject({
        endpointId: id(),
        limit: z.number().int().min(1).max(50).default(50),
      }),
      output: WebhookDeliveryList,
      annotations: READ_ONLY,
    },
    (ctx, input) => listDeliveries(ctx, input),
  ),
];
