import { z } from "zod";
import { localizedError, pathId, text } from "@/server/validation";

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

export const CustomStatus = z
  .strictObject({ id: text({ min: 1, max: 50 }), label: text({ min: 1, max: 100 }) })
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

/** POST /v1/storefronts/{storefrontId}/orders: a phone or counter order. Prices come from the catalog. */
export const CreateOrderInput = z
  .strictObject({
    items: z
      .array(
        z.strictObject({
          productId: text({ min: 1, max: 64 }),
          amount: z.number().int().min(1).max(1000),
        }),
      )
      .min(1)
      .max(100),
    customer: z.strictObject({
      name: text().trim().min(1).max(200),
      phone: text().trim().min(3).max(40),
    }),
    paymentMethod: z.strictObject({ name: text().trim().min(1).max(100) }),
    fulfillment: Fulfillment.optional().meta({ description: "Default: pickup." }),
  })
  .meta({ id: "CreateOrderInput" });
export type CreateOrderInput = z.infer<typeof CreateOrderInput>;

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
      id: text({ min: 1, max: 100 }).optional(),
      name: text().trim().min(1).max(100),
    }),
  })
  .meta({ id: "PayOrderInput" });
export type PayOrderInput = z.infer<typeof PayOrderInput>;

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
      z.object({ productId: z.string(), title: z.string(), amount: z.number().int(), price: z.number() }),
    ),
    customer: z.object({ name: z.string(), phone: z.string() }),
    paymentMethod: z.object({ id: z.string().optional(), name: z.string() }),
    paymentStatus: z.enum(["pending", "paid"]),
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
