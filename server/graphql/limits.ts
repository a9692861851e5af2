import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";
import { MAX_BODY_BYTES } from "@/server/http/pipeline";

/**
 * The limits of the GraphQL door (docs/graphql.md, "Limits"). Depth, aliases, tokens and directives are
 * graphql-armor's validation rules (yoga.ts); the cost is computed here, because it must read `first` from the
 * variables too. Every limit refuses the query before it runs: 400 `query_too_complex`.
 */
export const GRAPHQL_LIMITS = {
  /** Nested fields below the operation (inline fragments and spreads add no level). */
  maxDepth: 10,
  /** The cost budget of one operation (see `operationCost`). */
  maxCost: 1000,
  /** Aliased fields per operation (`__typename` aside). */
  maxAliases: 15,
  /** Lexical tokens of the query text (the full introspection query is about 190). */
  maxTokens: 2000,
  /** Directives per operation. */
  maxDirectives: 10,
  /** The query text; larger is 413 `payload_too_large` before it is parsed. */
  maxQueryBytes: 100_000,
  /** The whole request body, as on /v1 (variables included). */
  maxBodyBytes: MAX_BODY_BYTES,
  /** What a mutation costs besides its selection. */
  mutationCost: 10,
  /** `first` of every connection: 1-100, default 20. */
  defaultFirst: 20,
  maxFirst: 100,
} as const;

/**
 * What an operation may load, counted before it runs (docs/graphql.md, "Cost"): 1 per object with an id (a
 * `Node`), 1 per list fetched, and a list's selection `first` times (the argument or its variable; default 20;
 * `nodes(ids)`: once per id); value objects (branding, schedule...), connections, edges and page info are free;
 * each mutation adds `mutationCost`. Introspection is free.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | null | undefined,
): number {
  const fragments = fragmentsOf(document);
  const root = schema.getRootType(operation.operation);
  if (!root) return 0;
  const walk = { schema, fragments, variables: variables ?? {}, spreading: new Set<string>() };
  const selection = selectionSetCost(walk, operation.selectionSet, root);
  return operation.operation === "mutation"
    ? selection + rootFieldCount(operation, fragments) * GRAPHQL_LIMITS.mutationCost
    : selection;
}

export function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return fragments;
}

type Walk = {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  spreading: Set<string>;
};

function selectionSetCost(walk: Walk, set: SelectionSetNode, parent: GraphQLNamedType): number {
  let total = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value.startsWith("__") || !selection.selectionSet) continue;
      if (!isObjectType(parent) && !isInterfaceType(parent)) continue;
      const field = parent.getFields()[selection.name.value];
      if (!field) continue;
      const type = getNamedType(field.type);
      const inner = selectionSetCost(walk, selection.selectionSet, type);
      const argument = (name: string) => selection.arguments?.find((arg) => arg.name.value === name)?.value;
      if (field.args.some((arg) => arg.name === "first")) {
        total += 1 + firstOf(argument("first"), walk.variables) * inner;
      } else if (field.args.some((arg) => arg.name === "ids")) {
        total += 1 + listLengthOf(argument("ids"), walk.variables) * ((isNode(type) ? 1 : 0) + inner);
      } else {
        total += (isNode(type) ? 1 : 0) + inner;
      }
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const condition = selection.typeCondition
        ? walk.schema.getType(selection.typeCondition.name.value)
        : parent;
      total += selectionSetCost(walk, selection.selectionSet, condition ?? parent);
    } else {
      const name = selection.name.value;
      const fragment = walk.fragments.get(name);
      if (!fragment || walk.spreading.has(name)) continue;
      walk.spreading.add(name);
      const condition = walk.schema.getType(fragment.typeCondition.name.value);
      total += selectionSetCost(walk, fragment.selectionSet, condition ?? parent);
      walk.spreading.delete(name);
    }
  }
  return total;
}

function isNode(type: GraphQLNamedType): boolean {
  return (
    (isObjectType(type) || isInterfaceType(type)) &&
    (type.name === "Node" || type.getInterfaces().some((item) => item.name === "Node"))
  );
}

/** `first` as the resolver will read it: a literal, a variable, or the default; clamped to the maximum. */
function firstOf(value: ValueNode | undefined, variables: Record<string, unknown>): number {
  let first: unknown = GRAPHQL_LIMITS.defaultFirst;
  if (value?.kind === Kind.INT) first = Number(value.value);
  else if (value?.kind === Kind.VARIABLE) first = variables[value.name.value] ?? GRAPHQL_LIMITS.defaultFirst;
  return typeof first === "number" && Number.isFinite(first)
    ? Math.min(Math.max(Math.trunc(first), 1), GRAPHQL_LIMITS.maxFirst)
    : GRAPHQL_LIMITS.defaultFirst;
}

function listLengthOf(value: ValueNode | undefined, variables: Record<string, unknown>): number {
  if (value?.kind === Kind.LIST) return value.values.length;
  if (value?.kind === Kind.VARIABLE) {
    const list = variables[value.name.value];
    return Array.isArray(list) ? list.length : 1;
  }
  return 1;
}

/** The root fields an operation selects (through fragments too); `__typename` does not count. */
export function rootFieldCount(
  operation: OperationDefinitionNode,
  fragments: Map<string, FragmentDefinitionNode>,
): number {
  const count = (set: SelectionSetNode, seen: Set<string>): number =>
    set.selections.reduce((sum, selection) => {
      if (selection.kind === Kind.FIELD) return sum + (selection.name.value === "__typename" ? 0 : 1);
      if (selection.kind === Kind.INLINE_FRAGMENT) return sum + count(selection.selectionSet, seen);
      const fragment = fragments.get(selection.name.value);
      if (!fragment || seen.has(fragment.name.value)) return sum;
      return sum + count(fragment.selectionSet, new Set([...seen, fragment.name.value]));
    }, 0);
  return count(operation.selectionSet, new Set());
}
