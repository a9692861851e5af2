import { AppError } from "@/server/errors";
import { defineRoute } from "@/server/http/route";
import { BODY_LIMITS } from "@/server/kit/body";
import { IMAGE_TYPES, isImageType } from "./image";
import { FileEnvelope, FileIdParams } from "./schema";
import { createFile, getFile } from "./service";

const tags = ["files"];

/** Multipart framing around the file part: the part itself is still capped at 10 MiB. */
export const MULTIPART_OVERHEAD = 16 * 1024;

function notAnImageRequest(): AppError {
  return new AppError("invalid_request", {
    param: "file",
    detail: {
      en: `Send the image as the body with its Content-Type (${IMAGE_TYPES.join(", ")}), or as multipart/form-data with one part named "file".`,
      es: `Envía la imagen como cuerpo con su Content-Type (${IMAGE_TYPES.join(", ")}), o como multipart/form-data con una parte llamada "file".`,
      pt: `Envie a imagem como corpo com seu Content-Type (${IMAGE_TYPES.join(", ")}), ou como multipart/form-data com uma parte chamada "file".`,
    },
  });
}

/**
 * The image of an upload and the type it claims: the raw body with its Content-Type, or the `file` part of a
 * multipart form with the part's type (docs/api.md, "Files").
 * The dashboard's upload door (server/files/session-door.ts) reads its body the same way.
 */
export async function imageOf(
  raw: Buffer,
  headers: Headers,
): Promise<{ bytes: Uint8Array; contentType: string | null }> {
  const header = headers.get("content-type") ?? "";
  const mediaType = (header.split(";")[0] ?? "").trim().toLowerCase();
  if (mediaType === "multipart/form-data") {
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(raw), { headers: { "content-type": header } }).formData();
    } catch {
      throw notAnImageRequest();
    }
    const part = form.get("file");
    if (!part || typeof part === "string") throw notAnImageRequest();
    if (part.size > BODY_LIMITS.file) throw new AppError("payload_too_large");
    const partType = part.type.split(";")[0]?.trim().toLowerCase() ?? "";
    return {
      bytes: new Uint8Array(await part.arrayBuffer()),
      contentType: isImageType(partType) ? partType : null,
    };
  }
  if (!isImageType(mediaType) || raw.byteLength === 0) throw notAnImageRequest();
  if (raw.byteLength > BODY_LIMITS.file) throw new AppError("payload_too_large");
  return { bytes: raw, contentType: mediaType };
}

/** Files over /v1 (docs/api.md, "Files"). */
export const fileRoutes = [
  defineRoute({
    operationId: "createFile",
    method: "POST",
    path: "/v1/files",
    summary:
      "Upload one image (JPEG, PNG, WebP, GIF or AVIF, at most 10 MiB, 40 megapixels, 8000 px a side, 100 frames): the raw bytes with their Content-Type, or multipart/form-data with a part named `file`. Its content must be the type it claims. EXIF (GPS, camera serials) is stripped and the orientation applied. Use `{fileId}` in branding or the `url` as a product's `imageUrl`.",
    tags,
    auth: "key",
    rawBody: {
      maxBytes: BODY_LIMITS.file + MULTIPART_OVERHEAD,
      contentTypes: [...IMAGE_TYPES, "multipart/form-data"],
    },
    responses: { 201: { description: "The stored file", schema: FileEnvelope } },
    errors: ["plan_storage_quota_reached"],
    handler: async (ctx, { raw, headers }) => {
      const image = await imageOf(raw ?? Buffer.alloc(0), headers);
      return { status: 201, body: { file: await createFile(ctx, image) } };
    },
  }),
  defineRoute({
    operationId: "getFile",
    method: "GET",
    path: "/v1/files/{fileId}",
    summary: "One file of your account by its id (`fil_…`).",
    tags,
    auth: "key",
    params: FileIdParams,
    responses: { 200: { description: "The file", schema: FileEnvelope } },
    handler: async (ctx, { params }) => ({
      status: 200,
      body: { file: await getFile(ctx, { fileId: params.fileId }) },
    }),
  }),
];
