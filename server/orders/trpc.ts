import { z } from "zod";
import { ListQuery } from "@/server/lib/pagination";
import { listStorefronts } from "@/server/storefronts/service";
import { input, router, sessionProcedure } from "@/server/trpc/init";
import { payOrder, updateOrderStatus } from "./lifecycle";
import { OrderIdParams, OrdersTableQuery, PayOrderInput, UpdateOrderInput } from "./schema";
import { getOrder, listAccountOrders } from "./service";

/** The dashboard's order procedures (docs/ui.md, "Orders"): one line each over an order service. */
export const ordersRouter = router({
  list: sessionProcedure
    .input(input(OrdersTableQuery))
    .query(({ ctx, input }) => listAccountOrders(ctx.service, { ...input, newestFirst: true })),
  get: sessionProcedure.input(input(OrderIdParams)).query(({ ctx, input }) => getOrder(ctx.service, input)),
  updateStatus: sessionProcedure
    .input(input(z.strictObject({ ...OrderIdParams.shape, change: UpdateOrderInput })))
    .mutation(({ ctx, input }) => updateOrderStatus(ctx.service, input)),
  pay: sessionProcedure
    .input(input(z.strictObject({ ...OrderIdParams.shape, ...PayOrderInput.shape })))
    .mutation(({ ctx, input }) => payOrder(ctx.service, input)),
  /** The storefronts the filter offers, with the names and currencies the list shows. */
  storefronts: sessionProcedure
    .input(input(ListQuery))
    .query(({ ctx, input }) => listStorefronts(ctx.service, input)),
});
