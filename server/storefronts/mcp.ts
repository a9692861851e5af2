import { z } from "zod";
import { renderRejected } from "@/server/kit/rejected";
import { ListQuery } from "@/server/lib/pagination";
import type { McpResources } from "@/server/mcp/registry";
import { oauthScopeOf, READ_ONLY, toolsFor, writes } from "@/server/mcp/tool";
import { id, text } from "@/server/validation";
import { STOREFRONT_OPERATIONS } from "./operations";
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

const tool = toolsFor(STOREFRONT_OPERATIONS);

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

// Resources: each storefront is readable as marea://storefronts/{storefrontId}.

const STOREFRONT_URI = /^marea:\/\/storefronts\/([^/?#]+)$/;
const STOREFRONT_ID = id();

/** The storefront id a resource URI names, or null when it names none (not the pattern, or not an id). */
function storefrontIdOf(uri: string): string | null {
  const encoded = STOREFRONT_URI.exec(uri)?.[1];
  if (encoded === undefined) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  return STOREFRONT_ID.safeParse(decoded).success ? decoded : null;
}

/** The MCP resources (docs/mcp.md, "Scopes"): the account's storefronts, as marea.get_storefront returns them. */
export const storefrontResources: McpResources = {
  templates: [
    {
      uriTemplate: "marea://storefronts/{storefrontId}",
      name: "storefront",
      title: "Storefront",
      description: "A storefront as JSON, as marea.get_storefront returns it.",
      mimeType: "application/json",
    },
  ],
  listScope: oauthScopeOf(STOREFRONT_OPERATIONS.listStorefronts),
  readScope: oauthScopeOf(STOREFRONT_OPERATIONS.getStorefront),
  /** `resources/list`: the account's storefronts (the first 100), one resource each. */
  list: async (ctx) => {
    const page = await listStorefronts(ctx, { limit: 100 });
    return page.data.map((storefront) => ({
      uri: `marea://storefronts/${storefront.id}`,
      name: storefront.id,
      title: storefront.name,
      mimeType: "application/json",
    }));
  },
  names: (uri) => storefrontIdOf(uri) !== null,
  read: async (ctx, uri) => {
    const storefront = await getStorefront(ctx, { storefrontId: storefrontIdOf(uri) ?? "" });
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(storefront) }] };
  },
};
