import { valueFromASTUntyped } from "graphql";
import { builder } from "./builder";

/**
 * `JSON`: any JSON value, for the few inputs that take one of several forms (`logoUrl` is a URL or `{fileId}`,
 * `biography` is `{title, description}` or `"auto"`). The feature's zod schema validates it like the /v1 body.
 */
export const JsonScalar = builder.scalarType("JSON", {
  description: "Any JSON value; the field's description says which forms it accepts.",
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node, variables) => valueFromASTUntyped(node, variables),
});
