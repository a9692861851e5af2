import { and, desc, eq, inArray, isNotNull, isNull, lt, sql } from "drizzle-orm";
import { upgradeFor } from "@/server/accounts/plans";
import type { ServiceContext } from "@/server/context";
import { type Db, queryRows } from "@/server/db/client";
import { env } from "@/server/env";
import { AppError } from "@/server/errors";
import { accounts } from "@/server/gate/tables";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/log";
import { type FetchedImage, fetchImageOnce, ImageFetchError } from "./fetch";
import { inspectImage, makeVariants, normalizeImage } from "./image";
import { originalKey, variantKey } from "./keys";
import { authorize } from "./operations";
import { FILE_ID_PATTERN, type FileDto } from "./schema";
import { fileStore } from "./store";
import { type FileVariant, files } from "./tables";

type Plan = "FREE_NEW" | "FREE_OLD" | "PRO";

const MIB = 1024 * 1024;

/**
 * File storage per plan (docs/api.md, "Files"): originals and their WebP variants. Over it, 402
 * `plan_storage_quota_reached` with `upgrade`.
 */
export const STORAGE_QUOTA_BYTES: Record<Plan, number> = {
  FREE_NEW: 100 * MIB,
  FREE_OLD: 250 * MIB,
  PRO: 5 * 1024 * MIB,
};

/** Files nothing refers to are deleted this long after they stopped being referred to (or were uploaded). */
export const UNREFERENCED_RETENTION_DAYS = 30;

export type FileRow = typeof files.$inferSelect;

/** `{APP_URL}/files/{fileId}`: the original, served to anyone. */
export function fileUrl(fileId: string): string {
  return `${env().APP_URL}/files/${fileId}`;
}

export function variantUrl(fileId: string, width: number): string {
  return `${env().APP_URL}/files/${fileId}/w${width}.webp`;
}

/** The file id of one of this service's file URLs (`{APP_URL}/files/{fileId}` or a variant of it), else null. */
export function fileIdOfUrl(url: string): string | null {
  const base = `${env().APP_URL}/files/`;
  if (!url.startsWith(base)) return null;
  const [id] = url.slice(base.length).split("/");
  return id && FILE_ID_PATTERN.test(id) ? id : null;
}

export function toFileDto(row: FileRow): FileDto {
  return {
    id: row.id,
    contentType: row.contentType as FileDto["contentType"],
    size: row.size,
    width: row.width,
    height: row.height,
    url: fileUrl(row.id),
    createdAt: row.createdAt.toISOString(),
  };
}

function storageDetail(plan: Plan, used: number, size: number) {
  const mib = (bytes: number) => (bytes / MIB).toFixed(1);
  const quota = mib(STORAGE_QUOTA_BYTES[plan]);
  return {
    en: `The plan ${plan} stores ${quota} MiB of files; ${mib(used)} MiB are used and this file needs ${mib(size)} MiB.`,
    es: `El plan ${plan} guarda ${quota} MiB de archivos; hay ${mib(used)} MiB en uso y este archivo necesita ${mib(size)} MiB.`,
    pt: `O plano ${plan} guarda ${quota} MiB de arquivos; ${mib(used)} MiB estão em uso e este arquivo precisa de ${mib(size)} MiB.`,
  };
}

async function usedBytes(db: Db, accountId: string): Promise<number> {
  const [row] = await db
    .select({ used: sql<string>`coalesce(sum(${files.storedBytes}), 0)` })
    .from(files)
    .where(eq(files.accountId, accountId));
  return Number(row?.used ?? 0);
}

/**
 * Validates, cleans and stores one image of an account (docs/api.md, "Files"). The row is inserted by ONE statement
 * that also checks the plan's quota against the account's stored bytes, so a refused file leaves no row; its bytes,
 * written just before, are removed again.
 */
async function storeImage(
  db: Db,
  input: {
    accountId: string;
    bytes: Uint8Array;
    claimed: string | null;
    sourceUrl: string | null;
    now: Date;
  },
): Promise<FileRow> {
  const info = await inspectImage(input.bytes, input.claimed);
  const [account] = await db
    .select({ plan: accounts.plan })
    .from(accounts)
    .where(eq(accounts.id, input.accountId))
    .limit(1);
  const plan: Plan = account?.plan ?? "FREE_NEW";
  const quota = STORAGE_QUOTA_BYTES[plan];
  // A cheap refusal before any work: the file's raw size already would not fit.
  const usedBefore = await usedBytes(db, input.accountId);
  if (usedBefore + input.bytes.byteLength > quota)
    throw new AppError("plan_storage_quota_reached", {
      upgrade: upgradeFor(plan),
      detail: storageDetail(plan, usedBefore, input.bytes.byteLength),
    });
  const clean = await normalizeImage(input.bytes, info);
  const id = newId("fil");
  const key = originalKey(id);
  await fileStore().put(key, clean.bytes, info.type);
  const size = clean.bytes.byteLength;
  const now = input.now.toISOString();
  const inserted = await queryRows<{ id: string }>(
    db,
    sql`insert into ${files} (id, account_id, content_type, size, width, height, frames, stored_bytes, source_url,
          created_at, unreferenced_since)
        select ${id}, ${input.accountId}, ${info.type}, ${size}, ${clean.width}, ${clean.height}, ${info.frames},
          ${size}, ${input.sourceUrl}::text, ${now}::timestamptz, ${now}::timestamptz
        where (select coalesce(sum(${files.storedBytes}), 0) from ${files} where ${files.accountId} = ${input.accountId})
          + ${size} <= ${quota}
        returning id`,
  );
  const [row] = inserted.length > 0 ? await db.select().from(files).where(eq(files.id, id)).limit(1) : [];
  if (!row) {
    await fileStore()
      .remove([key])
      .catch(() => undefined);
    throw new AppError("plan_storage_quota_reached", {
      upgrade: upgradeFor(plan),
      detail: storageDetail(plan, await usedBytes(db, input.accountId), size),
    });
  }
  return row;
}

/**
 * POST /v1/files (docs/api.md, "Files"): the image is checked by content (its claimed type must be what the bytes
 * are), refused over 40 megapixels, 8000 px a side or 100 frames before it is decoded, stripped of its metadata with
 * its orientation applied, counted in the plan's storage quota, and resized into WebP variants after the answer.
 */
export async function createFile(
  ctx: ServiceContext,
  input: { bytes: Uint8Array; contentType: string | null },
): Promise<FileDto> {
  const actor = authorize(ctx, "createFile");
  const row = await storeImage(ctx.db, {
    accountId: actor.accountId,
    bytes: input.bytes,
    claimed: input.contentType,
    sourceUrl: null,
    now: ctx.now(),
  });
  const db = ctx.db;
  ctx.afterCommit(() => ensureVariants(db, row.id));
  return toFileDto(row);
}

/** The reason an image could not be fetched, in the caller's language. */
function notFetched(url: string, error: ImageFetchError): AppError {
  if (error.kind === "too_large")
    return new AppError("payload_too_large", {
      param: "url",
      detail: {
        en: "The image at url is larger than 10 MiB.",
        es: "La imagen de url supera 10 MiB.",
        pt: "A imagem de url é maior que 10 MiB.",
      },
    });
  // The guard's refusal reads `invalid_webhook_url: The host … is not allowed.`: its sentence is the reason.
  const reason = error.message.replace(/^[a-z_]+: /, "");
  const why = error.kind === "blocked" ? reason : `${error.kind}: ${reason}`;
  return new AppError("invalid_request", {
    param: "url",
    detail: {
      en: `The image at ${url} could not be fetched (${why}).`,
      es: `No se pudo descargar la imagen de ${url} (${why}).`,
      pt: `Não foi possível baixar a imagem de ${url} (${why}).`,
    },
  });
}

/**
 * `marea.import_image` (docs/mcp.md, "Tools"): the image at `url`, fetched ONCE under the same SSRF guard as a
 * product's external `imageUrl` (docs/api.md, "Images"), then stored exactly as an upload is (POST /v1/files): the
 * same refusals (type by content, 40 megapixels, 8000 px a side, 100 frames; over 10 MiB 413; the storage quota
 * 402 with `upgrade`), metadata stripped, WebP variants after the answer. A refusal about the image names `url`.
 */
export async function importImage(ctx: ServiceContext, input: { url: string }): Promise<FileDto> {
  const actor = authorize(ctx, "importImage");
  let fetched: FetchedImage;
  try {
    fetched = await fetchImageOnce(input.url);
  } catch (error) {
    if (error instanceof ImageFetchError) throw notFetched(input.url, error);
    throw error;
  }
  let row: FileRow;
  try {
    row = await storeImage(ctx.db, {
      accountId: actor.accountId,
      bytes: fetched.bytes,
      // A remote server's Content-Type is not trusted: the bytes decide.
      claimed: null,
      sourceUrl: input.url,
      now: ctx.now(),
    });
  } catch (error) {
    if (error instanceof AppError && error.options.param === "file")
      throw new AppError(error.code, { ...error.options, param: "url" });
    throw error;
  }
  const db = ctx.db;
  ctx.afterCommit(() => ensureVariants(db, row.id));
  return toFileDto(row);
}

/** GET /v1/files/{fileId}: a file of the caller's account; any other id is 404 `file_not_found`. */
export async function getFile(ctx: ServiceContext, input: { fileId: string }): Promise<FileDto> {
  const actor = authorize(ctx, "getFile");
  return toFileDto(await findOwnFile(ctx.db, actor.accountId, input.fileId));
}

export async function findOwnFile(db: Db, accountId: string, fileId: string): Promise<FileRow> {
  const [row] = FILE_ID_PATTERN.test(fileId)
    ? await db
        .select()
        .from(files)
        .where(and(eq(files.id, fileId), eq(files.accountId, accountId)))
        .limit(1)
    : [];
  if (!row) throw new AppError("file_not_found", { param: "fileId" });
  return row;
}

/** Which of these ids are files of the account (for `{fileId}` in branding: docs/api.md, "Files"). */
export async function ownFileIds(db: Db, accountId: string, fileIds: string[]): Promise<Set<string>> {
  const ids = fileIds.filter((id) => FILE_ID_PATTERN.test(id));
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: files.id })
    .from(files)
    .where(and(inArray(files.id, ids), eq(files.accountId, accountId)));
  return new Set(rows.map((row) => row.id));
}

/**
 * Makes the WebP variants of a file once (docs/api.md, "Images"). Answers the variants, or an empty list when the
 * image could not be resized (logged; the original stays served).
 */
export async function ensureVariants(db: Db, fileId: string): Promise<FileVariant[]> {
  const [row] = await db.select().from(files).where(eq(files.id, fileId)).limit(1);
  if (!row) return [];
  if (row.variants) return row.variants;
  let variants: FileVariant[] = [];
  try {
    const original = await fileStore().get(originalKey(fileId));
    if (!original) throw new Error("the original is missing from the file store");
    const made = await makeVariants(original, row);
    for (const variant of made)
      await fileStore().put(variantKey(fileId, variant.width), variant.bytes, "image/webp");
    variants = made.map((v) => ({ width: v.width, height: v.height, size: v.bytes.byteLength }));
  } catch (error) {
    log("warn", "image variants not made", {
      fileId,
      error: error instanceof Error ? error.message : String(error),
    });
  }
  const added = variants.reduce((sum, v) => sum + v.size, 0);
  const [updated] = await db
    .update(files)
    .set({ variants, storedBytes: sql`${files.storedBytes} + ${added}` })
    .where(and(eq(files.id, fileId), isNull(files.variants)))
    .returning({ variants: files.variants });
  return updated?.variants ?? variants;
}

/** An image fetched from outside (an external `imageUrl`), stored as a file of the account. */
export async function storeFetchedImage(
  db: Db,
  input: { accountId: string; bytes: Uint8Array; contentType: string | null; sourceUrl: string; now: Date },
): Promise<FileRow> {
  return storeImage(db, {
    accountId: input.accountId,
    bytes: input.bytes,
    // A remote server's Content-Type is not trusted either: the bytes decide.
    claimed: null,
    sourceUrl: input.sourceUrl,
    now: input.now,
  });
}

/**
 * The file an account already fetched from this external URL (docs/api.md, "Images": fetched once), the newest
 * first; null when there is none.
 */
export async function findFetchedFile(db: Db, accountId: string, sourceUrl: string): Promise<FileRow | null> {
  const [row] = await db
    .select()
    .from(files)
    .where(and(eq(files.accountId, accountId), eq(files.sourceUrl, sourceUrl)))
    .orderBy(desc(files.createdAt))
    .limit(1);
  return row ?? null;
}

export async function findFile(db: Db, fileId: string): Promise<FileRow | null> {
  if (!FILE_ID_PATTERN.test(fileId)) return null;
  const [row] = await db.select().from(files).where(eq(files.id, fileId)).limit(1);
  return row ?? null;
}

/**
 * The bytes behind a public file URL (`/files/{fileId}` or `/files/{fileId}/w{width}.webp`), or null: no actor, a
 * file's URL is public once it exists (docs/api.md, "Files").
 */
export async function readPublicFile(
  db: Db,
  input: { fileId: string; variant: string | null },
): Promise<{ bytes: Uint8Array; contentType: string } | null> {
  const row = await findFile(db, input.fileId);
  if (!row) return null;
  if (input.variant === null) {
    const bytes = await fileStore().get(originalKey(row.id));
    return bytes ? { bytes, contentType: row.contentType } : null;
  }
  const match = /^w([0-9]{1,4})\.webp$/.exec(input.variant);
  const width = match ? Number(match[1]) : Number.NaN;
  if (!row.variants?.some((v) => v.width === width)) return null;
  const bytes = await fileStore().get(variantKey(row.id, width));
  return bytes ? { bytes, contentType: "image/webp" } : null;
}

/**
 * The scheduled job `purge-files` (docs/operations.md, "Scheduled jobs"): marks when each file stopped being
 * referred to by a product (`imageUrl`, `thumbnailUrl`, its resized image) or a storefront's branding (`{fileId}`, or
 * the external logo or background URL it was fetched from), and deletes files unreferenced for 30 days, bytes first.
 */
export async function purgeUnreferencedFiles(db: Db, now: Date): Promise<{ deleted: number }> {
  const referenced = sql`(
    exists (select 1 from products p where p.image_file_id = ${files.id}
      or p.image_url like '%/files/' || ${files.id} || '%'
      or p.thumbnail_url like '%/files/' || ${files.id} || '%')
    or exists (select 1 from storefronts s where s.branding::text like '%' || ${files.id} || '%')
    or (${files.sourceUrl} is not null and exists (select 1 from storefronts s
      where s.account_id = ${files.accountId}
        and (s.branding->>'logoUrl' = ${files.sourceUrl} or s.branding->>'backgroundUrl' = ${files.sourceUrl})))
  )`;
  await db
    .update(files)
    .set({ unreferencedSince: null })
    .where(and(isNotNull(files.unreferencedSince), referenced));
  await db
    .update(files)
    .set({ unreferencedSince: now })
    .where(and(isNull(files.unreferencedSince), sql`not ${referenced}`));
  const cutoff = new Date(now.getTime() - UNREFERENCED_RETENTION_DAYS * 86_400_000);
  const stale = await db
    .select({ id: files.id, variants: files.variants })
    .from(files)
    .where(and(lt(files.unreferencedSince, cutoff), sql`not ${referenced}`))
    .limit(500);
  let deleted = 0;
  for (const file of stale) {
    const keys = [originalKey(file.id), ...(file.variants ?? []).map((v) => variantKey(file.id, v.width))];
    await fileStore().remove(keys);
    const gone = await db
      .delete(files)
      .where(and(eq(files.id, file.id), lt(files.unreferencedSince, cutoff)))
      .returning({ id: files.id });
    deleted += gone.length;
  }
  return { deleted };
}

/** The srcset a page shows for a file's variants (docs/ui.md, "Public storefront"). */
export type ResponsiveImage = {
  src: string;
  srcSet: string;
  width: number;
  height: number;
  variants: Array<{ url: string; width: number; height: number }>;
};

export function responsiveImageOf(
  fileId: string | null,
  variants: FileVariant[] | null | undefined,
): ResponsiveImage | null {
  if (!fileId || !variants || variants.length === 0) return null;
  const largest = variants[variants.length - 1] as FileVariant;
  const middle = variants.find((v) => v.width >= 480) ?? largest;
  return {
    src: variantUrl(fileId, middle.width),
    srcSet: variants.map((v) => `${variantUrl(fileId, v.width)} ${v.width}w`).join(", "),
    width: largest.width,
    height: largest.height,
    variants: variants.map((v) => ({ url: variantUrl(fileId, v.width), width: v.width, height: v.height })),
  };
}

/**
 * `{fileId}` where the spec takes an image (docs/api.md, "Files"): each must name a file of the account, else 400
 * `invalid_request` with `param` naming the field (`branding.logoUrl`). URLs and null pass untouched.
 */
export async function checkFileReferences(
  db: Db,
  accountId: string,
  references: Array<{ param: string; value: unknown }>,
): Promise<void> {
  const named = references.flatMap((ref) => {
    const value = ref.value as { fileId?: unknown } | null | undefined;
    return value && typeof value === "object" && typeof value.fileId === "string"
      ? [{ param: ref.param, fileId: value.fileId }]
      : [];
  });
  if (named.length === 0) return;
  const own = await ownFileIds(
    db,
    accountId,
    named.map((ref) => ref.fileId),
  );
  const missing = named.find((ref) => !own.has(ref.fileId));
  if (missing)
    throw new AppError("invalid_request", {
      param: missing.param,
      detail: {
        en: `${missing.param}: no file ${missing.fileId} in this account; upload it with POST /v1/files.`,
        es: `${missing.param}: no hay un archivo ${missing.fileId} en esta cuenta; súbelo con POST /v1/files.`,
        pt: `${missing.param}: não há arquivo ${missing.fileId} nesta conta; envie-o com POST /v1/files.`,
      },
    });
}
