import { router, sessionProcedure } from "@/server/trpc/init";
import { getDeliveryOverview, getMerchantOverview } from "./service";

/** The overview page's procedures (docs/ui.md, "Overview"): one line each over server/overview/service.ts. */
export const overviewRouter = router({
  merchant: sessionProcedure.query(({ ctx }) => getMerchantOverview(ctx.service)),
  deliveries: sessionProcedure.query(({ ctx }) => getDeliveryOverview(ctx.service)),
});
