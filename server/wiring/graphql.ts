import { lexicographicSortSchema } from "graphql";
import "@/server/accounts/graphql";
import "@/server/storefronts/graphql";
import "@/server/products/graphql";
import "@/server/orders/graphql";
import "@/server/webhooks/graphql";
import "@/server/events/graphql";
import { builder } from "@/server/graphql/builder";
import "@/server/graphql/node";
import "@/server/graphql/scalars";
import { createGraphQLYoga } from "@/server/graphql/yoga";
import { commitsOwnWrites } from "./operations";
import { restActionFor } from "./rest";

/**
 * The whole GraphQL schema, gathered from the features' `graphql.ts` files (each adds its types and fields to the
 * one builder). Printed into docs/schema.graphql by `npm run graphql:schema`; a test fails when they differ.
 */
export const schema = lexicographicSortSchema(builder.toSchema());

/** The app's GraphQL door (docs/graphql.md), served at /api/graphql. */
export const yoga = createGraphQLYoga(schema, { resolveAction: restActionFor, commitsOwnWrites });
