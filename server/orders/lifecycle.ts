import { and, asc, eq, lt } from "drizzle-orm";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import { notifyStorefrontChanged, storefrontChangedAfterCommit } from "@/server/storefronts/changes";
import { storefronts } from "@/server/storefronts/tables";
import { emitEvent } from "@/server/webhooks/events";
import { wakeDeliveries } from "@/server/webhooks/wake";
import { type OrderRow, toOrderDto } from "./dto";
import { PUBLIC_ORDER_LIMITS } from "./limits";
import { authorize } from "./operations";
import { lineTitle } from "./options";
import type { CustomStatus, OrderDto, OrderStatus, PayOrderInput, UpdateOrderInput } from "./schema";
import { restock } from "./stock";
import { orders } from "./tables";

/**
 * An order after it is placed: its status moves (the merchant's PATCH, the expiry of unaccepted public orders)
 * and it is paid. Also the event payloads and the status names customers see, which placing and the status page
 * share.
 */

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
 * The status customers see: the merchant's custom one, or the order status's own name in the storefront's
 * language. Events always carry an object (docs/api.md, "Orders": `customStatus` is `{id, label}`).
 */
export function effectiveCustomStatus(row: OrderRow, language: string): CustomStatus {
  const custom = row.customStatus as CustomStatus | null;
  if (custom) return custom;
  const status = row.orderStatus as OrderStatus;
  return { id: status, label: (STATUS_LABELS[language] ?? STATUS_LABELS.en)?.[status] ?? status };
}

/**
 * `data` of order.created (the base of order.paid), exactly its fields (docs/webhooks.md, "`data` by type").
 */
export function orderEventData(row: OrderRow, language: string) {
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
    // Exactly {title, amount, price} (docs/webhooks.md): the options are named in the title, priced in `price`.
    items: dto.items.map((item) => ({
      title: lineTitle(item.title, item.options),
      amount: item.amount,
      price: item.price,
    })),
    customer: dto.customer,
    paymentMethod: { name: dto.paymentMethod.name },
    paymentStatus: dto.paymentStatus,
    createdAt: dto.createdAt,
  };
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
    const after = await writeStatusChange(
      db,
      before,
      { orderStatus: nextStatus, customStatus: nextCustom },
      now,
    );
    if (nextStatus === "cancelled") storefrontChangedAfterCommit(ctx, { storefrontId: before.storefrontId });
    return { row: after, emitted: true };
  });
  if (result.emitted) ctx.afterCommit(wakeDeliveries);
  return toOrderDto(result.row);
}

/**
 * Writes a status change of a locked order and records `order.status_updated` (slim: previous and new state) in
 * the caller's transaction; moving to `cancelled` puts the stock back. Shared by the merchant's PATCH and the
 * expiry of unaccepted public orders.
 */
async function writeStatusChange(
  db: Db,
  before: OrderRow,
  next: { orderStatus: OrderStatus; customStatus: CustomStatus | null },
  now: Date,
): Promise<OrderRow> {
  const [after] = await db
    .update(orders)
    .set({ orderStatus: next.orderStatus, customStatus: next.customStatus, updatedAt: now })
    .where(eq(orders.id, before.id))
    .returning();
  if (!after) throw new AppError("order_not_found", { param: "orderId" });
  if (next.orderStatus === "cancelled") await restock(db, before);
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
          orderStatus: before.orderStatus as OrderStatus,
          customStatus: effectiveCustomStatus(before, language),
        },
        newState: { orderStatus: next.orderStatus, customStatus: effectiveCustomStatus(after, language) },
        updatedAt: now.toISOString(),
      },
      accountId: after.accountId,
    },
    now,
  );
  return after;
}

/** How many stale public orders one run of `cancelStalePublicOrders` cancels at most (the next run takes the rest). */
const EXPIRY_BATCH = 500;

/**
 * Job `expire-public-orders` (docs/api.md, "Public storefront"; docs/operations.md, "Scheduled jobs"): every
 * public order still `pending` `PUBLIC_ORDER_LIMITS.pendingExpiryMinutes` after it was placed is cancelled as the
 * merchant's cancel would (its stock put back, `order.status_updated` to pending -> cancelled), each in its own
 * transaction. An order the merchant is changing at that moment is skipped (SKIP LOCKED) and re-checked next run.
 * Anonymous orders take stock before anyone has paid; unaccepted ones must not hold it for ever.
 */
export async function cancelStalePublicOrders(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - PUBLIC_ORDER_LIMITS.pendingExpiryMinutes * 60_000);
  const stale = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.source, "public"), eq(orders.orderStatus, "pending"), lt(orders.createdAt, cutoff)))
    .orderBy(asc(orders.createdAt))
    .limit(EXPIRY_BATCH);
  let cancelled = 0;
  for (const { id } of stale) {
    const storefrontId = await inTransaction(db, async (tx) => {
      const [before] = await tx
        .select()
        .from(orders)
        .where(and(eq(orders.id, id), eq(orders.orderStatus, "pending")))
        .for("update", { skipLocked: true });
      if (!before) return null;
      await writeStatusChange(
        tx,
        before,
        { orderStatus: "cancelled", customStatus: before.customStatus as CustomStatus | null },
        now,
      );
      return before.storefrontId;
    });
    if (!storefrontId) continue;
    cancelled++;
    notifyStorefrontChanged({ storefrontId });
  }
  if (cancelled > 0) wakeDeliveries();
  return cancelled;
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
