import { eq, lt } from "drizzle-orm";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { safeEqual, sha256Hex } from "@/server/lib/crypto";
import { toStorefrontDto } from "@/server/storefronts/dto";
import type { StorefrontDto } from "@/server/storefronts/schema";
import { storefronts } from "@/server/storefronts/tables";
import { toOrderDto } from "./dto";
import { effectiveCustomStatus } from "./lifecycle";
import { PUBLIC_ORDER_LIMITS } from "./limits";
import type { CustomStatus, OrderDto } from "./schema";
import { orders, publicOrderRateLimits, publicOrderStorefrontLimits } from "./tables";

/**
 * The customer's side after ordering on the public page: the order's status page (`getPublicOrder`, no actor)
 * and the housekeeping of the public-order rate limits.
 */

/** What the customer's status page shows of an order: no phone, no internal ids beyond the order's own. */
export type PublicOrderView = {
  order: Pick<
    OrderDto,
    | "id"
    | "publicOrderId"
    | "orderStatus"
    | "items"
    | "fulfillment"
    | "paymentStatus"
    | "subtotalPrice"
    | "deliveryPrice"
    | "totalPrice"
    | "currency"
    | "createdAt"
    | "updatedAt"
  > & {
    /** The merchant's custom status, or the order status's name in the storefront's language. */
    status: CustomStatus;
    paymentMethod: { name: string };
    customerName: string;
  };
  storefront: Pick<StorefrontDto, "id" | "name" | "slug" | "language" | "currency" | "branding" | "whatsapp">;
};

const STATUS_TOKEN_FORMAT = /^[A-Za-z0-9_-]{20,100}$/;

/**
 * An order as its customer follows it (docs/api.md, "Order status page"): no actor; the token from the status
 * link proves the customer placed it. Its SHA-256 is compared in constant time with the stored one; a wrong or
 * missing token, an order not placed on the public page, or a deleted storefront are all 404
 * `order_not_found`.
 */
export async function getPublicOrder(
  ctx: ServiceContext,
  input: { orderId: string; token: string },
): Promise<PublicOrderView> {
  const notFound = () => new AppError("order_not_found", { param: "orderId" });
  const isWellFormed = STATUS_TOKEN_FORMAT.test(input.token);
  const [row] = await ctx.db
    .select({ order: orders, storefront: storefronts })
    .from(orders)
    .innerJoin(storefronts, eq(storefronts.id, orders.storefrontId))
    .where(eq(orders.id, input.orderId))
    .limit(1);
  // Hash and compare even when there is no such order, so a miss costs what a wrong token costs.
  const stored = row?.order.statusTokenHash ?? sha256Hex("no order");
  const isMatch = safeEqual(sha256Hex(isWellFormed ? input.token : ""), stored);
  if (!row || !isMatch || !isWellFormed || row.storefront.deletedAt || row.order.source !== "public") {
    throw notFound();
  }
  const dto = toOrderDto(row.order);
  const storefront = toStorefrontDto(row.storefront);
  return {
    order: {
      id: dto.id,
      publicOrderId: dto.publicOrderId,
      orderStatus: dto.orderStatus,
      status: effectiveCustomStatus(row.order, storefront.language),
      items: dto.items,
      fulfillment: dto.fulfillment,
      paymentMethod: { name: dto.paymentMethod.name },
      paymentStatus: dto.paymentStatus,
      customerName: dto.customer.name,
      subtotalPrice: dto.subtotalPrice,
      deliveryPrice: dto.deliveryPrice,
      totalPrice: dto.totalPrice,
      currency: dto.currency,
      createdAt: dto.createdAt,
      updatedAt: dto.updatedAt,
    },
    storefront: {
      id: storefront.id,
      name: storefront.name,
      slug: storefront.slug,
      language: storefront.language,
      currency: storefront.currency,
      branding: storefront.branding,
      whatsapp: storefront.whatsapp,
    },
  };
}

/** Drops public-order rate-limit windows that have ended (job `purge-rate-limits`). */
export async function purgePublicOrderRateLimits(db: Db, now: Date): Promise<number> {
  const seconds = Math.floor(now.getTime() / 1000);
  const perIp = await db
    .delete(publicOrderRateLimits)
    .where(lt(publicOrderRateLimits.windowStart, seconds - PUBLIC_ORDER_LIMITS.ipWindowSeconds))
    .returning({ key: publicOrderRateLimits.key });
  // The storefront windows are the longer ones: a past global window goes with them, a few minutes later.
  const longest = Math.max(
    PUBLIC_ORDER_LIMITS.storefrontWindowSeconds,
    PUBLIC_ORDER_LIMITS.globalWindowSeconds,
  );
  const perStorefront = await db
    .delete(publicOrderStorefrontLimits)
    .where(lt(publicOrderStorefrontLimits.windowStart, seconds - longest))
    .returning({ key: publicOrderStorefrontLimits.key });
  return perIp.length + perStorefront.length;
}
