import { builder } from "@/server/graphql/builder";
import { connectionType, listQueryOf, toConnection } from "@/server/graphql/connections";
import type { GraphQLContext } from "@/server/graphql/context";
import { parseArg, parseId } from "@/server/graphql/input";
import { NodeRef, registerNodeType } from "@/server/graphql/node";
import { StorefrontRef, storefrontLoader } from "@/server/storefronts/graphql";
import { payOrder, updateOrderStatus } from "./lifecycle";
import { createOrder } from "./place";
import { CreateOrderInput, ORDER_STATUSES, type OrderDto, PayOrderInput, UpdateOrderInput } from "./schema";
import { listAccountOrders, loadOrders, loadOrdersByStorefront } from "./service";

/** Orders over GraphQL (docs/graphql.md): the Order type, a storefront's orders, the account's, and the writes. */

const OrderStatusRef = builder.enumType("OrderStatus", { values: ORDER_STATUSES });
const PaymentStatusRef = builder.enumType("PaymentStatus", { values: ["pending", "paid"] as const });
const FulfillmentTypeRef = builder.enumType("FulfillmentType", {
  values: ["delivery", "pickup", "dine_in"] as const,
});

const CustomStatusRef = builder.objectRef<NonNullable<OrderDto["customStatus"]>>("CustomStatus").implement({
  fields: (t) => ({ id: t.exposeString("id"), label: t.exposeString("label") }),
});

const OrderItemOptionRef = builder
  .objectRef<OrderDto["items"][number]["options"][number]>("OrderItemOption")
  .implement({
    description:
      'A chosen option of an order line, with the title and price charged (docs/api.md, "Options").',
    fields: (t) => ({
      group: t.exposeInt("group"),
      option: t.exposeInt("option"),
      groupTitle: t.exposeString("groupTitle"),
      title: t.exposeString("title"),
      price: t.exposeFloat("price"),
    }),
  });

const OrderItemRef = builder.objectRef<OrderDto["items"][number]>("OrderItem").implement({
  fields: (t) => ({
    productId: t.exposeString("productId"),
    title: t.exposeString("title"),
    amount: t.exposeInt("amount"),
    price: t.exposeFloat("price", { description: "Per unit, chosen options included." }),
    options: t.field({ type: [OrderItemOptionRef], resolve: (item) => item.options }),
  }),
});

const CustomerRef = builder.objectRef<OrderDto["customer"]>("Customer").implement({
  fields: (t) => ({ name: t.exposeString("name"), phone: t.exposeString("phone") }),
});

const PaymentMethodRef = builder.objectRef<OrderDto["paymentMethod"]>("PaymentMethod").implement({
  fields: (t) => ({
    id: t.string({ nullable: true, resolve: (method) => method.id ?? null }),
    name: t.exposeString("name"),
  }),
});

const FulfillmentRef = builder.objectRef<OrderDto["fulfillment"]>("Fulfillment").implement({
  fields: (t) => ({
    type: t.field({ type: FulfillmentTypeRef, resolve: (fulfillment) => fulfillment.type }),
    distanceKm: t.exposeFloat("distanceKm", { nullable: true }),
  }),
});

export const OrderRef = builder.objectRef<OrderDto>("Order").implement({
  description: "/v1's Order object, field for field, with its storefront.",
  interfaces: [NodeRef],
  fields: (t) => ({
    publicOrderId: t.exposeInt("publicOrderId"),
    storefrontId: t.exposeString("storefrontId"),
    userId: t.exposeString("userId"),
    orderStatus: t.field({ type: OrderStatusRef, resolve: (order) => order.orderStatus }),
    customStatus: t.field({ type: CustomStatusRef, nullable: true, resolve: (order) => order.customStatus }),
    items: t.field({ type: [OrderItemRef], resolve: (order) => order.items }),
    customer: t.field({ type: CustomerRef, resolve: (order) => order.customer }),
    paymentMethod: t.field({ type: PaymentMethodRef, resolve: (order) => order.paymentMethod }),
    paymentStatus: t.field({ type: PaymentStatusRef, resolve: (order) => order.paymentStatus }),
    fulfillment: t.field({ type: FulfillmentRef, resolve: (order) => order.fulfillment }),
    subtotalPrice: t.exposeFloat("subtotalPrice"),
    deliveryPrice: t.exposeFloat("deliveryPrice"),
    totalPrice: t.exposeFloat("totalPrice"),
    currency: t.exposeString("currency"),
    createdAt: t.exposeString("createdAt"),
    updatedAt: t.exposeString("updatedAt"),
    paidAt: t.exposeString("paidAt", { nullable: true }),
    storefront: t.field({
      type: StorefrontRef,
      nullable: true,
      description:
        "null with `storefront_deleted` once the storefront is deleted (the order stays readable).",
      resolve: (order, _, ctx) => storefrontLoader(ctx).load(order.storefrontId),
    }),
  }),
});

const OrderConnectionRef = connectionType("Order", OrderRef);

function orderLoader(ctx: GraphQLContext) {
  return ctx.loader<OrderDto>("orders", (ids) => loadOrders(ctx.service, { orderIds: ids }));
}
registerNodeType({ prefix: "ord_", typeName: "Order", load: (ctx, id) => orderLoader(ctx).load(id) });

builder.objectField(StorefrontRef, "orders", (t) =>
  t.field({
    type: OrderConnectionRef,
    nullable: true,
    description: "The storefront's orders, by id.",
    args: { first: t.arg.int(), after: t.arg.string() },
    resolve: async (storefront, args, ctx) => {
      const query = listQueryOf(args, ctx);
      const page = await ctx
        .loader(`ordersByStorefront:${JSON.stringify(query)}`, (ids) =>
          loadOrdersByStorefront(ctx.service, { storefrontIds: ids, ...query }),
        )
        .load(storefront.id);
      return toConnection(page, (order) => order.id);
    },
  }),
);

builder.queryField("order", (t) =>
  t.field({
    type: OrderRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => orderLoader(ctx).load(parseId(args.id, ctx)),
  }),
);

builder.queryField("orders", (t) =>
  t.field({
    type: OrderConnectionRef,
    nullable: true,
    description: "The account's orders by id, of every storefront or of one, optionally of one status.",
    args: {
      storefrontId: t.arg.id(),
      status: t.arg({ type: OrderStatusRef }),
      first: t.arg.int(),
      after: t.arg.string(),
    },
    resolve: async (_, args, ctx) =>
      toConnection(
        await listAccountOrders(ctx.service, {
          storefrontId: args.storefrontId == null ? null : parseId(args.storefrontId, ctx, "storefrontId"),
          status: args.status,
          ...listQueryOf(args, ctx),
        }),
        (order) => order.id,
      ),
  }),
);

const OrderLineOptionInputRef = builder.inputType("OrderLineOptionInput", {
  description:
    "A chosen option by position: the group's index in extraProductsCategory, the option's in extraProducts.",
  fields: (t) => ({ group: t.int(), option: t.int() }),
});

const OrderItemInputRef = builder.inputType("OrderItemInput", {
  fields: (t) => ({
    productId: t.string(),
    amount: t.int(),
    options: t.field({ type: [OrderLineOptionInputRef] }),
  }),
});
const CustomerInputRef = builder.inputType("CustomerInput", {
  fields: (t) => ({ name: t.string(), phone: t.string() }),
});
const PaymentMethodNameInputRef = builder.inputType("PaymentMethodNameInput", {
  fields: (t) => ({ name: t.string() }),
});
const FulfillmentInputRef = builder.inputType("FulfillmentInput", {
  fields: (t) => ({ type: t.field({ type: FulfillmentTypeRef }), distanceKm: t.float() }),
});

const CreateOrderInputRef = builder.inputType("CreateOrderInput", {
  description: "/v1's order body: prices come from the catalog; default fulfillment: pickup.",
  fields: (t) => ({
    items: t.field({ type: [OrderItemInputRef] }),
    customer: t.field({ type: CustomerInputRef }),
    paymentMethod: t.field({ type: PaymentMethodNameInputRef }),
    fulfillment: t.field({ type: FulfillmentInputRef }),
  }),
});

const CustomStatusInputRef = builder.inputType("CustomStatusInput", {
  fields: (t) => ({ id: t.string(), label: t.string() }),
});

const UpdateOrderInputRef = builder.inputType("UpdateOrderInput", {
  description: "`orderStatus`, `customStatus` (null: none) or both.",
  fields: (t) => ({
    orderStatus: t.field({ type: OrderStatusRef }),
    customStatus: t.field({ type: CustomStatusInputRef }),
  }),
});

const PaymentMethodInputRef = builder.inputType("PaymentMethodInput", {
  fields: (t) => ({ id: t.string({ description: "Generated (`pay_…`) when absent." }), name: t.string() }),
});

const PayOrderInputRef = builder.inputType("PayOrderInput", {
  fields: (t) => ({ paymentMethod: t.field({ type: PaymentMethodInputRef }) }),
});

builder.mutationField("createOrder", (t) =>
  t.field({
    type: OrderRef,
    nullable: true,
    description: "A phone or counter order (unpublished storefronts too); fires order.created.",
    args: {
      storefrontId: t.arg.id({ required: true }),
      input: t.arg({ type: CreateOrderInputRef, required: true }),
    },
    resolve: (_, args, ctx) =>
      createOrder(ctx.service, {
        storefrontId: parseId(args.storefrontId, ctx, "storefrontId"),
        order: parseArg(CreateOrderInput, args.input, ctx),
      }),
  }),
);

builder.mutationField("updateOrderStatus", (t) =>
  t.field({
    type: OrderRef,
    nullable: true,
    description:
      "Move the order to a valid next status and/or set a custom status; fires order.status_updated.",
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateOrderInputRef, required: true }) },
    resolve: (_, args, ctx) =>
      updateOrderStatus(ctx.service, {
        orderId: parseId(args.id, ctx),
        change: parseArg(UpdateOrderInput, args.input, ctx),
      }),
  }),
);

builder.mutationField("payOrder", (t) =>
  t.field({
    type: OrderRef,
    nullable: true,
    description: "Mark the order paid; fires order.paid.",
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: PayOrderInputRef, required: true }) },
    resolve: (_, args, ctx) =>
      payOrder(ctx.service, { orderId: parseId(args.id, ctx), ...parseArg(PayOrderInput, args.input, ctx) }),
  }),
);
