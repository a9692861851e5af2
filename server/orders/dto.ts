import type { CustomStatus, OrderDto, OrderStatus } from "./schema";
import type { orders } from "./tables";

/** The one mapping from an order row to the Order object. */

export type OrderRow = typeof orders.$inferSelect;
type OrderItem = OrderDto["items"][number];
type Fulfillment = OrderDto["fulfillment"];

/**
 * An order line as stored in `orders.items`: the title and unit price charged, and the chosen options with the
 * title of each chosen GROUP once (`groups`), not repeated in every option of the group (a group title is up to
 * 200 characters and a line chooses up to 50 options). The Order object still names the group in each option
 * (`groupTitle`, docs/api.md "Orders"); `toOrderDto` puts it back.
 */
export type StoredOrderItem = Omit<OrderItem, "options"> & {
  groups: Array<{ group: number; title: string }>;
  options: Array<Omit<OrderItem["options"][number], "groupTitle">>;
};

/** The stored form of a line whose options carry their group's title (what the option check answers). */
export function toStoredOrderItem(item: OrderItem): StoredOrderItem {
  const groups = new Map<number, string>();
  for (const option of item.options)
    if (!groups.has(option.group)) groups.set(option.group, option.groupTitle);
  return {
    productId: item.productId,
    title: item.title,
    amount: item.amount,
    price: item.price,
    groups: [...groups.entries()].map(([group, title]) => ({ group, title })),
    options: item.options.map(({ group, option, title, price }) => ({ group, option, title, price })),
  };
}

/** A stored line of any age: before options (none), or with `groupTitle` in each option (before `groups`). */
type StoredLineAnyShape = Omit<OrderItem, "options"> & {
  groups?: StoredOrderItem["groups"];
  options?: Array<Omit<OrderItem["options"][number], "groupTitle"> & { groupTitle?: string }>;
};

function toOrderItem(item: StoredLineAnyShape): OrderItem {
  const groupTitles = new Map((item.groups ?? []).map((group) => [group.group, group.title]));
  return {
    productId: item.productId,
    title: item.title,
    amount: item.amount,
    price: item.price,
    options: (item.options ?? []).map((option) => ({
      group: option.group,
      option: option.option,
      groupTitle: option.groupTitle ?? groupTitles.get(option.group) ?? "",
      title: option.title,
      price: option.price,
    })),
  };
}

export function toOrderDto(row: OrderRow): OrderDto {
  const fulfillment = (row.fulfillment as Fulfillment | null) ?? { type: "pickup", distanceKm: null };
  return {
    id: row.id,
    publicOrderId: row.publicOrderId,
    storefrontId: row.storefrontId,
    userId: row.accountId,
    orderStatus: row.orderStatus as OrderStatus,
    customStatus: (row.customStatus as CustomStatus | null) ?? null,
    items: (row.items as StoredLineAnyShape[]).map(toOrderItem),
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
