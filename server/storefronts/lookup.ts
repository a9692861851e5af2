import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import type { StorefrontRow } from "./dto";
import { storefronts } from "./tables";

/**
 * THE "live storefront of this account" rule, for every feature (products and orders use it too): another
 * account's storefront is 404 `storefront_not_found` (never 403), a deleted one 410 `storefront_deleted`.
 * `lock: "key share"` keeps a concurrent delete (FOR UPDATE) waiting until the caller's transaction ends.
 */
export async function findLiveStorefront(
  db: Db,
  input: { accountId: string; storefrontId: string; lock?: "key share" | "update" },
): Promise<StorefrontRow> {
  const query = db
    .select()
    .from(storefronts)
    .where(and(eq(storefronts.id, input.storefrontId), eq(storefronts.accountId, input.accountId)))
    .limit(1);
  const [row] = input.lock ? await query.for(input.lock) : await query;
  const found = liveStorefrontOrError(row);
  if (found instanceof AppError) throw found;
  return found;
}

/** The rule above for one row read by the caller's account: the row, or the 404 / 410 it means. */
function liveStorefrontOrError(row: StorefrontRow | undefined): StorefrontRow | AppError {
  if (!row) return new AppError("storefront_not_found", { param: "storefrontId" });
  if (row.deletedAt) return new AppError("storefront_deleted", { param: "storefrontId" });
  return row;
}

/** `findLiveStorefront` for many ids in ONE statement (the GraphQL loaders): per id, in order, the row or its error. */
export async function findLiveStorefronts(
  db: Db,
  input: { accountId: string; storefrontIds: readonly string[] },
): Promise<Array<StorefrontRow | AppError>> {
  const rows =
    input.storefrontIds.length === 0
      ? []
      : await db
          .select()
          .from(storefronts)
          .where(
            and(
              inArray(storefronts.id, [...input.storefrontIds]),
              eq(storefronts.accountId, input.accountId),
            ),
          );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return input.storefrontIds.map((id) => liveStorefrontOrError(byId.get(id)));
}

/**
 * What makes a storefront public (its page and public orders): this slug, published, not hidden, not deleted, and
 * its account not cancelled (a cancelled merchant's storefronts are gone for its customers too, published or not).
 */
export function isPublishedStorefront(slug: string) {
  return and(
    eq(storefronts.slug, slug),
    eq(storefronts.published, true),
    eq(storefronts.hidden, false),
    isNull(storefronts.deletedAt),
    sql`exists (select 1 from accounts a where a.id = storefronts.account_id and a.status <> 'cancelled')`,
  );
}

/** The published, visible, live storefront with this slug (the public page and public orders), or 404. */
export async function findPublishedStorefront(
  db: Db,
  slug: string,
  lock?: "key share",
): Promise<StorefrontRow> {
  const query = db.select().from(storefronts).where(isPublishedStorefront(slug)).limit(1);
  const [row] = lock ? await query.for(lock) : await query;
  if (!row) throw new AppError("storefront_not_found", { param: "slug" });
  return row;
}

/**
 * The ids among `storefrontIds` that are live storefronts of `accountId`, as a subquery (the batch loaders join
 * their pages to it, so a foreign or deleted storefront gets an empty page).
 */
export function liveStorefrontsOf(db: Db, accountId: string, storefrontIds: readonly string[]) {
  return db
    .select({ id: storefronts.id })
    .from(storefronts)
    .where(
      and(
        inArray(storefronts.id, [...storefrontIds]),
        eq(storefronts.accountId, accountId),
        isNull(storefronts.deletedAt),
      ),
    );
}
