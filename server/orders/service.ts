import { and, asc, desc, eq, gt, inArray, lt, sql } from "drizzle-orm";
import type { ServiceContext } from "@/server/context";
import { AppError } from "@/server/errors";
import { inRequestedOrder, toPages } from "@/server/lib/batch";
import { decodeCursor, type ListQuery, type Page, toPage } from "@/server/lib/pagination";
import { findLiveStorefront, liveStorefrontsOf } from "@/server/storefronts/lookup";
import { storefronts } from "@/server/storefronts/tables";
import { toOrderDto } from "./dto";
import { authorize } from "./operations";
import type { OrderDto, OrderStatus, PaymentStatus } from "./schema";
import { orders } from "./tables";

/**
 * The merchant's reads of orders: one order, a storefront's, the account's, and the GraphQL loaders. Placing is
 * in place.ts, status changes and payment in lifecycle.ts, the customer's status page in public.ts.
 */

/** One order of the caller's account (GET /v1/orders/{orderId}). */
export async function getOrder(ctx: ServiceContext, input: { orderId: string }): Promise<OrderDto> {
  const actor = authorize(ctx, "getOrder");
  const { orderId } = input;
  const [row] = await ctx.db
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.accountId, actor.accountId)));
  if (!row) throw new AppError("order_not_found", { param: "orderId" });
  return toOrderDto(row);
}

/** A storefront's orders, newest ids last, cursor pagination (GET /v1/storefronts/{storefrontId}/orders). */
export async function listOrders(
  ctx: ServiceContext,
  input: { storefrontId: string } & ListQuery,
): Promise<Page<OrderDto>> {
  const actor = authorize(ctx, "listOrders");
  const { storefrontId, ...query } = input;
  await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId });
  const after = decodeCursor(query.cursor, "ord");
  const rows = await ctx.db
    .select()
    .from(orders)
    .where(
      and(
        eq(orders.storefrontId, storefrontId),
        eq(orders.accountId, actor.accountId),
        after ? gt(orders.id, after) : undefined,
      ),
    )
    .orderBy(asc(orders.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit, toOrderDto);
}

/** `getOrder` for many ids in ONE statement (the GraphQL loaders): per id, in order, the order or 404 `order_not_found`. */
export async function loadOrders(
  ctx: ServiceContext,
  input: { orderIds: readonly string[] },
): Promise<Array<OrderDto | AppError>> {
  const actor = authorize(ctx, "getOrder");
  const rows =
    input.orderIds.length === 0
      ? []
      : await ctx.db
          .select()
          .from(orders)
          .where(and(inArray(orders.id, [...input.orderIds]), eq(orders.accountId, actor.accountId)));
  return inRequestedOrder(
    input.orderIds,
    rows,
    (row) => row.id,
    toOrderDto,
    () => new AppError("order_not_found", { param: "orderId" }),
  );
}

/**
 * The orders of many storefronts, one page each, in ONE statement (GraphQL `Storefront.orders`), ordered by id
 * as `listOrders`; `cursor` applies to every storefront's list. A storefront that is not a live one of the
 * caller's account gets an empty page.
 */
export async function loadOrdersByStorefront(
  ctx: ServiceContext,
  input: { storefrontIds: readonly string[] } & ListQuery,
): Promise<Array<Page<OrderDto>>> {
  const actor = authorize(ctx, "listOrders");
  if (input.storefrontIds.length === 0) return [];
  const after = decodeCursor(input.cursor, "ord");
  const parent = liveStorefrontsOf(ctx.db, actor.accountId, input.storefrontIds).as("parent");
  const page = ctx.db
    .select()
    .from(orders)
    .where(
      and(
        eq(orders.storefrontId, parent.id),
        eq(orders.accountId, actor.accountId),
        after ? gt(orders.id, after) : undefined,
      ),
    )
    .orderBy(asc(orders.id))
    .limit(input.limit + 1)
    .as("page");
  const rows = await ctx.db.select().from(parent).innerJoinLateral(page, sql`true`);
  return toPages(
    input.storefrontIds,
    rows.map((row) => row.page),
    (row) => row.storefrontId,
    input.limit,
    toOrderDto,
  );
}

/**
 * The account's orders across its storefronts, ordered by id, cursor pagination (GraphQL `orders`, the dashboard's
 * orders page): optionally of one storefront (404 / 410 as `listOrders`), of one `orderStatus` and of one
 * `paymentStatus`; `newestFirst` walks the ids backwards (ids are in creation order). Orders of deleted storefronts
 * stay listed account-wide, as `getOrder` still answers them.
 */
export async function listAccountOrders(
  ctx: ServiceContext,
  input: {
    storefrontId?: string | null;
    status?: OrderStatus | null;
    paymentStatus?: PaymentStatus | null;
    newestFirst?: boolean;
  } & ListQuery,
): Promise<Page<OrderDto>> {
  const actor = authorize(ctx, "listOrders");
  if (input.storefrontId != null) {
    await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId: input.storefrontId });
  }
  const after = decodeCursor(input.cursor, "ord");
  const rows = await ctx.db
    .select()
    .from(orders)
    .where(
      and(
        eq(orders.accountId, actor.accountId),
        // orders has no index by account: reach the account's orders through its storefronts' index.
        input.storefrontId != null
          ? eq(orders.storefrontId, input.storefrontId)
          : inArray(
              orders.storefrontId,
              ctx.db
                .select({ id: storefronts.id })
                .from(storefronts)
                .where(eq(storefronts.accountId, actor.accountId)),
            ),
        input.status != null ? eq(orders.orderStatus, input.status) : undefined,
        input.paymentStatus != null ? eq(orders.paymentStatus, input.paymentStatus) : undefined,
        after ? (input.newestFirst ? lt(orders.id, after) : gt(orders.id, after)) : undefined,
      ),
    )
    .orderBy(input.newestFirst ? desc(orders.id) : asc(orders.id))
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toOrderDto);
}
