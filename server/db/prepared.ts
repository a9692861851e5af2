import type { Db } from "./client";

const cache = new WeakMap<Db, Map<string, unknown>>();

/**
 * A query built once per database handle and then only executed (drizzle's `.prepare()` with `sql.placeholder`):
 * for the few reads that run on every dashboard request, where drizzle building the same SQL string again was the
 * largest single cost of a call (docs/architecture.md, "Prepared hot reads"). `name` identifies the query's shape;
 * a transaction handle gets its own entries, which go with it.
 *
 * ```ts
 * const query = prepared(db, "sessions.withAccount", (db) =>
 *   db.select(...).from(sessions).where(eq(sessions.id, sql.placeholder("id"))).prepare("sessions_with_account"));
 * const rows = await query.execute({ id });
 * ```
 */
export function prepared<Query>(db: Db, name: string, build: (db: Db) => Query): Query {
  let byName = cache.get(db);
  if (!byName) {
    byName = new Map();
    cache.set(db, byName);
  }
  let query = byName.get(name) as Query | undefined;
  if (query === undefined) {
    query = build(db);
    byName.set(name, query);
  }
  return query;
}
