import { z } from "zod";
import { builder } from "./builder";
import type { GraphQLContext } from "./context";
import { Id, parseArg, parseId } from "./input";

/**
 * The `Node` interface (docs/graphql.md, "Ids"): every object with an id implements it, and its global id is
 * Marea's own prefixed id (`stf_…`, `prd_…`, `ord_…`, `mk_we_…`, `dlv_…`, `usr_…`), the same as /v1's. Each
 * feature registers the prefix of its ids and the loader that reads one (`registerNodeType`).
 */
export type NodeValue = { id: string } | { endpointId: string };

type NodeType = {
  prefix: string;
  typeName: string;
  /** Reads one object of the caller's account by id through the feature's loader (a service batch function). */
  load: (ctx: GraphQLContext, id: string) => Promise<unknown>;
};

const NODE_TYPES: NodeType[] = [];

export function registerNodeType(type: NodeType): void {
  NODE_TYPES.push(type);
}

/**
 * An object's `id`; a webhook endpoint has none and its id is its `endpointId` (the DTO keeps the spec's name).
 * A delivery has both: its own `id` and its endpoint's `endpointId`.
 */
export function globalIdOf(value: NodeValue): string {
  return "id" in value ? value.id : value.endpointId;
}

function nodeTypeOf(id: string): NodeType | undefined {
  return NODE_TYPES.find((type) => id.startsWith(type.prefix));
}

export const NodeRef = builder.interfaceRef<NodeValue>("Node").implement({
  description: "An object with an id. Its id is global: `node(id:)` reads any of them.",
  fields: (t) => ({
    id: t.id({
      description: "Marea's own id, with its prefix (`stf_…`, `prd_…`, `mk_we_…`): the same as in /v1.",
      resolve: globalIdOf,
    }),
  }),
  resolveType: (value) => {
    const type = nodeTypeOf(globalIdOf(value));
    if (!type) throw new Error(`no Node type for the id ${globalIdOf(value)}`);
    return type.typeName;
  },
});

/** An id no type claims is null (no error): Relay's `node` answers null for an id it cannot resolve. */
function loadNode(ctx: GraphQLContext, id: string): Promise<unknown> {
  const type = nodeTypeOf(id);
  return type ? type.load(ctx, id) : Promise.resolve(null);
}

builder.queryField("node", (t) =>
  t.field({
    type: NodeRef,
    nullable: true,
    description:
      "Any object of the caller's account by its id. Another account's id, or one of a deleted storefront, is null with the error the type's own query answers (`storefront_not_found`, `storefront_deleted`...).",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => loadNode(ctx, parseId(args.id, ctx)) as Promise<NodeValue | null>,
  }),
);

const NodeIds = z.array(Id).max(100);

builder.queryField("nodes", (t) =>
  t.field({
    type: [NodeRef],
    nullable: { list: true, items: true },
    description: "Up to 100 objects by id, in the order asked; each is what `node` answers for it.",
    args: { ids: t.arg.idList({ required: true }) },
    resolve: (_, args, ctx) =>
      parseArg(NodeIds, args.ids, ctx, "ids").map((id) => loadNode(ctx, id) as Promise<NodeValue | null>),
  }),
);
