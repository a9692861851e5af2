import { z } from "zod";
import { ListQuery } from "@/server/lib/pagination";
import { READ_ONLY, toolsFor, writes } from "@/server/mcp/tool";
import { DeletedResponse } from "@/server/storefronts/schema";
import { id } from "@/server/validation";
import { PRODUCT_OPERATIONS } from "./operations";
import { ProductDto, ProductList, ProductManifest, ProductParams, UpdateProductInput } from "./schema";
import { createProduct, deleteProduct, listProducts, updateProduct } from "./service";

const tool = toolsFor(PRODUCT_OPERATIONS);

/** Product tools (docs/mcp.md, "Tools"), as over /v1 (docs/api.md, "Products"). */
export const productTools = [
  tool(
    "marea.list_products",
    {
      title: "List products",
      description:
        "A storefront's products, oldest first. Pass `nextCursor` as `cursor` for the next page (`limit` 1-100, default 20).",
      operation: "listProducts",
      input: ListQuery.extend({ storefrontId: id() }),
      output: ProductList,
      annotations: READ_ONLY,
    },
    (ctx, input) => listProducts(ctx, input),
  ),
  tool(
    "marea.create_product",
    {
      title: "Create a product",
      description:
        "Adds one product to a storefront (title and price required). Over the plan's product limit: plan_max_products_reached.",
      operation: "createProduct",
      input: z.strictObject({ storefrontId: id(), product: ProductManifest }),
      output: ProductDto,
      annotations: writes({ destructiveHint: false, idempotentHint: false, openWorldHint: false }),
    },
    (ctx, input) => createProduct(ctx, input),
  ),
  tool(
    "marea.update_product",
    {
      title: "Update a product",
      description:
        "Changes the fields given in `patch`; omitted fields are kept, null clears an optional field.",
      operation: "updateProduct",
      input: ProductParams.extend({ patch: UpdateProductInput }),
      output: ProductDto,
      annotations: writes({ destructiveHint: true, idempotentHint: true, openWorldHint: false }),
    },
    (ctx, input) => updateProduct(ctx, input),
  ),
  tool(
    "marea.delete_product",
    {
      title: "Delete a product",
      description: "Deletes a product from its storefront for good.",
      operation: "deleteProduct",
      input: ProductParams,
      output: DeletedResponse,
      annotations: writes({ destructiveHint: true, idempotentHint: true, openWorldHint: false }),
    },
    (ctx, input) => deleteProduct(ctx, input),
  ),
];
