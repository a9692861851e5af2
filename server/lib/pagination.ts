import { z } from "zod";
import type { IdPrefix } from "@/server/lib/ids";
import { text } from "@/server/validation";

/** The query of every list (docs/api.md, "Lists"): `limit` 1-100, default 20; an opaque `cursor`. */
export const ListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: text({ max: 512 })
    .optional()
    .meta({ description: "`nextCursor` of the previous page. An unreadable cursor restarts at page one." }),
});
export type ListQuery = z.infer<typeof ListQuery>;

/**
 * List pagination (docs/api.md, "Lists"): `{data, nextCursor}` ordered by id. The cursor is opaque: base64url
 * of `{"v":1,"after":"<id>"}`. A cursor that cannot be decoded (garbage, another version, another resource's
 * id, one issued before a change of format) restarts the list at page one instead of failing.
 */
const CURSOR_VERSION = 1;

export function encodeCursor(afterId: string): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, after: afterId }), "utf8").toString("base64url");
}

/**
 * The id to continue after, or null (page one) when the cursor is absent or unreadable. `ids` is the id prefix
 * of the listed resource (a ULID id) or the pattern of its ids.
 */
export function decodeCursor(cursor: string | undefined, ids: IdPrefix | RegExp): string | null {
  if (!cursor || cursor.length > 512) return null;
  try {
    const decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (typeof decoded !== "object" || decoded === null) return null;
    const { v, after } = decoded as { v?: unknown; after?: unknown };
    if (v !== CURSOR_VERSION || typeof after !== "string") return null;
    const pattern = typeof ids === "string" ? new RegExp(`^${ids}_[0-9a-z]{26}$`) : ids;
    return pattern.test(after) ? after : null;
  } catch {
    return null;
  }
}

/** A page of a list: its items and the cursor of the next page (null on the last). */
export type Page<T> = { data: T[]; nextCursor: string | null };

/** Rows were fetched with `limit + 1`: the extra row only says another page exists. */
export function toPage<R extends { id: string }, T>(rows: R[], limit: number, map: (row: R) => T): Page<T> {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { data: page.map(map), nextCursor: rows.length > limit && last ? encodeCursor(last.id) : null };
}
