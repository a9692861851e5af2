import { z } from "zod";
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
