import { z } from "zod";

export const StorefrontState = z.enum(["published", "hidden", "draft"]);

/** One storefront on the merchant overview: its state and today's orders (in its own time zone). */
export const StorefrontTodayDto = z.object({
  id: z.string(),
  name: z.string(),
  state: StorefrontState,
  publicUrl: z.string().nullable(),
  currency: z.string(),
  timeZone: z.string(),
  /** Orders placed since midnight in the storefront's time zone, cancelled ones left out. */
  ordersToday: z.number().int(),
  /** Their total, in the storefront's currency. */
  revenueToday: z.number(),
});
export type StorefrontTodayDto = z.infer<typeof StorefrontTodayDto>;

/** What to do next, most blocking first. */
export const NextStep = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("verify_email") }),
  z.object({ kind: z.literal("accept_terms"), version: z.string() }),
  z.object({ kind: z.literal("create_storefront") }),
  z.object({ kind: z.literal("upgrade_to_publish"), upgradeUrl: z.string() }),
  z.object({ kind: z.literal("publish"), storefrontId: z.string(), storefrontName: z.string() }),
]);
export type NextStep = z.infer<typeof NextStep>;

export const MerchantOverviewDto = z.object({
  storefronts: z.array(StorefrontTodayDto),
  nextSteps: z.array(NextStep),
});
export type MerchantOverviewDto = z.infer<typeof MerchantOverviewDto>;

export const DeliveryStatusCounts = z.object({
  pending: z.number().int(),
  delivered: z.number().int(),
  failed: z.number().int(),
  max_attempts_reached: z.number().int(),
});
export type DeliveryStatusCounts = z.infer<typeof DeliveryStatusCounts>;

export const EndpointHealthDto = z.object({
  id: z.string(),
  url: z.string(),
  scope: z.enum(["developer", "merchant"]),
  enabled: z.boolean(),
  consecutiveFailures: z.number().int(),
  lastDeliveryStatus: z.enum(["success", "failure"]).nullable(),
  lastDeliveryAt: z.string().nullable(),
  last24h: DeliveryStatusCounts,
  /** Failing now (its last delivery failed) or a delivery of the last 24 hours gave up or is failing. */
  isFailing: z.boolean(),
});
export type EndpointHealthDto = z.infer<typeof EndpointHealthDto>;

/** The developer overview: deliveries of the last 24 hours by status, across the account's endpoints. */
export const DeliveryOverviewDto = z.object({
  since: z.string(),
  totals: DeliveryStatusCounts,
  /** Failing endpoints first, then the busiest. */
  endpoints: z.array(EndpointHealthDto),
});
export type DeliveryOverviewDto = z.infer<typeof DeliveryOverviewDto>;
