import { z } from "zod";
import { UserRef } from "@/server/accounts/graphql";
import { builder } from "@/server/graphql/builder";
import { connectionType, listQueryOf, toConnection } from "@/server/graphql/connections";
import type { GraphQLContext } from "@/server/graphql/context";
import { parseArg, parseId } from "@/server/graphql/input";
import { NodeRef, registerNodeType } from "@/server/graphql/node";
import { DeletedPayloadRef, RejectedProductRef, rejectedProducts } from "@/server/graphql/payloads";
import { JsonScalar } from "@/server/graphql/scalars";
import {
  ProductConnectionRef,
  ProductManifestInputRef,
  ProductRef,
  productsOfStorefront,
} from "@/server/products/graphql";
import type { ProductDto } from "@/server/products/schema";
import { PRODUCT_MAXIMA } from "@/server/products/schema";
import { text } from "@/server/validation";
import { CreateStorefrontInput, type StorefrontDto, UpdateStorefrontInput } from "./schema";

const CategoryFilter = z.object({ category: text({ max: PRODUCT_MAXIMA.category }) });

import { updateStorefront } from "./patch";
import { publishStorefront, unpublishStorefront } from "./publish";
import {
  createStorefront,
  deleteStorefront,
  listStorefronts,
  loadBootstrappedUserStorefronts,
  loadStorefronts,
} from "./service";

/** Storefronts over GraphQL (docs/graphql.md): the Storefront type, its products, queries and mutations. */

type Branding = NonNullable<StorefrontDto["branding"]>;
type Schedule = NonNullable<StorefrontDto["schedule"]>;
type Delivery = NonNullable<StorefrontDto["delivery"]>;

const ThemeRef = builder.objectRef<NonNullable<Branding["theme"]>>("Theme").implement({
  fields: (t) => ({
    primary: t.exposeString("primary", { nullable: true }),
    secondary: t.exposeString("secondary", { nullable: true }),
    tertiary: t.exposeString("tertiary", { nullable: true }),
  }),
});

const BrandingRef = builder.objectRef<Branding>("Branding").implement({
  fields: (t) => ({
    logoUrl: t.exposeString("logoUrl", { nullable: true }),
    backgroundUrl: t.exposeString("backgroundUrl", { nullable: true }),
    theme: t.field({ type: ThemeRef, nullable: true, resolve: (branding) => branding.theme }),
    font: t.exposeString("font", { nullable: true }),
  }),
});

const ScheduleDayRef = builder.objectRef<NonNullable<Schedule["monday"]>>("ScheduleDay").implement({
  fields: (t) => ({
    open: t.exposeString("open", { nullable: true }),
    close: t.exposeString("close", { nullable: true }),
    closed: t.exposeBoolean("closed", { nullable: true }),
  }),
});

const DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;

const ScheduleRef = builder.objectRef<Schedule>("Schedule").implement({
  fields: (t) =>
    Object.fromEntries(
      DAYS.map((day) => [
        day,
        t.field({ type: ScheduleDayRef, nullable: true, resolve: (schedule) => schedule[day] }),
      ]),
    ),
});

const DeliveryRangeRef = builder
  .objectRef<NonNullable<Delivery["ranges"]>[number]>("DeliveryRange")
  .implement({
    fields: (t) => ({
      fromKm: t.exposeFloat("fromKm"),
      toKm: t.exposeFloat("toKm", { nullable: true, description: "null: no upper bound (the last range)." }),
      price: t.exposeFloat("price"),
    }),
  });

const DeliverySettingsRef = builder.objectRef<Delivery>("DeliverySettings").implement({
  description: "A storefront's `delivery` (not a webhook Delivery).",
  fields: (t) => ({
    enabled: t.exposeBoolean("enabled"),
    type: t.exposeString("type", { nullable: true, description: "`fixed` or `distance`." }),
    fixedPrice: t.exposeFloat("fixedPrice", { nullable: true }),
    ranges: t.field({ type: [DeliveryRangeRef], nullable: true, resolve: (delivery) => delivery.ranges }),
  }),
});

const BiographyRef = builder.objectRef<NonNullable<StorefrontDto["biography"]>>("Biography").implement({
  fields: (t) => ({ title: t.exposeString("title"), description: t.exposeString("description") }),
});

const CategoryRef = builder
  .objectRef<NonNullable<StorefrontDto["categories"]>[number]>("Category")
  .implement({
    fields: (t) => ({ name: t.exposeString("name"), position: t.exposeInt("position", { nullable: true }) }),
  });

const StorefrontLinksRef = builder.objectRef<StorefrontDto["_links"]>("StorefrontLinks").implement({
  fields: (t) => ({
    editUrl: t.exposeString("editUrl", { nullable: true }),
    publicUrl: t.exposeString("publicUrl", { nullable: true, description: "While published." }),
  }),
});

export const StorefrontRef = builder.objectRef<StorefrontDto>("Storefront").implement({
  description: "/v1's Storefront object, field for field (`links` is `_links`), with its products.",
  interfaces: [NodeRef],
  fields: (t) => ({
    name: t.exposeString("name"),
    language: t.exposeString("language", { description: "`es`, `en` or `pt`." }),
    currency: t.exposeString("currency"),
    businessType: t.exposeString("businessType", { nullable: true }),
    branding: t.field({ type: BrandingRef, nullable: true, resolve: (s) => s.branding }),
    schedule: t.field({ type: ScheduleRef, nullable: true, resolve: (s) => s.schedule }),
    delivery: t.field({ type: DeliverySettingsRef, nullable: true, resolve: (s) => s.delivery }),
    pickup: t.exposeBoolean("pickup", { nullable: true }),
    dineIn: t.exposeBoolean("dineIn", { nullable: true }),
    whatsapp: t.exposeString("whatsapp", { nullable: true }),
    biography: t.field({ type: BiographyRef, nullable: true, resolve: (s) => s.biography }),
    categories: t.field({ type: [CategoryRef], nullable: true, resolve: (s) => s.categories }),
    slug: t.exposeString("slug", { nullable: true }),
    hidden: t.exposeBoolean("hidden", { nullable: true }),
    published: t.exposeBoolean("published", { nullable: true }),
    links: t.field({ type: StorefrontLinksRef, resolve: (s) => s._links }),
    createdAt: t.exposeString("createdAt", { nullable: true }),
    updatedAt: t.exposeString("updatedAt", { nullable: true }),
    products: t.field({
      type: ProductConnectionRef,
      nullable: true,
      description: "The storefront's products by id; `category` keeps one category's.",
      args: { first: t.arg.int(), after: t.arg.string(), category: t.arg.string() },
      resolve: async (storefront, args, ctx) =>
        toConnection(
          await productsOfStorefront(ctx, storefront.id, {
            ...listQueryOf(args, ctx),
            // The same text rule and maximum as a stored category (docs/api.md, "Maxima").
            category:
              args.category == null
                ? args.category
                : parseArg(CategoryFilter, { category: args.category }, ctx).category,
          }),
          (product) => product.id,
        ),
    }),
  }),
});

const StorefrontConnectionRef = connectionType("Storefront", StorefrontRef);

/** One storefront by id (`storefront`, `node`, `Order.storefront`), through the request's loader. */
export function storefrontLoader(ctx: GraphQLContext) {
  return ctx.loader<StorefrontDto>("storefronts", (ids) =>
    loadStorefronts(ctx.service, { storefrontIds: ids }),
  );
}
registerNodeType({
  prefix: "stf_",
  typeName: "Storefront",
  load: (ctx, id) => storefrontLoader(ctx).load(id),
});

builder.queryField("storefront", (t) =>
  t.field({
    type: StorefrontRef,
    nullable: true,
    description:
      "One storefront of the caller's account (null with `storefront_not_found` or `storefront_deleted`).",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => storefrontLoader(ctx).load(parseId(args.id, ctx)),
  }),
);

builder.queryField("storefronts", (t) =>
  t.field({
    type: StorefrontConnectionRef,
    nullable: true,
    description: "The account's live storefronts, by id.",
    args: { first: t.arg.int(), after: t.arg.string() },
    resolve: async (_, args, ctx) =>
      toConnection(await listStorefronts(ctx.service, listQueryOf(args, ctx)), (storefront) => storefront.id),
  }),
);

builder.objectField(UserRef, "storefronts", (t) =>
  t.field({
    type: StorefrontConnectionRef,
    nullable: true,
    description: "The user's live storefronts, by id (a developer's read of the accounts it bootstrapped).",
    args: { first: t.arg.int(), after: t.arg.string() },
    resolve: async (user, args, ctx) => {
      const query = listQueryOf(args, ctx);
      const page = await ctx
        .loader(`bootstrappedUserStorefronts:${JSON.stringify(query)}`, (ids) =>
          loadBootstrappedUserStorefronts(ctx.service, { userIds: ids, ...query }),
        )
        .load(user.id);
      return toConnection(page, (storefront) => storefront.id);
    },
  }),
);

// Inputs: /v1's storefront input shape. Every field is optional here and the zod schema decides, as on /v1, so
// the same rules and `param` apply; a field left out stays untouched, `null` clears it.

const ThemeInputRef = builder.inputType("ThemeInput", {
  description: "`{primary, secondary, tertiary}` (all three) or `{preset}`.",
  fields: (t) => ({ primary: t.string(), secondary: t.string(), tertiary: t.string(), preset: t.string() }),
});

const BrandingInputRef = builder.inputType("BrandingInput", {
  description: "Deep-merged into the stored branding on update.",
  fields: (t) => ({
    logoUrl: t.field({ type: JsonScalar, description: "An http(s) URL, `{fileId}`, or null." }),
    backgroundUrl: t.field({
      type: JsonScalar,
      description: 'An http(s) URL, `{fileId}`, `"auto"`, or null.',
    }),
    theme: t.field({ type: ThemeInputRef }),
    font: t.string(),
  }),
});

const ScheduleDayInputRef = builder.inputType("ScheduleDayInput", {
  fields: (t) => ({
    open: t.string({ description: "HH:MM" }),
    close: t.string({ description: "HH:MM" }),
    closed: t.boolean(),
  }),
});

const ScheduleInputRef = builder.inputType("ScheduleInput", {
  description: "Merged day by day, then key by key, on update.",
  fields: (t) => ({
    monday: t.field({ type: ScheduleDayInputRef }),
    tuesday: t.field({ type: ScheduleDayInputRef }),
    wednesday: t.field({ type: ScheduleDayInputRef }),
    thursday: t.field({ type: ScheduleDayInputRef }),
    friday: t.field({ type: ScheduleDayInputRef }),
    saturday: t.field({ type: ScheduleDayInputRef }),
    sunday: t.field({ type: ScheduleDayInputRef }),
  }),
});

const DeliveryRangeInputRef = builder.inputType("DeliveryRangeInput", {
  fields: (t) => ({ fromKm: t.float(), toKm: t.float(), price: t.float() }),
});

const DeliveryInputRef = builder.inputType("DeliveryInput", {
  description: "`enabled` is required; ranges must not overlap (`param` names the later range's `fromKm`).",
  fields: (t) => ({
    enabled: t.boolean(),
    type: t.string({ description: "`fixed` or `distance`." }),
    fixedPrice: t.float(),
    ranges: t.field({ type: [DeliveryRangeInputRef] }),
  }),
});

const CategoryInputRef = builder.inputType("CategoryInput", {
  fields: (t) => ({ name: t.string(), position: t.int() }),
});

function storefrontInputFields(t: Parameters<Parameters<typeof builder.inputType>[1]["fields"]>[0]) {
  return {
    name: t.string({ description: "1-100 characters." }),
    language: t.string({ description: "`es`, `en` or `pt`." }),
    currency: t.string({ description: "ISO 4217 (the spec's list)." }),
    businessType: t.string({ description: "One of the spec's business types." }),
    branding: t.field({ type: BrandingInputRef }),
    schedule: t.field({ type: ScheduleInputRef }),
    delivery: t.field({ type: DeliveryInputRef }),
    pickup: t.boolean(),
    dineIn: t.boolean(),
    hidden: t.boolean({ description: "null is stored as false." }),
    biography: t.field({ type: JsonScalar, description: '`{title, description}`, `"auto"`, or null.' }),
    blocks: t.field({ type: JsonScalar, description: '`"auto"`, an array, or null.' }),
    categories: t.field({ type: [CategoryInputRef], description: "Replaces the stored list." }),
    slug: t.string(),
  };
}

const CreateStorefrontInputRef = builder.inputType("CreateStorefrontInput", {
  description: "/v1's `POST /v1/storefronts` body: `name` and `currency` are required.",
  fields: (t) => ({
    ...storefrontInputFields(t),
    whatsapp: t.string({ description: "E.164; can only be set here." }),
    products: t.field({ type: [ProductManifestInputRef], description: "Up to 100, created in order." }),
  }),
});

const UpdateStorefrontInputRef = builder.inputType("UpdateStorefrontInput", {
  description:
    "/v1's PATCH body: nested objects deep-merge, arrays replace. `whatsapp` and `products` are refused (400 `invalid_request`, even null), and nothing is written.",
  fields: (t) => ({
    ...storefrontInputFields(t),
    whatsapp: t.string({ description: "Refused: set at creation only." }),
    products: t.field({ type: [ProductManifestInputRef], description: "Refused: use createProduct(s)." }),
  }),
});

const CreateStorefrontPayloadRef = builder
  .objectRef<{
    storefront: StorefrontDto;
    products: ProductDto[];
    rejected: ReturnType<typeof rejectedProducts>;
  }>("CreateStorefrontPayload")
  .implement({
    fields: (t) => ({
      storefront: t.field({ type: StorefrontRef, resolve: (payload) => payload.storefront }),
      products: t.field({ type: [ProductRef], resolve: (payload) => payload.products }),
      rejected: t.field({
        type: [RejectedProductRef],
        description: "Products the plan's limit kept out (`param: products[<index>]`); empty when all fit.",
        resolve: (payload) => payload.rejected,
      }),
    }),
  });

builder.mutationField("createStorefront", (t) =>
  t.field({
    type: CreateStorefrontPayloadRef,
    nullable: true,
    args: { input: t.arg({ type: CreateStorefrontInputRef, required: true }) },
    resolve: async (_, args, ctx) => {
      const { rejected, ...created } = await createStorefront(
        ctx.service,
        parseArg(CreateStorefrontInput, args.input, ctx),
      );
      return { ...created, rejected: rejectedProducts(rejected, ctx) };
    },
  }),
);

builder.mutationField("updateStorefront", (t) =>
  t.field({
    type: StorefrontRef,
    nullable: true,
    description: "Deep-merge a change into a storefront (/v1's PATCH rules 1-4).",
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateStorefrontInputRef, required: true }),
      expectedUpdatedAt: t.arg.string({
        description:
          "/v1's If-Match: the change applies only while `updatedAt` is still this (else 409 `storefront_conflict`).",
      }),
    },
    resolve: (_, args, ctx) =>
      updateStorefront(ctx.service, {
        storefrontId: parseId(args.id, ctx),
        patch: parseArg(UpdateStorefrontInput, args.input, ctx),
        expectedUpdatedAt: args.expectedUpdatedAt,
      }),
  }),
);

builder.mutationField("publishStorefront", (t) =>
  t.field({
    type: StorefrontRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => publishStorefront(ctx.service, { storefrontId: parseId(args.id, ctx) }),
  }),
);

builder.mutationField("unpublishStorefront", (t) =>
  t.field({
    type: StorefrontRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => unpublishStorefront(ctx.service, { storefrontId: parseId(args.id, ctx) }),
  }),
);

builder.mutationField("deleteStorefront", (t) =>
  t.field({
    type: DeletedPayloadRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => deleteStorefront(ctx.service, { storefrontId: parseId(args.id, ctx) }),
  }),
);
