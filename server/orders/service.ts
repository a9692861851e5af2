import { and, asc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { authorize } from "@/server/accounts/authorize";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { inRequestedOrder, toPages } from "@/server/lib/batch";
import { newId } from "@/server/lib/ids";
import { decodeCursor, type ListQuery, type Page, toPage } from "@/server/lib/pagination";
import { products } from "@/server/products/tables";
import type { StorefrontRow } from "@/server/storefronts/dto";
import { MAX_AMOUNT } from "@/server/storefronts/fields";
import { findLiveStorefront, findPublishedStorefront } from "@/server/storefronts/lookup";
import { storefronts } from "@/server/storefronts/tables";
import { emitEvent } from "@/server/webhooks/events";
import { wakeDeliveries } from "@/server/webhooks/wake";
import { type OrderRow, toOrderDto } from "./dto";
import type {
  CreateOrderInput,
  CustomStatus,
  OrderDto,
  OrderStatus,
  PayOrderInput,
  UpdateOrderInput,
} from "./schema";
import { orders } from "./tables";

type OrderItem = OrderDto["items"][number];
type Fulfillment = OrderDto["fulfillment"];
type StoredDelivery = {
  enabled?: boolean;
  type?: "fixed" | "distance" | null;
  fixedPrice?: number | null;
  ranges?: Array<{ fromKm: number; toKm: number | null; price: number }> | null;
} | null;

/** Which orderStatus may follow which (docs/api.md, "Orders"); `delivered` and `cancelled` are final. */
export const ORDER_TRANSITIONS: Record<OrderStatus, OrderStatus[]> = {
  pending: ["accepted", "cancelled"],
  accepted: ["preparing", "ready", "cancelled"],
  preparing: ["ready", "cancelled"],
  ready: ["delivering", "delivered", "cancelled"],
  delivering: ["delivered", "cancelled"],
  delivered: [],
  cancelled: [],
};

const STATUS_LABELS: Record<string, Record<OrderStatus, string>> = {
  es: {
    pending: "Pendiente",
    accepted: "Aceptado",
    preparing: "En preparación",
    ready: "Listo",
    delivering: "En camino",
    delivered: "Entregado",
    cancelled: "Cancelado",
  },
  en: {
    pending: "Pending",
    accepted: "Accepted",
    preparing: "Preparing",
    ready: "Ready",
    delivering: "Out for delivery",
    delivered: "Delivered",
    cancelled: "Cancelled",
  },
  pt: {
    pending: "Pendente",
    accepted: "Aceito",
    preparing: "Em preparo",
    ready: "Pronto",
    delivering: "A caminho",
    delivered: "Entregue",
    cancelled: "Cancelado",
  },
};

function transitionDetail(from: OrderStatus, to: OrderStatus) {
  const allowed = ORDER_TRANSITIONS[from].join(", ");
  return {
    en: `${from} -> ${to} is not allowed; from ${from}: ${allowed || "none (final)"}.`,
    es: `${from} -> ${to} no está permitido; desde ${from}: ${allowed || "ninguno (final)"}.`,
    pt: `${from} -> ${to} não é permitido; a partir de ${from}: ${allowed || "nenhum (final)"}.`,
  };
}

/**
 * Every amount of an order fits the numeric(14, 4) columns (MAX_AMOUNT, docs/api.md "Hostile and malformed
 * input"): each line, the subtotal and the total. A line over it is 400 on `items[i].amount`, a sum on `items`.
 */
function checkOrderTotals(lines: Array<{ price: number; amount: number }>, deliveryPrice: number): void {
  const tooLarge = (param: string) =>
    new AppError("invalid_request", {
      param,
      detail: {
        en: `${param}: the order's amounts must not exceed ${MAX_AMOUNT}.`,
        es: `${param}: los importes del pedido no deben superar ${MAX_AMOUNT}.`,
        pt: `${param}: os valores do pedido não devem ultrapassar ${MAX_AMOUNT}.`,
      },
    });
  const line = lines.findIndex((item) => money(item.price * item.amount) > MAX_AMOUNT);
  if (line >= 0) throw tooLarge(`items[${line}].amount`);
  const subtotal = money(lines.reduce((sum, item) => sum + item.price * item.amount, 0));
  if (subtotal > MAX_AMOUNT || money(subtotal + deliveryPrice) > MAX_AMOUNT) throw tooLarge("items");
}

/** The order's lines at the catalog's current prices (a product not found counts 0: taking stock refuses it). */
async function linesAtCatalogPrices(
  db: Db,
  storefrontId: string,
  lines: CreateOrderInput["items"],
): Promise<Array<{ price: number; amount: number }>> {
  const rows = await db
    .select({ id: products.id, price: products.price, salePrice: products.salePrice })
    .from(products)
    .where(
      and(
        inArray(products.id, [...new Set(lines.map((line) => line.productId))]),
        eq(products.storefrontId, storefrontId),
      ),
    );
  const prices = new Map(rows.map((row) => [row.id, money(row.salePrice ?? row.price)]));
  return lines.map((line) => ({ price: prices.get(line.productId) ?? 0, amount: line.amount }));
}

/** Money is kept to 4 decimals, computed in integers of 1/10,000 so sums do not drift. */
function money(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/**
 * The status customers see: the merchant's custom one, or the order status's own name in the storefront's
 * language. Events always carry an object (docs/api.md, "Orders": `customStatus` is `{id, label}`).
 */
function effectiveCustomStatus(row: OrderRow, language: string): CustomStatus {
  const custom = row.customStatus as CustomStatus | null;
  if (custom) return custom;
  const status = row.orderStatus as OrderStatus;
  return { id: status, label: (STATUS_LABELS[language] ?? STATUS_LABELS.en)?.[status] ?? status };
}

/**
 * `data` of order.created (the base of order.paid), exactly its fields (docs/webhooks.md, "`data` by type").
 */
function orderEventData(row: OrderRow, language: string) {
  const dto = toOrderDto(row);
  return {
    orderId: dto.id,
    publicOrderId: dto.publicOrderId,
    userId: dto.userId,
    menuId: dto.storefrontId,
    orderStatus: dto.orderStatus,
    customStatus: effectiveCustomStatus(row, language),
    totalPrice: dto.totalPrice,
    subtotalPrice: dto.subtotalPrice,
    deliveryPrice: dto.deliveryPrice,
    currency: dto.currency,
    items: dto.items.map((item) => ({ title: item.title, amount: item.amount, price: item.price })),
    customer: dto.customer,
    paymentMethod: { name: dto.paymentMethod.name },
    paymentStatus: dto.paymentStatus,
    createdAt: dto.createdAt,
  };
}

/** deliveryPrice from the storefront's delivery settings (fixed price, or the distance range that applies). */
export function deliveryPriceFor(
  settings: { delivery: StoredDelivery; pickup: boolean | null; dineIn: boolean | null },
  fulfillment: Fulfillment,
): number {
  if (fulfillment.type === "pickup") {
    if (settings.pickup === false) {
      throw new AppError("invalid_request", {
        param: "fulfillment.type",
        detail: {
          en: "This storefront does not offer pickup.",
          es: "Esta tienda no ofrece recogida.",
          pt: "Esta loja não oferece retirada.",
        },
      });
    }
    return 0;
  }
  if (fulfillment.type === "dine_in") {
    if (settings.dineIn === false) {
      throw new AppError("invalid_request", {
        param: "fulfillment.type",
        detail: {
          en: "This storefront does not offer dine-in.",
          es: "Esta tienda no ofrece consumo en el local.",
          pt: "Esta loja não oferece consumo no local.",
        },
      });
    }
    return 0;
  }
  const delivery = settings.delivery;
  if (!delivery?.enabled) {
    throw new AppError("invalid_request", {
      param: "fulfillment.type",
      detail: {
        en: "This storefront does not deliver.",
        es: "Esta tienda no hace entregas a domicilio.",
        pt: "Esta loja não faz entregas.",
      },
    });
  }
  if (delivery.type === "fixed") return money(delivery.fixedPrice ?? 0);
  if (delivery.type !== "distance") return 0;
  if (fulfillment.distanceKm === null) {
    throw new AppError("invalid_request", {
      param: "fulfillment.distanceKm",
      detail: {
        en: "This storefront charges delivery by distance: send distanceKm.",
        es: "Esta tienda cobra la entrega por distancia: envía distanceKm.",
        pt: "Esta loja cobra a entrega por distância: envie distanceKm.",
      },
    });
  }
  const distance = fulfillment.distanceKm;
  const range = [...(delivery.ranges ?? [])]
    .sort((a, b) => a.fromKm - b.fromKm)
    .find((r) => distance >= r.fromKm && (r.toKm === null || distance <= r.toKm));
  if (!range) {
    throw new AppError("invalid_request", {
      param: "fulfillment.distanceKm",
      detail: {
        en: "The address is outside the delivery area.",
        es: "La dirección está fuera de la zona de entrega.",
        pt: "O endereço está fora da área de entrega.",
      },
    });
  }
  return money(range.price);
}

/**
 * A phone or counter order from the merchant (POST /v1/storefronts/{storefrontId}/orders; unpublished
 * storefronts too). See `placeOrder` for what every order goes through.
 */
export async function createOrder(
  ctx: ServiceContext,
  input: { storefrontId: string; order: CreateOrderInput },
): Promise<OrderDto> {
  const actor = authorize(ctx, "createOrder");
  return placeOrder(ctx, input.order, "api", (db) =>
    findLiveStorefront(db, { accountId: actor.accountId, storefrontId: input.storefrontId }),
  );
}

/**
 * A customer's order on the public storefront page (docs/api.md, "Public storefront"): no actor; the owner is
 * the storefront's account. Only a published, visible storefront takes orders (else 404, as its page).
 */
export async function placePublicOrder(
  ctx: ServiceContext,
  input: { slug: string; order: CreateOrderInput },
): Promise<OrderDto> {
  return placeOrder(ctx, input.order, "public", (db) => findPublishedStorefront(db, input.slug));
}

/**
 * Every order, whoever places it: prices come from the catalog (salePrice when set), stock is taken atomically
 * (a product with stock never goes below zero, however many orders race for it), totals and the delivery price
 * are computed here, and `order.created` is recorded in the same transaction.
 */
async function placeOrder(
  ctx: ServiceContext,
  input: CreateOrderInput,
  source: "api" | "public",
  findStorefront: (db: Db) => Promise<StorefrontRow>,
): Promise<OrderDto> {
  const now = ctx.now();
  const fulfillment: Fulfillment = {
    type: input.fulfillment?.type ?? "pickup",
    distanceKm: input.fulfillment?.distanceKm ?? null,
  };
  const created = await inTransaction(ctx.db, async (db) => {
    const storefront = await findStorefront(db);
    const deliveryPrice = deliveryPriceFor(
      {
        delivery: storefront.delivery as StoredDelivery,
        pickup: storefront.pickup,
        dineIn: storefront.dineIn,
      },
      fulfillment,
    );
    // Refused before anything is written, at the catalog's prices; checked again on the prices actually taken
    // (a concurrent price change in between).
    checkOrderTotals(await linesAtCatalogPrices(db, storefront.id, input.items), deliveryPrice);
    const items = await takeStock(db, storefront.id, input.items);
    checkOrderTotals(items, deliveryPrice);
    const subtotal = money(items.reduce((sum, item) => sum + item.price * item.amount, 0));
    const [counter] = await db
      .update(storefronts)
      .set({ orderCounter: sql`${storefronts.orderCounter} + 1` })
      .where(eq(storefronts.id, storefront.id))
      .returning({ publicOrderId: storefronts.orderCounter });
    if (!counter) throw new AppError("storefront_not_found", { param: "storefrontId" });
    const [row] = await db
      .insert(orders)
      .values({
        id: newId("ord"),
        publicOrderId: counter.publicOrderId,
        storefrontId: storefront.id,
        accountId: storefront.accountId,
        orderStatus: "pending",
        customStatus: null,
        items,
        customer: input.customer,
        paymentMethod: { name: input.paymentMethod.name },
        paymentStatus: "pending",
        fulfillment,
        subtotalPrice: subtotal,
        deliveryPrice,
        totalPrice: money(subtotal + deliveryPrice),
        currency: storefront.currency,
        source,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error("order insert returned no row");
    await emitEvent(
      db,
      { type: "order.created", data: orderEventData(row, storefront.language), accountId: row.accountId },
      now,
    );
    return row;
  });
  ctx.afterCommit(wakeDeliveries);
  return toOrderDto(created);
}

/**
 * Takes stock for every line with one conditional UPDATE per product (lines of the same product merged, in id
 * order so concurrent orders lock rows in the same order). Untracked stock (null) is not limited.
 */
async function takeStock(
  db: Db,
  storefrontId: string,
  lines: CreateOrderInput["items"],
): Promise<OrderItem[]> {
  const amounts = new Map<string, { amount: number; index: number }>();
  lines.forEach((line, index) => {
    const current = amounts.get(line.productId);
    amounts.set(line.productId, {
      amount: (current?.amount ?? 0) + line.amount,
      index: current?.index ?? index,
    });
  });
  const taken = new Map<string, { title: string; price: number }>();
  for (const [productId, { amount, index }] of [...amounts.entries()].sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    const [row] = await db
      .update(products)
      .set({
        stock: sql`case when ${products.stock} is null then null else ${products.stock} - ${amount} end`,
      })
      .where(
        and(
          eq(products.id, productId),
          eq(products.storefrontId, storefrontId),
          sql`(${products.stock} is null or ${products.stock} >= ${amount})`,
        ),
      )
      .returning({ title: products.title, price: products.price, salePrice: products.salePrice });
    if (!row) {
      const [exists] = await db
        .select({ stock: products.stock })
        .from(products)
        .where(and(eq(products.id, productId), eq(products.storefrontId, storefrontId)));
      if (!exists) throw new AppError("product_not_found", { param: `items[${index}].productId` });
      throw new AppError("insufficient_stock", {
        param: `items[${index}].amount`,
        detail: {
          en: `Only ${exists.stock ?? 0} left.`,
          es: `Solo quedan ${exists.stock ?? 0}.`,
          pt: `Restam apenas ${exists.stock ?? 0}.`,
        },
      });
    }
    taken.set(productId, { title: row.title, price: money(row.salePrice ?? row.price) });
  }
  return lines.map((line) => {
    const product = taken.get(line.productId);
    if (!product) throw new Error("stock taken for an unknown line");
    return { productId: line.productId, title: product.title, amount: line.amount, price: product.price };
  });
}

async function findOrderForUpdate(db: Db, orderId: string, accountId: string): Promise<OrderRow> {
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.accountId, accountId)))
    .for("update");
  if (!row) throw new AppError("order_not_found", { param: "orderId" });
  return row;
}

async function storefrontLanguage(db: Db, storefrontId: string): Promise<string> {
  const [row] = await db
    .select({ language: storefronts.language })
    .from(storefronts)
    .where(eq(storefronts.id, storefrontId));
  return row?.language ?? "es";
}

/**
 * Moves an order to a valid next orderStatus and/or sets a custom status (PATCH /v1/orders/{orderId}). A real
 * change records `order.status_updated` (slim: previous and new state) in the same transaction. Cancelling
 * puts the items' stock back.
 */
export async function updateOrderStatus(
  ctx: ServiceContext,
  args: { orderId: string; change: UpdateOrderInput },
): Promise<OrderDto> {
  const actor = authorize(ctx, "updateOrderStatus");
  const { orderId, change: input } = args;
  const now = ctx.now();
  const result = await inTransaction(ctx.db, async (db) => {
    const before = await findOrderForUpdate(db, orderId, actor.accountId);
    const previousStatus = before.orderStatus as OrderStatus;
    const nextStatus = input.orderStatus ?? previousStatus;
    if (nextStatus !== previousStatus && !ORDER_TRANSITIONS[previousStatus].includes(nextStatus)) {
      throw new AppError("invalid_order_transition", {
        param: "orderStatus",
        detail: transitionDetail(previousStatus, nextStatus),
      });
    }
    const nextCustom =
      input.customStatus === undefined ? (before.customStatus as CustomStatus | null) : input.customStatus;
    const isChanged =
      nextStatus !== previousStatus ||
      JSON.stringify(nextCustom) !== JSON.stringify(before.customStatus ?? null);
    if (!isChanged) return { row: before, emitted: false };
    const [after] = await db
      .update(orders)
      .set({ orderStatus: nextStatus, customStatus: nextCustom, updatedAt: now })
      .where(eq(orders.id, before.id))
      .returning();
    if (!after) throw new AppError("order_not_found", { param: "orderId" });
    if (nextStatus === "cancelled") await restock(db, before);
    const language = await storefrontLanguage(db, after.storefrontId);
    await emitEvent(
      db,
      {
        type: "order.status_updated",
        data: {
          orderId: after.id,
          publicOrderId: after.publicOrderId,
          userId: after.accountId,
          menuId: after.storefrontId,
          previousState: {
            orderStatus: previousStatus,
            customStatus: effectiveCustomStatus(before, language),
          },
          newState: { orderStatus: nextStatus, customStatus: effectiveCustomStatus(after, language) },
          updatedAt: now.toISOString(),
        },
        accountId: after.accountId,
      },
      now,
    );
    return { row: after, emitted: true };
  });
  if (result.emitted) ctx.afterCommit(wakeDeliveries);
  return toOrderDto(result.row);
}

async function restock(db: Db, order: OrderRow): Promise<void> {
  for (const item of order.items as OrderItem[]) {
    await db
      .update(products)
      // A stock raised meanwhile to the column's maximum stays there rather than overflow the integer.
      .set({ stock: sql`least(${products.stock}::bigint + ${item.amount}, 2147483647)::int` })
      .where(and(eq(products.id, item.productId), sql`${products.stock} is not null`));
  }
}

/**
 * Marks an order paid with its payment method (POST /v1/orders/{orderId}/pay) and records `order.paid` (the
 * order.created fields plus `paymentMethod.id` and `paidAt`). Paying twice: 409 `order_already_paid`; a
 * cancelled order cannot be paid.
 */
export async function payOrder(
  ctx: ServiceContext,
  args: { orderId: string } & PayOrderInput,
): Promise<OrderDto> {
  const actor = authorize(ctx, "payOrder");
  const { orderId, ...input } = args;
  const now = ctx.now();
  const paid = await inTransaction(ctx.db, async (db) => {
    const before = await findOrderForUpdate(db, orderId, actor.accountId);
    if (before.paymentStatus === "paid") throw new AppError("order_already_paid", { param: "orderId" });
    if (before.orderStatus === "cancelled") {
      throw new AppError("invalid_order_transition", {
        param: "orderId",
        detail: {
          en: "A cancelled order cannot be paid.",
          es: "Un pedido cancelado no se puede pagar.",
          pt: "Um pedido cancelado não pode ser pago.",
        },
      });
    }
    const paymentMethod = { id: input.paymentMethod.id ?? newId("pay"), name: input.paymentMethod.name };
    const [after] = await db
      .update(orders)
      .set({ paymentStatus: "paid", paymentMethod, paidAt: now, updatedAt: now })
      .where(eq(orders.id, before.id))
      .returning();
    if (!after) throw new AppError("order_not_found", { param: "orderId" });
    const language = await storefrontLanguage(db, after.storefrontId);
    await emitEvent(
      db,
      {
        type: "order.paid",
        data: { ...orderEventData(after, language), paymentMethod, paidAt: now.toISOString() },
        accountId: after.accountId,
      },
      now,
    );
    return after;
  });
  ctx.afterCommit(wakeDeliveries);
  return toOrderDto(paid);
}

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
  const parent = ctx.db
    .select({ id: storefronts.id })
    .from(storefronts)
    .where(
      and(
        inArray(storefronts.id, [...input.storefrontIds]),
        eq(storefronts.accountId, actor.accountId),
        isNull(storefronts.deletedAt),
      ),
    )
    .as("parent");
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
 * The account's orders across its storefronts, ordered by id, cursor pagination (GraphQL `orders`): optionally of
 * one storefront (404 / 410 as `listOrders`) and of one `orderStatus`. Orders of deleted storefronts stay listed
 * account-wide, as `getOrder` still answers them.
 */
export async function listAccountOrders(
  ctx: ServiceContext,
  input: { storefrontId?: string | null; status?: OrderStatus | null } & ListQuery,
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
        after ? gt(orders.id, after) : undefined,
      ),
    )
    .orderBy(asc(orders.id))
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toOrderDto);
}
