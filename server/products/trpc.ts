import { z } from "zod";
import { renderRejected } from "@/server/kit/rejected";
import { input, router, sessionProcedure } from "@/server/trpc/init";
import {
  BatchCreateProductsInput,
  ProductManifest,
  ProductParams,
  ProductTableQuery,
  UpdateProductInput,
} from "./schema";
import {
  createProduct,
  createProducts,
  deleteProduct,
  getProduct,
  getProductCatalog,
  searchProducts,
  updateProduct,
} from "./service";

const StorefrontRef = ProductParams.pick({ storefrontId: true });

/** The dashboard's product procedures (docs/ui.md, "Products"): one line each over server/products/service.ts. */
export const productsRouter = router({
  catalog: sessionProcedure
    .input(input(StorefrontRef))
    .query(({ ctx, input }) => getProductCatalog(ctx.service, input)),
  table: sessionProcedure
    .input(input(ProductTableQuery))
    .query(({ ctx, input }) => searchProducts(ctx.service, input)),
  get: sessionProcedure.input(input(ProductParams)).query(({ ctx, input }) => getProduct(ctx.service, input)),
  create: sessionProcedure
    .input(input(StorefrontRef.extend({ product: ProductManifest })))
    .mutation(({ ctx, input }) => createProduct(ctx.service, input)),
  update: sessionProcedure
    .input(input(ProductParams.extend({ patch: UpdateProductInput })))
    .mutation(({ ctx, input }) => updateProduct(ctx.service, input)),
  delete: sessionProcedure
    .input(input(ProductParams))
    .mutation(({ ctx, input }) => deleteProduct(ctx.service, input)),
  // The batch answers as /v1's 207 does: each rejected product with its catalogue error object.
  importBatch: sessionProcedure
    .input(input(z.strictObject({ ...StorefrontRef.shape, ...BatchCreateProductsInput.shape })))
    .mutation(async ({ ctx, input }) => {
      const { products, rejected } = await createProducts(ctx.service, input);
      return { products, rejected: renderRejected(rejected, ctx.service) ?? [] };
    }),
});
