import { accountsRouter } from "@/server/accounts/trpc";
import { listenRouter } from "@/server/listen/trpc";
import { ordersRouter } from "@/server/orders/trpc";
import { overviewRouter } from "@/server/overview/trpc";
import { productsRouter } from "@/server/products/trpc";
import { storefrontsRouter } from "@/server/storefronts/trpc";
import { handleTrpcRequest as handleWith } from "@/server/trpc/http";
import { createCallerFactory, router } from "@/server/trpc/init";
import { webhooksRouter } from "@/server/webhooks/trpc";

/** Every dashboard procedure, gathered from each feature's trpc.ts (docs/ui.md, "tRPC"). */
export const appRouter = router({
  storefronts: storefrontsRouter,
  webhooks: webhooksRouter,
  products: productsRouter,
  orders: ordersRouter,
  accounts: accountsRouter,
  overview: overviewRouter,
  listen: listenRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);

/** The dashboard's tRPC door over HTTP, `/api/trpc/<procedure>` (server/trpc/http.ts). */
export function handleTrpcRequest(request: Request): Promise<Response> {
  return handleWith(appRouter, request);
}
