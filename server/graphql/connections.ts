import type { ObjectRef } from "@pothos/core";
import { z } from "zod";
import { encodeCursor, type ListQuery, type Page } from "@/server/lib/pagination";
import { text } from "@/server/validation";
import { builder } from "./builder";
import type { GraphQLContext } from "./context";
import { parseArg } from "./input";
import { GRAPHQL_LIMITS } from "./limits";

/**
 * Relay-style connections over the services' id-ordered pages (docs/graphql.md, "Pagination"): `first` 1-100
 * (default 20) and `after` are /v1's `limit` and `cursor`, and an edge's cursor is the cursor /v1 would answer as
 * `nextCursor` after that item, so cursors of both doors are interchangeable. Lists page forward only.
 */
export type PageInfo = {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
};
export type Edge<T> = { cursor: string; node: T };
export type Connection<T> = { edges: Array<Edge<T>>; pageInfo: PageInfo };

export const PageInfoRef = builder.objectRef<PageInfo>("PageInfo").implement({
  description: "Where a page of a list ends. Lists page forward (`first`, `after`).",
  fields: (t) => ({
    hasNextPage: t.exposeBoolean("hasNextPage", { description: "More items follow `endCursor`." }),
    hasPreviousPage: t.exposeBoolean("hasPreviousPage", {
      description: "Always false: lists page forward only.",
    }),
    startCursor: t.exposeString("startCursor", { nullable: true }),
    endCursor: t.exposeString("endCursor", {
      nullable: true,
      description: "Pass it as `after` for the next page (the same cursor as /v1's `nextCursor`).",
    }),
  }),
});

type Types = typeof builder.$inferSchemaTypes;

/** `<Name>Connection { edges { cursor node } pageInfo }` and its `<Name>Edge`, over the object type `node`. */
export function connectionType<T extends object>(name: string, node: ObjectRef<Types, T>) {
  const edge = builder.objectRef<Edge<T>>(`${name}Edge`).implement({
    fields: (t) => ({
      cursor: t.exposeString("cursor"),
      // Pothos's resolver type is a conditional type it cannot resolve for a generic T: the node is a T.
      node: t.field({ type: node, resolve: (parent) => parent.node as never }),
    }),
  });
  return builder.objectRef<Connection<T>>(`${name}Connection`).implement({
    description: `A page of ${name} objects, ordered by id.`,
    fields: (t) => ({
      edges: t.field({ type: [edge], resolve: (parent) => parent.edges }),
      pageInfo: t.field({ type: PageInfoRef, resolve: (parent) => parent.pageInfo }),
    }),
  });
}

const ConnectionArgs = z.strictObject({
  first: z.int().min(1).max(GRAPHQL_LIMITS.maxFirst).nullish(),
  after: text({ max: 512 }).nullish(),
});

/** `first` and `after` of a connection field as a service's `ListQuery` (400 `invalid_request`, `param: first`). */
export function listQueryOf(
  args: { first?: number | null; after?: string | null },
  ctx: GraphQLContext,
): ListQuery {
  const parsed = parseArg(ConnectionArgs, { first: args.first, after: args.after }, ctx);
  return { limit: parsed.first ?? GRAPHQL_LIMITS.defaultFirst, cursor: parsed.after ?? undefined };
}

/** A service page as a connection; `idOf` names the id the cursor continues after (default `id`). */
export function toConnection<T>(page: Page<T>, idOf: (node: T) => string): Connection<T> {
  const edges = page.data.map((node) => ({ cursor: encodeCursor(idOf(node)), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: page.nextCursor !== null,
      hasPreviousPage: false,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}
