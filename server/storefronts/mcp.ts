import { z } from "zod";
import { renderRejected } from "@/server/kit/rejected";
import { ListQuery } from "@/server/lib/pagination";
import { READ_ONLY, tool, writes } from "@/server/mcp/tool";
import { id, text } from "@/server/validation";
import { updateStorefront } from "./patch";
import { publishStorefront, unpublishStorefront } from "./publish";
import {
  CreateStorefrontInput,
  CreateStorefrontResponse,
  StorefrontDto,
  StorefrontList,
  StorefrontParams,
  UpdateStorefrontInput,
} from "./schema";
import { createStorefront, getStorefront, listStorefronts } from "./service";

/** Storefront tools (docs/mcp.md, "Tools"): each one service function, as over /v1 (docs/api.md, "Storefronts"). */
export const storefrontTools = [
  tool(
    "marea.list_storefronts",
    {
      title: "List storefronts",
      description:
        "The account's live storefronts, oldest first. Pass `nextCursor` as `cursor` for the next page (`limit` 1-100, default 20).",
      operation: "listStorefronts",
      input: ListQuery,
      output: StorefrontList,
      annotations: READ_ONLY,
    },
    (ctx, input) => listStorefronts(ctx, input),
  ),
  tool(
    "marea.get_storefront",
    {
      title: "Get a storefront",
      description:
        "One storefront by id (`stf_…`): profile, branding, schedule, delivery, categories, publication state and `updatedAt`.",
      operation: "getStorefront",
      input: StorefrontParams,
      output: StorefrontDto,
      annotations: READ_ONLY,
    },
    (ctx, input) => getStorefront(ctx, input),
  ),
  tool(
    "marea.create_storefront",
    {
      title: "Create a storefront",
      description:
        "Creates a storefront (name and currency required; `whatsapp`, branding, schedule, delivery, categories optional) with up to 100 `products`. Products past the plan's limit come back in `rejected`.",
      operation: "createStorefront",
      input: CreateStorefrontInput,
      output: CreateStorefrontResponse,
      annotations: writes({ destructiveHint: false, idempotentHint: false, openWorldHint: false }),
    },
    async (ctx, input) => {
      const { rejected, ...created } = await createStorefront(ctx, input);
      return rejected ? { ...created, rejected: renderRejected(rejected, ctx) } : created;
    },
  ),
  tool(
    "marea.update_storefront",
    {
      title: "Update a storefront",
      description:
        "Deep-merges `patch` into the storefront; arrays replace, null clears an optional field. Send the `updatedAt` you read as `expectedUpdatedAt` to refuse the change if someone else changed it meanwhile (storefront_conflict).",
      operation: "updateStorefront",
      input: z.strictObject({
        storefrontId: id(),
        patch: UpdateStorefrontInput,
        expectedUpdatedAt: text({ max: 64 }).nullish(),
      }),
      output: StorefrontDto,
      annotations: writes({ destructiveHint: true, idempotentHint: true, openWorldHint: false }),
    },
    (ctx, input) => updateStorefront(ctx, input),
  ),
  tool(
    "marea.publish_storefront",
    {
      title: "Publish a storefront",
      description:
        "Makes the storefront public at its slug (assigned from the name if unset). Needs a verified account on a plan that can publish (plan_cannot_publish otherwise). Publishing a published storefront changes nothing.",
      operation: "publishStorefront",
      input: StorefrontParams,
      output: StorefrontDto,
      annotations: writes({ destructiveHint: false, idempotentHint: true, openWorldHint: false }),
    },
    (ctx, input) => publishStorefront(ctx, input),
  ),
  tool(
    "marea.unpublish_storefront",
    {
      title: "Unpublish a storefront",
      description: "Takes the storefront's public page down; its slug and content are kept.",
      operation: "unpublishStorefront",
      input: StorefrontParams,
      output: StorefrontDto,
      annotations: writes({ destructiveHint: false, idempotentHint: true, openWorldHint: false }),
    },
    (ctx, input) => unpublishStorefront(ctx, input),
  ),
];
