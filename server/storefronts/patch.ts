import { and, eq, isNull, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { isTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { checkFileReferences } from "@/server/files/service";
import { brandingImagesSent, scheduleBrandingImages } from "./branding-images";
import { storefrontChangedAfterCommit } from "./changes";
import { type StorefrontRow, toStorefrontDto } from "./dto";
import { findLiveStorefront } from "./lookup";
import { authorize } from "./operations";
import type { StorefrontDto, UpdateStorefrontInput } from "./schema";
import { brandingFileReferences, isSlugTaken, normalizeBranding, slugTaken } from "./service";
import { storefronts } from "./tables";

/**
 * Updating a storefront (PATCH /v1/storefronts/{storefrontId}, and the same call from every other door): the
 * body merged in ONE prepared UPDATE, and the read that names the guard that refused it.
 */

/** The PATCH body as ONE jsonb value: the keys it sends (null included), branding's `{preset}` resolved. */
function patchDocument(input: UpdateStorefrontInput): string {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (value !== undefined) patch[key] = value;
  if (input.branding) patch.branding = normalizeBranding(input.branding);
  return JSON.stringify(patch);
}

/**
 * The PATCH statement: ONE UPDATE whose every column is `case when <the body has the key> then <new value> else
 * <old value> end`, reading the body from one jsonb parameter (`input.p`). Its shape never depends on the body,
 * so drizzle builds it once and it is prepared (building it per request was a quarter of a PATCH's CPU).
 *
 * The merge happens IN the statement (docs/api.md, "PATCH rules" 1-2): `branding` and `delivery` merge key by
 * key, `schedule` day by day and then key by key; arrays and scalars replace; null clears (`hidden`: false).
 * PostgreSQL evaluates it on the newest row version, so concurrent PATCHes compose: no update is lost and no
 * row lock is held across a round trip to this process. Guards: the account, not deleted, `If-Match` equal to
 * `updatedAt` (`ifMatchAt`, or `ifMatchNever` for an unreadable header), and a published storefront keeps its
 * slug.
 */
function storefrontPatchStatement(db: Db) {
  const t = storefronts;
  const has = (key: string) => sql.raw(`(input.p ? '${key}')`);
  const text = (key: string) => sql.raw(`(input.p ->> '${key}')`);
  const json = (key: string) => sql.raw(`(input.p -> '${key}')`);
  const isNullIn = (key: string) => sql.raw(`(jsonb_typeof(input.p -> '${key}') = 'null')`);
  const replaceText = (key: string, column: AnyPgColumn) =>
    sql`case when ${has(key)} then ${text(key)} else ${column} end`;
  const replaceBoolean = (key: string, column: AnyPgColumn) =>
    sql`case when ${has(key)} then ${text(key)}::boolean else ${column} end`;
  const replaceJson = (key: string, column: AnyPgColumn) =>
    sql`case when ${has(key)} then nullif(${json(key)}, 'null'::jsonb) else ${column} end`;
  const mergeJson = (key: string, column: AnyPgColumn) =>
    sql`case when not ${has(key)} then ${column} when ${isNullIn(key)} then null
          else coalesce(${column}, '{}'::jsonb) || ${json(key)} end`;
  return (
    db
      .update(storefronts)
      .set({
        name: replaceText("name", t.name),
        language: replaceText("language", t.language),
        currency: replaceText("currency", t.currency),
        businessType: replaceText("businessType", t.businessType),
        slug: replaceText("slug", t.slug),
        pickup: replaceBoolean("pickup", t.pickup),
        dineIn: replaceBoolean("dineIn", t.dineIn),
        hidden: sql`case when ${has("hidden")} then coalesce(${text("hidden")}::boolean, false) else ${t.hidden} end`,
        biography: replaceJson("biography", t.biography),
        blocks: replaceJson("blocks", t.blocks),
        categories: replaceJson("categories", t.categories),
        branding: mergeJson("branding", t.branding),
        delivery: mergeJson("delivery", t.delivery),
        schedule: sql`case when not ${has("schedule")} then ${t.schedule} when ${isNullIn("schedule")} then null
        else coalesce(${t.schedule}, '{}'::jsonb) || coalesce((
          select jsonb_object_agg(day.key, case
              when jsonb_typeof(day.value) = 'object' and jsonb_typeof(${t.schedule} -> day.key) = 'object'
              then (${t.schedule} -> day.key) || day.value else day.value end)
          from jsonb_each(${json("schedule")}) as day), '{}'::jsonb) end`,
        // Strictly increasing, so an If-Match taken before a PATCH in the same millisecond is still stale.
        updatedAt: sql`greatest(${sql.placeholder("now")}::text::timestamptz, ${t.updatedAt} + interval '1 millisecond')`,
        // A body that sends a logo or background marks it pending (docs/api.md, "Branding images"), with the new
        // `updatedAt` (the old row's value on the right of SET), so its job clears its own mark and no newer one.
        brandingImagesPendingSince: sql`case when ${sql.placeholder("brandingImagesPending")}::text::boolean
          then greatest(${sql.placeholder("now")}::text::timestamptz, ${t.updatedAt} + interval '1 millisecond')
          else ${t.brandingImagesPendingSince} end`,
      })
      // `offset 0` keeps the subquery from being inlined: otherwise PostgreSQL parses the JSON text again at each
      // of the ~25 places that read `input.p`.
      .from(sql`(select ${sql.placeholder("patch")}::text::jsonb as p offset 0) as input`)
      .where(
        and(
          eq(t.id, sql`${sql.placeholder("storefrontId")}::text`),
          eq(t.accountId, sql`${sql.placeholder("accountId")}::text`),
          isNull(t.deletedAt),
          sql`(${sql.placeholder("ifMatchAt")}::text is null or ${t.updatedAt} = ${sql.placeholder("ifMatchAt")}::text::timestamptz)`,
          sql`not ${sql.placeholder("ifMatchNever")}::text::boolean`,
          sql`not (${has("slug")} and ${isNullIn("slug")} and ${t.published})`,
        ),
      )
      .returning()
  );
}

type StorefrontPatchStatement = Pick<ReturnType<typeof storefrontPatchStatement>, "execute">;

/** Built once per database and prepared; a transaction builds its own (prepared queries belong to a session). */
const preparedPatches = new WeakMap<Db, StorefrontPatchStatement>();

function patchStatementFor(db: Db): StorefrontPatchStatement {
  if (isTransaction(db)) return storefrontPatchStatement(db);
  let prepared = preparedPatches.get(db);
  if (!prepared) {
    prepared = storefrontPatchStatement(db).prepare("marea_storefront_patch");
    preparedPatches.set(db, prepared);
  }
  return prepared;
}

export type UpdateStorefrontArgs = {
  storefrontId: string;
  patch: UpdateStorefrontInput;
  /**
   * Optimistic concurrency: the `updatedAt` the caller read. The change applies only while the stored one is
   * still that instant; otherwise 409 `storefront_conflict`. A value that is not a timestamp never matches.
   */
  expectedUpdatedAt?: string | null;
};

const EARLIEST_IF_MATCH = Date.parse("0001-01-01T00:00:00.000Z");
const LATEST_IF_MATCH = Date.parse("9999-12-31T23:59:59.999Z");

/**
 * Deep-merges `patch` into the storefront; arrays replace (docs/api.md, "PATCH rules" 1-4). The
 * patch was validated whole before this runs (a `whatsapp` or `products` key is a 400 and nothing is written).
 * One UPDATE applies the merge under its guards (`storefrontPatchStatement`); when it changes no row, the row
 * is read once to say which guard failed: 404, 410, the slug rule or 409 `storefront_conflict`.
 */
export async function updateStorefront(
  ctx: ServiceContext,
  input: UpdateStorefrontArgs,
): Promise<StorefrontDto> {
  const actor = authorize(ctx, "updateStorefront");
  const { storefrontId, patch } = input;
  await checkFileReferences(ctx.db, actor.accountId, brandingFileReferences(patch.branding));
  const parsed = input.expectedUpdatedAt == null ? null : Date.parse(input.expectedUpdatedAt);
  // A date PostgreSQL's timestamptz cannot take as written (year 0, years past 9999) is not a timestamp either.
  const expected =
    parsed !== null && !(parsed >= EARLIEST_IF_MATCH && parsed <= LATEST_IF_MATCH) ? Number.NaN : parsed;
  let rows: StorefrontRow[];
  try {
    rows = (await patchStatementFor(ctx.db).execute({
      patch: patchDocument(patch),
      now: ctx.now().toISOString(),
      storefrontId,
      accountId: actor.accountId,
      ifMatchAt: expected === null || Number.isNaN(expected) ? null : new Date(expected).toISOString(),
      ifMatchNever: String(expected !== null && Number.isNaN(expected)),
      brandingImagesPending: String(brandingImagesSent(patch.branding).length > 0),
    })) as StorefrontRow[];
  } catch (error) {
    if (isSlugTaken(error)) throw slugTaken();
    throw error;
  }
  const [row] = rows;
  if (row) {
    storefrontChangedAfterCommit(ctx, { storefrontId: row.id, slug: row.slug });
    scheduleBrandingImages(ctx, row.id, patch.branding, row.brandingImagesPendingSince);
    return toStorefrontDto(row);
  }

  const current = await findLiveStorefront(ctx.db, { accountId: actor.accountId, storefrontId });
  if (patch.slug === null && current.published) {
    throw new AppError("invalid_request", {
      param: "slug",
      detail: {
        en: "slug: a published storefront keeps its slug; unpublish it first.",
        es: "slug: una tienda publicada conserva su slug; despublícala primero.",
        pt: "slug: uma loja publicada mantém seu slug; despublique-a primeiro.",
      },
    });
  }
  throw new AppError("storefront_conflict", {
    param: "If-Match",
    detail: {
      en: `The storefront's updatedAt is now ${current.updatedAt.toISOString()}.`,
      es: `El updatedAt de la tienda ahora es ${current.updatedAt.toISOString()}.`,
      pt: `O updatedAt da loja agora é ${current.updatedAt.toISOString()}.`,
    },
  });
}
