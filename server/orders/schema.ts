import { z } from "zod";
import { safeText } from "@/server/fields";
import { ListQuery } from "@/server/lib/pagination";
import { WhatsappInput } from "@/server/storefronts/schema";
import { localizedError, pathId, text } from "@/server/validation";
import { ORDER_LIMITS, PUBLIC_ORDER_LIMITS } from "./limits";

/** The order statuses and their transitions (docs/api.md, "Orders"). */
export const ORDER_STATUSES = [
  "pending",
  "accepted",
  "preparing",
  "ready",
  "delivering",
  "delivered",
  "cancelled",
] as const;
export const OrderStatus = z.enum(ORDER_STATUSES);
export type OrderStatus = z.infer<typeof OrderStatus>;

// The label reaches customers (status page) and partners (webhooks): merchant text, so it refuses markup.
export const CustomStatus = z
  .strictObject({ id: safeText({ min: 1, max: 50 }), label: safeText({ min: 1, max: 100 }) })
  .meta({ id: "OrderCustomStatus", description: "A merchant's own status name shown to customers." });
export type CustomStatus = z.infer<typeof CustomStatus>;

export const FulfillmentType = z.enum(["delivery", "pickup", "dine_in"]);

const Fulfillment = z
  .strictObject({
    type: FulfillmentType,
    distanceKm: z.number().min(0).max(10_000).nullish().meta({
      description: "Distance to the customer; required for delivery when the storefront charges by distance.",
    }),
  })
  .meta({ id: "OrderFulfillment" });

/**
 * One chosen option of a line (docs/api.md, "Orders", "Options"): indexes into the product's
 * `extraProductsCategory` (`group`) and that group's `extraProducts` (`option`), both from 0.
 */
export const OrderLineOption = z
  .strictObject({ group: z.int().min(0).max(99), option: z.int().min(0).max(999) })
  .meta({ id: "OrderLineOption" });

/** The lines of an order, at most `maxLines` of 1 to `maxUnitsPerLine` units each. */
function orderItems(limits: { maxLines: number; maxUnitsPerLine: number }) {
  return z
    .array(
      z.strictObject({
        productId: text({ min: 1, max: 64 }),
        amount: z.number().int().min(1).max(limits.maxUnitsPerLine),
        options: z.array(OrderLineOption).max(ORDER_LIMITS.maxOptionsPerLine).optional().meta({
          description:
            "The chosen options of the product's option groups; checked against the stored product, their prices added to the line's unit price.",
        }),
      }),
    )
    .min(1)
    .max(limits.maxLines);
}

/**
 * The customer's name: the one text anonymous people control, forwarded to partners in `order.created`, so it
 * refuses markup like every merchant text (docs/api.md, "Storefronts", text fields).
 */
const CustomerName = safeText().trim().min(1).max(200);

/** A payment method's name, shown to the merchant and sent in order events. */
const PaymentMethodName = safeText().trim().min(1).max(100);

/** POST /v1/storefronts/{storefrontId}/orders: a phone or counter order. Prices come from the catalog. */
export const CreateOrderInput = z
  .strictObject({
    items: orderItems(ORDER_LIMITS),
    customer: z.strictObject({
      name: CustomerName,
      phone: text().trim().min(3).max(40),
    }),
    paymentMethod: z.strictObject({ name: PaymentMethodName }),
    fulfillment: Fulfillment.optional().meta({ description: "Default: pickup." }),
  })
  .meta({ id: "CreateOrderInput" });
export type CreateOrderInput = z.infer<typeof CreateOrderInput>;

/** The hidden field of the checkout form that people leave empty and simple bots fill (docs/api.md, "Public storefront"). */
export const HONEYPOT_FIELD = "website";

/**
 * An order from the public storefront page (docs/api.md, "Public storefront"): the /v1 body, with the phone in
 * E.164 (the page builds it from a country prefix and the number) and the honeypot field, and far fewer lines
 * and units (anonymous orders take stock before anyone pays). Products, amounts and options only: a price in the
 * body is refused by name, and prices come from the catalog anyway.
 */
export const PublicOrderInput = CreateOrderInput.extend({
  items: orderItems(PUBLIC_ORDER_LIMITS),
  customer: z.strictObject({
    name: CustomerName,
    phone: WhatsappInput.unwrap(),
  }),
  [HONEYPOT_FIELD]: text({ max: 500 }).optional(),
}).meta({ id: "PublicOrderInput" });
export type PublicOrderInput = z.infer<typeof PublicOrderInput>;

/** PATCH /v1/orders/{orderId} */
export const UpdateOrderInput = z
  .strictObject({ orderStatus: OrderStatus.optional(), customStatus: CustomStatus.nullable().optional() })
  .refine((v) => v.orderStatus !== undefined || v.customStatus !== undefined, {
    error: localizedError({
      en: "Send orderStatus, customStatus or both.",
      es: "Envía orderStatus, customStatus o ambos.",
      pt: "Envie orderStatus, customStatus ou ambos.",
    }),
  })
  .meta({ id: "UpdateOrderInput" });
export type UpdateOrderInput = z.infer<typeof UpdateOrderInput>;

/** POST /v1/orders/{orderId}/pay */
export const PayOrderInput = z
  .strictObject({
    paymentMethod: z.strictObject({
      id: safeText({ min: 1, max: 100 }).optional(),
      name: PaymentMethodName,
    }),
  })
  .meta({ id: "PayOrderInput" });
export type PayOrderInput = z.infer<typeof PayOrderInput>;

export const PaymentStatus = z.enum(["pending", "paid"]);
export type PaymentStatus = z.infer<typeof PaymentStatus>;

/** The dashboard's orders list (docs/ui.md, "Orders"): every storefront of the account or one, by status and payment. */
export const OrdersTableQuery = ListQuery.extend({
  storefrontId: pathId("storefront_not_found").optional(),
  status: OrderStatus.optional(),
  paymentStatus: PaymentStatus.optional(),
});
export type OrdersTableQuery = z.infer<typeof OrdersTableQuery>;

export const StorefrontOrdersParams = z.strictObject({ storefrontId: pathId("storefront_not_found") });
export const OrderIdParams = z.strictObject({ orderId: pathId("order_not_found") });

export const OrderDto = z
  .object({
    id: z.string(),
    publicOrderId: z.number().int(),
    storefrontId: z.string(),
    userId: z.string().meta({ description: "The merchant account that owns the storefront." }),
    orderStatus: OrderStatus,
    customStatus: CustomStatus.nullable(),
    items: z.array(
      z.object({
        productId: z.string(),
        title: z.string(),
        amount: z.number().int(),
        price: z.number().meta({ description: "Per unit, chosen options included." }),
        options: z
          .array(
            z.object({
              group: z.number().int(),
              option: z.number().int(),
              groupTitle: z.string(),
              title: z.string(),
              price: z.number(),
            }),
          )
          .meta({ description: "The chosen options, with the title and price charged for each." }),
      }),
    ),
    customer: z.object({ name: z.string(), phone: z.string() }),
    paymentMethod: z.object({ id: z.string().optional(), name: z.string() }),
    paymentStatus: PaymentStatus,
    fulfillment: z.object({ type: FulfillmentType, distanceKm: z.number().nullable() }),
    subtotalPrice: z.number(),
    deliveryPrice: z.number(),
    totalPrice: z.number(),
    currency: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    paidAt: z.string().nullable(),
  })
  .meta({ id: "Order" });
export type OrderDto = z.infer<typeof OrderDto>;
