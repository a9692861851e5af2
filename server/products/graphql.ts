import { builder } from "@/server/graphql/builder";
import { connectionType } from "@/server/graphql/connections";
import type { GraphQLContext } from "@/server/graphql/context";
import { parseArg, parseId } from "@/server/graphql/input";
import { NodeRef, registerNodeType } from "@/server/graphql/node";
import { DeletedPayloadRef, RejectedProductRef, rejectedProducts } from "@/server/graphql/payloads";
import type { ListQuery } from "@/server/lib/pagination";
import { BatchCreateProductsInput, type ProductDto, ProductManifest, UpdateProductInput } from "./schema";
import {
  createProduct,
  createProducts,
  deleteProduct,
  loadProducts,
  loadProductsByStorefront,
  updateProduct,
} from "./service";

/** Products over GraphQL (docs/graphql.md): the Product type, `product(id)` and the product mutations. */

type ExtraCategory = NonNullable<ProductDto["extraProductsCategory"]>[number];
type ExtraOption = NonNullable<ExtraCategory["extraProducts"]>[number];

const ExtraProductOptionRef = builder.objectRef<ExtraOption>("ExtraProductOption").implement({
  fields: (t) => ({
    title: t.exposeString("title"),
    price: t.exposeFloat("price"),
    available: t.exposeBoolean("available"),
    stock: t.exposeInt("stock", { nullable: true }),
  }),
});

const ExtraProductsCategoryRef = builder.objectRef<ExtraCategory>("ExtraProductsCategory").implement({
  fields: (t) => ({
    title: t.exposeString("title"),
    obligatory: t.exposeBoolean("obligatory"),
    multipleOption: t.exposeBoolean("multipleOption"),
    maxOptions: t.exposeInt("maxOptions"),
    minOptions: t.exposeInt("minOptions"),
    extraProducts: t.field({
      type: [ExtraProductOptionRef],
      nullable: true,
      resolve: (category) => category.extraProducts,
    }),
  }),
});

export const ProductRef = builder.objectRef<ProductDto>("Product").implement({
  description: "/v1's Product object, field for field.",
  interfaces: [NodeRef],
  fields: (t) => ({
    title: t.exposeString("title"),
    price: t.exposeFloat("price"),
    description: t.exposeString("description", { nullable: true }),
    salePrice: t.exposeFloat("salePrice", { nullable: true }),
    category: t.exposeString("category", { nullable: true }),
    subcategory: t.exposeString("subcategory", { nullable: true }),
    imageUrl: t.exposeString("imageUrl", { nullable: true }),
    thumbnailUrl: t.exposeString("thumbnailUrl", { nullable: true }),
    sku: t.exposeString("sku", { nullable: true }),
    slug: t.exposeString("slug", { nullable: true }),
    position: t.exposeInt("position", { nullable: true }),
    cartProduct: t.exposeBoolean("cartProduct", { nullable: true }),
    hide: t.exposeBoolean("hide", { nullable: true }),
    stock: t.exposeInt("stock", { nullable: true }),
    tags: t.exposeStringList("tags", { nullable: true }),
    extraProductsCategory: t.field({
      type: [ExtraProductsCategoryRef],
      nullable: true,
      resolve: (product) => product.extraProductsCategory,
    }),
    imageProcessingPending: t.exposeBoolean("imageProcessingPending"),
    createdAt: t.exposeString("createdAt"),
    updatedAt: t.exposeString("updatedAt"),
  }),
});

export const ProductConnectionRef = connectionType("Product", ProductRef);

/** One product by id (`product`, `node`), through the request's loader. */
function productLoader(ctx: GraphQLContext) {
  return ctx.loader<ProductDto>("products", (ids) => loadProducts(ctx.service, { productIds: ids }));
}
registerNodeType({ prefix: "prd_", typeName: "Product", load: (ctx, id) => productLoader(ctx).load(id) });

/** A page of one storefront's products (`Storefront.products`): every storefront of the query in one call. */
export function productsOfStorefront(
  ctx: GraphQLContext,
  storefrontId: string,
  query: ListQuery & { category?: string | null },
) {
  return ctx
    .loader(`productsByStorefront:${JSON.stringify(query)}`, (ids) =>
      loadProductsByStorefront(ctx.service, { storefrontIds: ids, ...query }),
    )
    .load(storefrontId);
}

builder.queryField("product", (t) =>
  t.field({
    type: ProductRef,
    nullable: true,
    description: "One product of the caller's account.",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => productLoader(ctx).load(parseId(args.id, ctx)),
  }),
);

const ExtraProductOptionInputRef = builder.inputType("ExtraProductOptionInput", {
  fields: (t) => ({
    title: t.string(),
    price: t.float(),
    available: t.boolean(),
    stock: t.int(),
  }),
});

const ExtraProductsCategoryInputRef = builder.inputType("ExtraProductsCategoryInput", {
  fields: (t) => ({
    title: t.string(),
    obligatory: t.boolean(),
    multipleOption: t.boolean(),
    maxOptions: t.int(),
    minOptions: t.int(),
    extraProducts: t.field({ type: [ExtraProductOptionInputRef] }),
  }),
});

/**
 * The product input fields. GraphQL leaves every one optional and the zod schema decides (as /v1 does), so the
 * same errors and `param` come out; a field left out stays out, and `null` is sent on as null (clears it).
 */
function productInputFields(t: Parameters<Parameters<typeof builder.inputType>[1]["fields"]>[0]) {
  return {
    title: t.string({ description: "1-200 characters; required on create." }),
    price: t.float({ description: ">= 0; required on create." }),
    description: t.string(),
    salePrice: t.float({ description: "Below `price`." }),
    category: t.string(),
    subcategory: t.string(),
    imageUrl: t.string({ description: "http(s); fetched in the background (`imageProcessingPending`)." }),
    thumbnailUrl: t.string(),
    sku: t.string(),
    slug: t.string(),
    position: t.int(),
    cartProduct: t.boolean(),
    hide: t.boolean(),
    stock: t.int({ description: ">= 0; null: not tracked." }),
    tags: t.stringList(),
    extraProductsCategory: t.field({ type: [ExtraProductsCategoryInputRef] }),
  };
}

export const ProductManifestInputRef = builder.inputType("ProductManifest", {
  description: "A new product (/v1's ProductManifest): `title` and `price` are required.",
  fields: (t) => productInputFields(t),
});

const UpdateProductInputRef = builder.inputType("UpdateProductInput", {
  description: "A change of a product: fields left out stay as they are; null clears an optional field.",
  fields: (t) => productInputFields(t),
});

const CreateProductsPayloadRef = builder
  .objectRef<{ products: ProductDto[]; rejected: ReturnType<typeof rejectedProducts> }>(
    "CreateProductsPayload",
  )
  .implement({
    fields: (t) => ({
      products: t.field({ type: [ProductRef], resolve: (payload) => payload.products }),
      rejected: t.field({
        type: [RejectedProductRef],
        description:
          "The inputs the plan's product limit kept out (`param: inputs[<index>]`); empty when all fit.",
        resolve: (payload) => payload.rejected,
      }),
    }),
  });

builder.mutationField("createProduct", (t) =>
  t.field({
    type: ProductRef,
    nullable: true,
    description: "Create a product. Over the plan's product limit: `plan_max_products_reached`.",
    args: {
      storefrontId: t.arg.id({ required: true }),
      input: t.arg({ type: ProductManifestInputRef, required: true }),
    },
    resolve: (_, args, ctx) =>
      createProduct(ctx.service, {
        storefrontId: parseId(args.storefrontId, ctx, "storefrontId"),
        product: parseArg(ProductManifest, args.input, ctx),
      }),
  }),
);

builder.mutationField("createProducts", (t) =>
  t.field({
    type: CreateProductsPayloadRef,
    nullable: true,
    description: "Create 1-100 products in order; those past the plan's limit come back in `rejected`.",
    args: {
      storefrontId: t.arg.id({ required: true }),
      inputs: t.arg({ type: [ProductManifestInputRef], required: true }),
    },
    resolve: async (_, args, ctx) => {
      const products = parseArg(BatchCreateProductsInput.shape.products, args.inputs, ctx, "inputs");
      const created = await createProducts(ctx.service, {
        storefrontId: parseId(args.storefrontId, ctx, "storefrontId"),
        products,
      });
      return { products: created.products, rejected: rejectedProducts(created.rejected, ctx, "inputs") };
    },
  }),
);

builder.mutationField("updateProduct", (t) =>
  t.field({
    type: ProductRef,
    nullable: true,
    description: "Change any product field.",
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateProductInputRef, required: true }) },
    resolve: (_, args, ctx) =>
      updateProduct(ctx.service, {
        productId: parseId(args.id, ctx),
        patch: parseArg(UpdateProductInput, args.input, ctx),
      }),
  }),
);

builder.mutationField("deleteProduct", (t) =>
  t.field({
    type: DeletedPayloadRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => deleteProduct(ctx.service, { productId: parseId(args.id, ctx) }),
  }),
);
