import { input, router, sessionProcedure } from "@/server/trpc/init";
import { text } from "@/server/validation";
import { getStorefrontEditor, listStorefrontSummaries, updateStorefrontSettings } from "./dashboard";
import { updateStorefront } from "./patch";
import { publishStorefront, unpublishStorefront } from "./publish";
import {
  CreateStorefrontInput,
  StorefrontParams,
  UpdateStorefrontInput,
  UpdateStorefrontSettingsInput,
} from "./schema";
import { createStorefront, deleteStorefront, getStorefront } from "./service";

/**
 * The editor's save: the PATCH body's own fields at the top level (so an invalid field's `param` is the same JSON
 * path /v1 answers), the storefront's id, and the `updatedAt` the editor loaded (If-Match; docs/api.md,
 * "Optimistic concurrency").
 */
const UpdateStorefrontCall = UpdateStorefrontInput.extend({
  storefrontId: StorefrontParams.shape.storefrontId,
  expectedUpdatedAt: text({ max: 64 }).nullable().optional(),
});

const UpdateSettingsCall = StorefrontParams.extend({ settings: UpdateStorefrontSettingsInput });

/** The dashboard's storefront procedures (docs/ui.md, "tRPC"): one line each over a storefront service. */
export const storefrontsRouter = router({
  list: sessionProcedure.query(({ ctx }) => listStorefrontSummaries(ctx.service)),
  get: sessionProcedure
    .input(input(StorefrontParams))
    .query(({ ctx, input }) => getStorefront(ctx.service, input)),
  editor: sessionProcedure
    .input(input(StorefrontParams))
    .query(({ ctx, input }) => getStorefrontEditor(ctx.service, input)),
  create: sessionProcedure
    .input(input(CreateStorefrontInput))
    .mutation(({ ctx, input }) => createStorefront(ctx.service, input)),
  update: sessionProcedure
    .input(input(UpdateStorefrontCall))
    .mutation(({ ctx, input: { storefrontId, expectedUpdatedAt, ...patch } }) =>
      updateStorefront(ctx.service, { storefrontId, expectedUpdatedAt, patch }),
    ),
  updateSettings: sessionProcedure
    .input(input(UpdateSettingsCall))
    .mutation(({ ctx, input }) => updateStorefrontSettings(ctx.service, input)),
  publish: sessionProcedure
    .input(input(StorefrontParams))
    .mutation(({ ctx, input }) => publishStorefront(ctx.service, input)),
  unpublish: sessionProcedure
    .input(input(StorefrontParams))
    .mutation(({ ctx, input }) => unpublishStorefront(ctx.service, input)),
  delete: sessionProcedure
    .input(input(StorefrontParams))
    .mutation(({ ctx, input }) => deleteStorefront(ctx.service, input)),
});
