import { z } from "zod";
import { ListQuery } from "@/server/lib/pagination";
import { READ_ONLY, toolsFor, writes } from "@/server/mcp/tool";
import { id } from "@/server/validation";
import { updateOrderStatus } from "./lifecycle";
import { ORDER_OPERATIONS } from "./operations";
import { OrderDto, UpdateOrderInput } from "./schema";
import { listOrders } from "./service";

const tool = toolsFor(ORDER_OPERATIONS);

/** Order tools (docs/mcp.md, "Tools"), as over /v1 (docs/api.md, "Orders"). */
export const orderTools = [
  tool(
    "marea.list_orders",
    {
      title: "List orders",
      description:
        "A storefront's orders, oldest first, with items, customer, totals and status. Pass `nextCursor` as `cursor` for the next page.",
      operation: "listOrders",
      input: ListQuery.extend({ storefrontId: id() }),
      output: z.object({ data: z.array(OrderDto), nextCursor: z.string().nullable() }),
      annotations: READ_ONLY,
    },
    (ctx, input) => listOrders(ctx, input),
  ),
  tool(
    "marea.update_order_status",
    {
      title: "Update an order's status",
      description:
        "Moves the order to a valid next `orderStatus` and/or sets a `customStatus`. A real change notifies the account's webhook endpoints (order.status_updated); cancelling puts the stock back.",
      operation: "updateOrderStatus",
      input: z.strictObject({ orderId: id(), change: UpdateOrderInput }),
      output: OrderDto,
      annotations: writes({ destructiveHint: true, idempotentHint: true, openWorldHint: true }),
    },
    (ctx, input) => updateOrderStatus(ctx, input),
  ),
];
