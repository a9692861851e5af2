import { z } from "zod";
import { ListQuery } from "@/server/lib/pagination";
import { input, router, sessionProcedure } from "@/server/trpc/init";
import {
  getDelivery,
  getEndpointHealth,
  listDeliveryLog,
  listEndpointOverview,
  previewTestEvent,
  recoverDeliveries,
  resendDelivery,
} from "./delivery-log";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateSigningSecret,
  sendTestEvent,
  updateEndpoint,
} from "./endpoints";
import {
  CreateWebhookEndpointInput,
  DashboardEndpointRef,
  DeliveryLogQuery,
  DeliveryRef,
  EndpointScope,
  EventType,
  RecoverDeliveriesInput,
  TestDashboardEndpointInput,
  UpdateDashboardEndpointInput,
} from "./schema";

/** The dashboard names a scope or gets the session's, merchant (server/webhooks/endpoint-scope.ts). */
const scope = EndpointScope.optional();
const ScopeOnly = z.strictObject({ scope });

/** The dashboard's webhook procedures (docs/ui.md, "tRPC"): one line each over endpoints.ts and delivery-log.ts. */
export const webhooksRouter = router({
  listEndpoints: sessionProcedure
    .input(input(ListQuery.extend({ scope })))
    .query(({ ctx, input }) => listEndpoints(ctx.service, input)),
  overview: sessionProcedure
    .input(input(ScopeOnly))
    .query(({ ctx, input }) => listEndpointOverview(ctx.service, input)),
  createEndpoint: sessionProcedure
    .input(input(z.strictObject({ scope, endpoint: CreateWebhookEndpointInput })))
    .mutation(({ ctx, input }) => createEndpoint(ctx.service, input)),
  getEndpoint: sessionProcedure
    .input(input(DashboardEndpointRef))
    .query(({ ctx, input }) => getEndpoint(ctx.service, input)),
  updateEndpoint: sessionProcedure
    .input(input(UpdateDashboardEndpointInput))
    .mutation(({ ctx, input }) => updateEndpoint(ctx.service, input)),
  deleteEndpoint: sessionProcedure
    .input(input(DashboardEndpointRef))
    .mutation(({ ctx, input }) => deleteEndpoint(ctx.service, input)),
  rotateSecret: sessionProcedure
    .input(input(DashboardEndpointRef))
    .mutation(({ ctx, input }) => rotateSigningSecret(ctx.service, input)),
  health: sessionProcedure
    .input(input(DashboardEndpointRef))
    .query(({ ctx, input }) => getEndpointHealth(ctx.service, input)),
  listDeliveries: sessionProcedure
    .input(input(DeliveryLogQuery))
    .query(({ ctx, input }) => listDeliveryLog(ctx.service, input)),
  getDelivery: sessionProcedure
    .input(input(DeliveryRef))
    .query(({ ctx, input }) => getDelivery(ctx.service, input)),
  previewTestEvent: sessionProcedure
    .input(input(z.strictObject({ scope, type: EventType })))
    .query(({ ctx, input }) => previewTestEvent(ctx.service, input)),
  sendTestEvent: sessionProcedure
    .input(input(TestDashboardEndpointInput))
    .mutation(({ ctx, input }) => sendTestEvent(ctx.service, input)),
  resendDelivery: sessionProcedure
    .input(input(DeliveryRef))
    .mutation(({ ctx, input }) => resendDelivery(ctx.service, input)),
  recoverDeliveries: sessionProcedure
    .input(input(RecoverDeliveriesInput))
    .mutation(({ ctx, input }) => recoverDeliveries(ctx.service, input)),
});
