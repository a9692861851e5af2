import type { CustomStatus, OrderDto, OrderStatus } from "./schema";
import type { orders } from "./tables";

/** The one mapping from an order row to the Order object. */

export type OrderRow = typeof orders.$inferSelect;
type OrderItem = OrderDto["items"][number];
type Fulfillment = OrderDto["fulfillment"];

export function toOrderDto(row: OrderRow): OrderDto {
  const fulfillment = (row.fulfillment as Fulfillment | null) ?? { type: "pickup", distanceKm: null };
  return {
    id: row.id,
    publicOrderId: row.publicOrderId,
    storefrontId: row.storefrontId,
    userId: row.accountId,
    orderStatus: row.orderStatus as OrderStatus,
    customStatus: (row.customStatus as CustomStatus | null) ?? null,
    // Orders placed before options existed stored no `options`.
    items: (row.items as Array<Omit<OrderItem, "options"> & { options?: OrderItem["options"] }>).map(
      (item) => ({
        productId: item.productId,
        title: item.title,
        amount: item.amount,
        price: item.price,
        options: item.options ?? [],
      }),
    ),
    customer: row.customer as OrderDto["customer"],
    paymentMethod: row.paymentMethod as OrderDto["paymentMethod"],
    paymentStatus: row.paymentStatus as OrderDto["paymentStatus"],
    fulfillment,
    subtotalPrice: row.subtotalPrice,
    deliveryPrice: row.deliveryPrice,
    totalPrice: row.totalPrice,
    currency: row.currency,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    paidAt: row.paidAt ? row.paidAt.toISOString() : null,
  };
}
