import { z } from "zod";
import { httpUrl } from "@/server/fields";
import { pathId } from "@/server/validation";
import { IMAGE_TYPES } from "./image";

/** The File object (docs/api.md, "Files"). */
export const FileDto = z
  .object({
    id: z.string().meta({ description: "`fil_` + a ULID." }),
    contentType: z.enum(IMAGE_TYPES),
    size: z
      .int()
      .meta({ description: "Bytes of the stored image (metadata stripped, orientation applied)." }),
    width: z.int(),
    height: z.int(),
    url: z.url().meta({
      description:
        "Where anyone fetches the bytes: an absolute URL under APP_URL, cached for a year (immutable).",
    }),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: "File" });
export type FileDto = z.infer<typeof FileDto>;

export const FileEnvelope = z.object({ file: FileDto }).meta({ id: "FileEnvelope" });

export const FileIdParams = z.strictObject({
  fileId: pathId("file_not_found", "The file's id (`fil_…`)."),
});

/** `{fileId}`: an own uploaded file, wherever the spec takes an image (docs/api.md, "Files"). */
export const FILE_ID_PATTERN = /^fil_[0-9a-z]{26}$/;

/** `marea.import_image` (docs/mcp.md, "Tools"): the image's address, fetched once under the SSRF guard. */
export const ImportImageInput = z.strictObject({
  url: httpUrl().meta({
    description:
      "An https URL of a JPEG, PNG, WebP, GIF or AVIF image (at most 10 MiB, 40 megapixels, 8000 px a side, 100 frames).",
  }),
});
export type ImportImageInput = z.infer<typeof ImportImageInput>;
