import type { ErrorObject, RejectedProduct, Upgrade } from "@/server/errors";
import { renderRejected } from "@/server/kit/rejected";
import { builder } from "./builder";
import type { GraphQLContext } from "./context";

/** Shapes several features' mutations share: deletions, and the items a plan limit kept out (partial results). */

export const DeletedPayloadRef = builder
  .objectRef<{ id: string; deleted: true }>("DeletedPayload")
  .implement({
    description: "What a deletion answers, as /v1's `{id, deleted: true}`.",
    fields: (t) => ({ id: t.exposeID("id"), deleted: t.exposeBoolean("deleted") }),
  });

export const UpgradeRef = builder.objectRef<Upgrade>("Upgrade").implement({
  description: "The plan that lifts a plan limit, and where to get it.",
  fields: (t) => ({
    currentPlan: t.exposeString("currentPlan"),
    requiredPlan: t.exposeString("requiredPlan"),
    upgradeUrl: t.exposeString("upgradeUrl"),
    previewUrl: t.string({ nullable: true, resolve: (upgrade) => upgrade.previewUrl ?? null }),
  }),
});

export const UserErrorRef = builder.objectRef<ErrorObject>("UserError").implement({
  description:
    'A catalogue error about one item of a partial result (docs/api.md, "Errors"): the fields of /v1\'s error object.',
  fields: (t) => ({
    code: t.exposeString("code"),
    type: t.exposeString("type"),
    message: t.exposeString("message", { description: "Localized by `Accept-Language`." }),
    param: t.exposeString("param", {
      nullable: true,
      description: "The JSON path of the item in the input.",
    }),
    recoverable: t.exposeBoolean("recoverable"),
    doc: t.exposeString("doc"),
    upgrade: t.field({ type: UpgradeRef, nullable: true, resolve: (error) => error.upgrade }),
  }),
});

export const RejectedProductRef = builder
  .objectRef<{ index: number; error: ErrorObject }>("RejectedProduct")
  .implement({
    description: "A product of the input that was not created, and why (`products_over_limit`).",
    fields: (t) => ({
      index: t.exposeInt("index", { description: "Its position in the input list." }),
      error: t.field({ type: UserErrorRef, resolve: (rejected) => rejected.error }),
    }),
  });

/**
 * The products a service kept out, as catalogue error objects in the caller's language (the doors' one renderer,
 * server/kit/rejected.ts). `argument` renames the path's list when the GraphQL argument has another name than
 * /v1's body field (`inputs[3]`, not `products[3]`).
 */
export function rejectedProducts(
  rejected: RejectedProduct[] | undefined,
  ctx: GraphQLContext,
  argument?: string,
): Array<{ index: number; error: ErrorObject }> {
  return (
    renderRejected(rejected, {
      requestId: ctx.service.requestId,
      language: ctx.service.language,
      argument,
    }) ?? []
  );
}
