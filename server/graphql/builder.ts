import SchemaBuilder from "@pothos/core";
import type { GraphQLContext } from "./context";

/**
 * THE Pothos builder of the GraphQL schema (docs/graphql.md). Each feature adds its types and fields in its own
 * `server/<feature>/graphql.ts`, as `builder.objectRef<Dto>("Name")` over the service DTOs; `schema.ts` gathers
 * them. Fields are non-null unless they say `nullable` (the DTOs' nullability, and every field a service may
 * refuse); arguments and input fields are optional unless they say `required`.
 */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    ID: { Input: string; Output: string };
    /** Any JSON value: the input shapes that are one of several forms (a URL or `{fileId}`, `"auto"` or an object). */
    JSON: { Input: unknown; Output: unknown };
  };
}>({ defaultFieldNullability: false });

builder.queryType({
  description: "Reads. Every field answers what the same /v1 GET would, for the caller's account.",
});
builder.mutationType({
  description:
    "Writes. Each mirrors a /v1 write with the same input and rules; a mutation that fails writes nothing.",
});
