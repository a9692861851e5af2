import { z } from "zod";
import { input, router, sessionProcedure } from "@/server/trpc/init";
import { id } from "@/server/validation";
import { closeListenSession, listListenSessions } from "./service";

/** The dashboard's listen-session procedures (docs/ui.md, "Webhooks"): one line each over server/listen/service.ts. */
export const listenRouter = router({
  list: sessionProcedure.query(({ ctx }) => listListenSessions(ctx.service)),
  close: sessionProcedure
    .input(input(z.strictObject({ sessionId: id() })))
    .mutation(({ ctx, input }) => closeListenSession(ctx.service, input)),
});
