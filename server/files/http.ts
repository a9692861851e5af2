import { dbReady } from "@/server/db/client";
import { log } from "@/server/lib/log";
import { readPublicFile } from "./service";

/** A year: a file's bytes never change under its URL (a new image is a new file id). */
const IMMUTABLE = "public, max-age=31536000, immutable";

function notFound(): Response {
  return new Response("Not found\n", {
    status: 404,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "x-content-type-options": "nosniff",
      "cache-control": "public, max-age=60",
    },
  });
}

/**
 * The public file route (`GET /files/{fileId}` and `/files/{fileId}/w{width}.webp`, docs/api.md, "Files"): the
 * bytes to anyone, with their own Content-Type, `nosniff`, and a policy that runs nothing should a browser open one
 * as a document.
 */
export async function serveFile(fileId: string, variant: string | null): Promise<Response> {
  try {
    const file = await readPublicFile(await dbReady(), { fileId, variant });
    if (!file) return notFound();
    return new Response(new Uint8Array(file.bytes), {
      status: 200,
      headers: {
        "content-type": file.contentType,
        "content-length": String(file.bytes.byteLength),
        "cache-control": IMMUTABLE,
        etag: `"${fileId}${variant ? `-${variant}` : ""}"`,
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox",
        "cross-origin-resource-policy": "cross-origin",
      },
    });
  } catch (error) {
    log("error", "file not served", {
      fileId,
      error: error instanceof Error ? error.message : String(error),
    });
    return new Response("Unavailable\n", {
      status: 503,
      headers: {
        "content-type": "text/plain; charset=utf-8",
        "retry-after": "5",
        "cache-control": "no-store",
      },
    });
  }
}
