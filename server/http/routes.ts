import { accountRoutes } from "@/server/accounts/rest";
import { eventRoutes } from "@/server/events/rest";
import { fileRoutes } from "@/server/files/rest";
import { listenRoutes } from "@/server/listen/rest";
import { orderRoutes } from "@/server/orders/rest";
import { productRoutes } from "@/server/products/rest";
import { storefrontRoutes } from "@/server/storefronts/rest";
import { webhookRoutes } from "@/server/webhooks/rest";
import type { AnyRoute } from "./route";

/** Every /v1 operation, gathered from the feature folders. */
export const API_ROUTES: AnyRoute[] = [
  ...accountRoutes,
  ...storefrontRoutes,
  ...productRoutes,
  ...webhookRoutes,
  ...eventRoutes,
  ...listenRoutes,
  ...fileRoutes,
  ...orderRoutes,
];
