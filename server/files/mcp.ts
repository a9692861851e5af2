import { toolsFor, writes } from "@/server/mcp/tool";
import { FILE_OPERATIONS } from "./operations";
import { FileEnvelope, ImportImageInput } from "./schema";
import { importImage } from "./service";

const tool = toolsFor(FILE_OPERATIONS);

/** File tools (docs/mcp.md, "Tools"): an agent has no bytes to upload, so it hands over an image's URL. */
export const fileTools = [
  tool(
    "marea.import_image",
    {
      title: "Import an image from a URL",
      description:
        "Fetches the image at `url` once (https, public hosts only) and stores it as a file of the account, like POST /v1/files: answers `{file}`. Use `file.url` as a product's `imageUrl`, or `{fileId: file.id}` as `branding.logoUrl` / `backgroundUrl`. Refused: not an image (by content), over 10 MiB, 40 megapixels, 8000 px a side or 100 frames; over the storage quota: plan_storage_quota_reached.",
      operation: "importImage",
      input: ImportImageInput,
      output: FileEnvelope,
      annotations: writes({ destructiveHint: false, idempotentHint: false, openWorldHint: true }),
    },
    async (ctx, input) => ({ file: await importImage(ctx, input) }),
  ),
];
