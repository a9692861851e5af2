import type { AppError } from "@/server/errors";
import { type Page, toPage } from "./pagination";

/**
 * Helpers for the batch functions of the services (`loadStorefronts`, `loadProductsByStorefront`, ...): one
 * statement answers many parents at once, so a GraphQL query of 20 storefronts with their products runs the
 * same few statements as a query of one (docs/graphql.md, "Performance"). Each batch function answers one
 * result per requested id, in the order asked, as DataLoader expects.
 */

/** For each id in `ids`: the mapped row with that id, or the error `missing()` makes for it. */
export function inRequestedOrder<R, T>(
  ids: readonly string[],
  rows: R[],
  idOf: (row: R) => string,
  map: (row: R) => T | AppError,
  missing: () => AppError,
): Array<T | AppError> {
  const byId = new Map(rows.map((row) => [idOf(row), row]));
  return ids.map((id) => {
    const row = byId.get(id);
    return row === undefined ? missing() : map(row);
  });
}

/**
 * The rows of a batched list (each parent's first `limit + 1` rows, in list order) cut into one page per parent,
 * in `parentIds` order; a parent without rows gets an empty page. `compare` is the list's order: a join does not
 * promise to keep the order of its lateral subquery, so each page is sorted again here.
 */
export function toPages<R extends { id: string }, T>(
  parentIds: readonly string[],
  rows: R[],
  parentOf: (row: R) => string,
  limit: number,
  map: (row: R) => T,
  compare: (a: R, b: R) => number = byIdAscending,
): Array<Page<T>> {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const key = parentOf(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return parentIds.map((id) => toPage((groups.get(id) ?? []).sort(compare), limit, map));
}

export function byIdAscending(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
