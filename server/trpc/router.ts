import { accountsRouter } from "@/server/accounts/trpc";
import { overviewRouter } from "@/server/overview/trpc";
import { webhooksRouter } from "@/server/webhooks/trpc";
import { createCallerFactory, router } from "./init";

/** Every dashboard procedure, gathered from each feature's trpc.ts (docs/ui.md, "tRPC"). */
export const appRouter = router({
  webhooks: webhooksRouter,
  accounts: accountsRouter,
  overview: overviewRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
