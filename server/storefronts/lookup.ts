import { and, eq, isNull } from "drizzle-orm";
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
  if (!row) throw new AppError("storefront_not_found", { param: "storefrontId" });
  if (row.deletedAt) throw new AppError("storefront_deleted", { param: "storefrontId" });
  return row;
}

/** The published, visible, live storefront with this slug (the public page and public orders), or 404. */
export async function findPublishedStorefront(
  db: Db,
  slug: string,
  lock?: "key share",
): Promise<StorefrontRow> {
  const query = db
    .select()
    .from(storefronts)
    .where(
      and(
        eq(storefronts.slug, slug),
        eq(storefronts.published, true),
        eq(storefronts.hidden, false),
        isNull(storefronts.deletedAt),
      ),
    )
    .limit(1);
  const [row] = lock ? await query.for(lock) : await query;
  if (!row) throw new AppError("storefront_not_found", { param: "slug" });
  return row;
}
