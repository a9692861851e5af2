import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import sharp from "sharp";
import { dbReady } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { handleV1Request } from "@/server/wiring/rest";
import { STORAGE_QUOTA_BYTES } from "./service";
import { setFileStoreForTests } from "./store";
import { DiskFileStore } from "./store-disk";
import { files } from "./tables";

/** Each test file keeps its files in its own folder. */
export function keepFilesInTemporaryFolder(): string {
  const root = mkdtempSync(join(tmpdir(), "marea-files-"));
  setFileStoreForTests(new DiskFileStore(root));
  return root;
}

/** A JPEG of the given size with random pixels (so it does not compress to nothing). */
export async function makeJpeg(
  width: number,
  height: number,
  options: { quality?: number } = {},
): Promise<Buffer> {
  const noise = randomBytes(Math.min(width * height * 3, 64 * 64 * 3));
  return sharp(noise, {
    raw: { width: 64, height: Math.max(1, Math.floor(noise.length / (64 * 3))), channels: 3 },
  })
    .resize({ width, height, fit: "fill" })
    .jpeg({ quality: options.quality ?? 85 })
    .toBuffer();
}

export async function makePng(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 20 } } })
    .png()
    .toBuffer();
}

/** An animated GIF of `frames` different frames. */
export async function makeAnimatedGif(frames: number): Promise<Buffer> {
  const images = await Promise.all(
    Array.from({ length: frames }, () =>
      sharp(randomBytes(8 * 8 * 3), { raw: { width: 8, height: 8, channels: 3 } })
        .png()
        .toBuffer(),
    ),
  );
  return sharp(images, { join: { animated: true } })
    .gif()
    .toBuffer();
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/** A decompression bomb's header: a PNG of a few bytes that claims `width` x `height` pixels. */
export function pngClaiming(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from("\x89PNG\r\n\x1a\n", "latin1"),
    pngChunk("IHDR", header),
    pngChunk("IDAT", Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

export type UploadResult = { status: number; headers: Headers; body: Record<string, unknown> };

/** POST /v1/files in-process, the raw bytes as the body (or a multipart form with `multipart: true`). */
export async function upload(
  key: string,
  bytes: Uint8Array,
  contentType: string,
  options: { multipart?: boolean; headers?: Record<string, string> } = {},
): Promise<UploadResult> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, ...options.headers };
  let body: BodyInit;
  if (options.multipart) {
    const form = new FormData();
    form.set("file", new Blob([new Uint8Array(bytes)], { type: contentType }), "photo");
    body = form;
  } else {
    headers["content-type"] = contentType;
    body = new Uint8Array(bytes);
  }
  const response = await handleV1Request(
    new Request("http://127.0.0.1/v1/files", { method: "POST", headers, body }),
  );
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {} };
}

/** A real image server on loopback (the SSRF guard admits it only when local URLs are allowed). */
export type ImageServer = { base: string; hits: string[]; close: () => Promise<void> };

/**
 * Serves each body under the paths that start with its key (`/logo` serves `/logo.jpg?v=2`), with the content type
 * given (a page may claim to be a PNG: the bytes decide); 404 otherwise. `hits` records every path asked for.
 */
export async function startImageServer(
  bodies: Record<string, { type: string; bytes: Buffer | string }>,
): Promise<ImageServer> {
  const hits: string[] = [];
  const routes = Object.entries(bodies);
  const server = createServer((req, res) => {
    const path = req.url ?? "";
    hits.push(path);
    const body = routes.find(([prefix]) => path.startsWith(prefix))?.[1];
    if (!body) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": body.type });
    res.end(body.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Fills a FREE_NEW account's storage quota to `leftBytes` short of full, with one stored file row. */
export async function fillStorageQuota(accountId: string, leftBytes = 100): Promise<void> {
  const db = await dbReady();
  await db.insert(files).values({
    id: newId("fil"),
    accountId,
    contentType: "image/jpeg",
    size: 1,
    width: 1,
    height: 1,
    storedBytes: STORAGE_QUOTA_BYTES.FREE_NEW - leftBytes,
    createdAt: new Date(),
  });
}
