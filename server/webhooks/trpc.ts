import { z } from "zod";
import { ListQuery } from "@/server/lib/pagination";
import { input, router, sessionProcedure } from "@/server/trpc/init";
import { CreateWebhookEndpointInput, EndpointScope } from "./schema";
import { createEndpoint, listEndpoints } from "./service";

/** Merchant endpoints unless the dashboard asks for the developer ones (docs/webhooks.md, "Endpoints"). */
const scope = EndpointScope.default("merchant");

/** The dashboard's webhook procedures (docs/ui.md, "tRPC"): one line each over server/webhooks/service.ts. */
export const webhooksRouter = router({
  listEndpoints: sessionProcedure
    .input(input(ListQuery.extend({ scope })))
    .query(({ ctx, input }) => listEndpoints(ctx.service, input)),
  createEndpoint: sessionProcedure
    .input(input(z.strictObject({ scope, endpoint: CreateWebhookEndpointInput })))
    .mutation(({ ctx, input }) => createEndpoint(ctx.service, input)),
});
