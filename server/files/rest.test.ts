import { eq } from "drizzle-orm";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { env } from "@/server/env";
import { ErrorEnvelope } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import { call } from "@/server/testing/api";
import { handleV1Request } from "@/server/wiring/rest";
import { serveFile } from "./http";
import { IMAGE_LIMITS } from "./image";
import { ensureVariants, purgeUnreferencedFiles } from "./service";
import { files } from "./tables";
import {
  fillStorageQuota,
  keepFilesInTemporaryFolder,
  makeAnimatedGif,
  makeJpeg,
  makePng,
  pngClaiming,
  upload,
} from "./testing";

// docs/api.md, "Files": POST /v1/files and GET /v1/files/{fileId} through the /v1 pipeline, on the disk store; the
// refusals each store nothing. server/files/s3.test.ts runs the same store contract on an S3-protocol server.
keepFilesInTemporaryFolder();

let owner: { userId: string; userKey: string };
let stranger: { userId: string; userKey: string };

beforeAll(async () => {
  const developer = await createDeveloper();
  owner = await bootstrapUser(developer.key);
  stranger = await bootstrapUser(developer.key);
});

function errorOf(res: { body: unknown }) {
  return ErrorEnvelope.parse(res.body).error;
}

async function fileCount(): Promise<number> {
  const db = await dbReady();
  return (await db.select({ id: files.id }).from(files)).length;
}

type FileBody = {
  file: {
    id: string;
    contentType: string;
    size: number;
    width: number;
    height: number;
    url: string;
    createdAt: string;
  };
};

describe("POST /v1/files", () => {
  it("201 {file}: a raw JPEG body answers id fil_…, type, size, width, height and a url under APP_URL", async () => {
    const jpeg = await makeJpeg(640, 480);
    const res = await upload(owner.userKey, jpeg, "image/jpeg");
    expect(res.status).toBe(201);
    const { file } = res.body as FileBody;
    expect(file.id).toMatch(/^fil_[0-9a-z]{26}$/);
    expect(file).toMatchObject({ contentType: "image/jpeg", width: 640, height: 480 });
    expect(file.size).toBeGreaterThan(0);
    expect(file.url).toBe(`${env().APP_URL}/files/${file.id}`);
    expect(Number.isNaN(Date.parse(file.createdAt))).toBe(false);
  });

  it("201: multipart/form-data with one part named file", async () => {
    const res = await upload(owner.userKey, await makePng(30, 20), "image/png", { multipart: true });
    expect(res.status).toBe(201);
    expect((res.body as FileBody).file).toMatchObject({ contentType: "image/png", width: 30, height: 20 });
  });

  it("the public URL serves the bytes: their Content-Type, a year's immutable cache, nosniff", async () => {
    const res = await upload(owner.userKey, await makePng(12, 12), "image/png");
    const { file } = res.body as FileBody;
    const served = await serveFile(file.id, null);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(bytes.byteLength).toBe(file.size);
    expect((await sharp(bytes).metadata()).format).toBe("png");
    expect((await serveFile("fil_00000000000000000000000000", null)).status).toBe(404);
  });

  it("EXIF is stripped (GPS, make, model) and the orientation applied to the pixels", async () => {
    const turned = await sharp({ create: { width: 40, height: 20, channels: 3, background: "blue" } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .withExif({ IFD0: { Make: "AcmeCam", Model: "X1", Copyright: "home" }, IFD3: { GPSLatitudeRef: "N" } })
      .toBuffer();
    expect((await sharp(turned).metadata()).exif?.toString("latin1")).toContain("AcmeCam");
    const res = await upload(owner.userKey, turned, "image/jpeg");
    expect(res.status).toBe(201);
    const { file } = res.body as FileBody;
    expect(file).toMatchObject({ width: 20, height: 40 });
    const stored = Buffer.from(await (await serveFile(file.id, null)).arrayBuffer());
    const meta = await sharp(stored).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation ?? 1).toBe(1);
    expect(stored.toString("latin1")).not.toContain("AcmeCam");
    expect([meta.width, meta.height]).toEqual([20, 40]);
  });

  it("Idempotency-Key: the retry answers the same file, replayed, and stores one", async () => {
    const jpeg = await makeJpeg(50, 50);
    const before = await fileCount();
    const headers = { "idempotency-key": `upload-${newId("req")}` };
    const first = await upload(owner.userKey, jpeg, "image/jpeg", { headers });
    const again = await upload(owner.userKey, jpeg, "image/jpeg", { headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((again.body as FileBody).file.id).toBe((first.body as FileBody).file.id);
    expect(await fileCount()).toBe(before + 1);
  });
});

describe("POST /v1/files refusals (nothing stored)", () => {
  it("400 invalid_request param file: bytes that are not the type they claim (a PNG sent as image/jpeg)", async () => {
    const before = await fileCount();
    const res = await upload(owner.userKey, await makePng(10, 10), "image/jpeg");
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: "invalid_request", param: "file" });
    expect(await fileCount()).toBe(before);
  });

  it("400: text that claims to be image/png; and a Content-Type that is no image type", async () => {
    const before = await fileCount();
    const text = Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>");
    const res = await upload(owner.userKey, text, "image/png");
    expect(res.status).toBe(400);
    expect(errorOf(res).param).toBe("file");
    const svg = await upload(owner.userKey, text, "image/svg+xml");
    expect(svg.status).toBe(400);
    expect(await fileCount()).toBe(before);
  });

  it("400: a decompression bomb (a PNG header claiming 100,000 x 100,000 px) is refused from its header", async () => {
    const bomb = pngClaiming(100_000, 100_000);
    expect(bomb.byteLength).toBeLessThan(200);
    const res = await upload(owner.userKey, bomb, "image/png");
    expect(res.status).toBe(400);
    expect(errorOf(res).message).toContain("100000 x 100000");
  });

  it("400: over 8000 px a side (8001 x 10), and over 40 megapixels (7000 x 6000)", async () => {
    for (const [w, h] of [
      [8001, 10],
      [7000, 6000],
    ] as const) {
      const res = await upload(owner.userKey, pngClaiming(w, h), "image/png");
      expect(res.status).toBe(400);
      expect(errorOf(res)).toMatchObject({ code: "invalid_request", param: "file" });
    }
  });

  it(`400: an animated GIF over ${IMAGE_LIMITS.maxFrames} frames; ${IMAGE_LIMITS.maxFrames} frames pass`, async () => {
    const over = await upload(owner.userKey, await makeAnimatedGif(IMAGE_LIMITS.maxFrames + 1), "image/gif");
    expect(over.status).toBe(400);
    expect(errorOf(over).message).toContain(`${IMAGE_LIMITS.maxFrames + 1} frames`);
    const at = await upload(owner.userKey, await makeAnimatedGif(IMAGE_LIMITS.maxFrames), "image/gif");
    expect(at.status).toBe(201);
  });

  it("413 payload_too_large: a body over 10 MiB, declared or streamed without a length (refused while it arrives)", async () => {
    const big = Buffer.alloc(IMAGE_LIMITS.maxBytes + 1, 0xff);
    big.set([0xff, 0xd8, 0xff], 0);
    const declared = await upload(owner.userKey, big, "image/jpeg");
    expect(declared.status).toBe(413);
    expect(errorOf(declared).code).toBe("payload_too_large");

    let pulled = 0;
    const chunk = new Uint8Array(1024 * 1024);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.byteLength;
        // 64 MiB would be offered; the reader must stop long before.
        if (pulled > 64 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await handleV1Request(
      new Request("http://127.0.0.1/v1/files", {
        method: "POST",
        headers: { authorization: `Bearer ${owner.userKey}`, "content-type": "image/jpeg" },
        body: stream,
        duplex: "half",
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThan(13 * 1024 * 1024);
  });

  it("402 plan_storage_quota_reached with upgrade: the plan's storage quota would be passed", async () => {
    const developer = await createDeveloper();
    const full = await bootstrapUser(developer.key);
    await fillStorageQuota(full.userId);
    const res = await upload(full.userKey, await makeJpeg(100, 100), "image/jpeg");
    expect(res.status).toBe(402);
    const error = errorOf(res);
    expect(error.code).toBe("plan_storage_quota_reached");
    expect(error.upgrade).toMatchObject({ currentPlan: "FREE_NEW", requiredPlan: "PRO" });
  });

  it("401 before the body is read: no key, no upload", async () => {
    const res = await handleV1Request(
      new Request("http://127.0.0.1/v1/files", {
        method: "POST",
        headers: { "content-type": "image/png" },
        body: new Uint8Array(await makePng(4, 4)),
      }),
    );
    expect(res.status).toBe(401);
  });
});

describe("GET /v1/files/{fileId}", () => {
  it("200 {file} for its account; another account's id is 404 file_not_found", async () => {
    const made = await upload(owner.userKey, await makePng(16, 16), "image/png");
    const { file } = made.body as FileBody;
    const mine = await call<FileBody>("GET", `/v1/files/${file.id}`, { key: owner.userKey });
    expect(mine.status).toBe(200);
    expect(mine.body.file).toEqual(file);
    const theirs = await call("GET", `/v1/files/${file.id}`, { key: stranger.userKey });
    expect(theirs.status).toBe(404);
    expect(errorOf(theirs)).toMatchObject({ code: "file_not_found", param: "fileId" });
  });
});

describe("variants (docs/api.md, Images)", () => {
  it("WebP at 160, 480, 960 and 1600 px for a wide photo; served as image/webp", async () => {
    const res = await upload(owner.userKey, await makeJpeg(2000, 1500), "image/jpeg");
    const { file } = res.body as FileBody;
    const variants = await ensureVariants(await dbReady(), file.id);
    expect(variants.map((v) => v.width)).toEqual([160, 480, 960, 1600]);
    expect(variants[0]?.height).toBe(120);
    const small = await serveFile(file.id, "w160.webp");
    expect(small.headers.get("content-type")).toBe("image/webp");
    const meta = await sharp(Buffer.from(await small.arrayBuffer())).metadata();
    expect(meta).toMatchObject({ format: "webp", width: 160, height: 120 });
    expect((await serveFile(file.id, "w200.webp")).status).toBe(404);
  });

  it("never upscaled: a 300 px image gets a 160 px variant only; a 100 px one a single 100 px variant", async () => {
    for (const [width, expected] of [
      [300, [160]],
      [100, [100]],
    ] as const) {
      const { file } = (await upload(owner.userKey, await makePng(width, 50), "image/png")).body as FileBody;
      const variants = await ensureVariants(await dbReady(), file.id);
      expect(variants.map((v) => v.width)).toEqual(expected);
    }
  });

  it("the stored bytes are what the quota counts: the variants add to the file's stored size", async () => {
    const { file } = (await upload(owner.userKey, await makeJpeg(1000, 800), "image/jpeg")).body as FileBody;
    await ensureVariants(await dbReady(), file.id);
    const db = await dbReady();
    const [row] = await db.select().from(files).where(eq(files.id, file.id));
    const variantBytes = (row?.variants ?? []).reduce((sum, v) => sum + v.size, 0);
    expect(variantBytes).toBeGreaterThan(0);
    expect(row?.storedBytes).toBe(file.size + variantBytes);
  });
});

describe("{fileId} in branding (docs/api.md, Files)", () => {
  it("an own file's {fileId} as logoUrl answers its url; another account's or an unknown id is 400 with param", async () => {
    const mine = ((await upload(owner.userKey, await makePng(64, 64), "image/png")).body as FileBody).file;
    const theirs = ((await upload(stranger.userKey, await makePng(64, 64), "image/png")).body as FileBody)
      .file;
    const created = await call<{ storefront: { id: string; branding: Record<string, unknown> } }>(
      "POST",
      "/v1/storefronts",
      {
        key: owner.userKey,
        body: { name: "Tacos Ana", currency: "MXN", branding: { logoUrl: { fileId: mine.id } } },
      },
    );
    expect(created.status).toBe(201);
    expect(created.body.storefront.branding.logoUrl).toBe(mine.url);
    const storefrontId = created.body.storefront.id;

    const stolen = await call("PATCH", `/v1/storefronts/${storefrontId}`, {
      key: owner.userKey,
      body: { branding: { backgroundUrl: { fileId: theirs.id } } },
    });
    expect(stolen.status).toBe(400);
    expect(errorOf(stolen)).toMatchObject({ code: "invalid_request", param: "branding.backgroundUrl" });

    const unknown = await call("PATCH", `/v1/storefronts/${storefrontId}`, {
      key: owner.userKey,
      body: { branding: { logoUrl: { fileId: "fil_00000000000000000000000000" } } },
    });
    expect(errorOf(unknown).param).toBe("branding.logoUrl");

    const background = await call<{ storefront: { branding: Record<string, unknown> } }>(
      "PATCH",
      `/v1/storefronts/${storefrontId}`,
      { key: owner.userKey, body: { branding: { backgroundUrl: { fileId: mine.id } } } },
    );
    expect(background.body.storefront.branding).toMatchObject({ logoUrl: mine.url, backgroundUrl: mine.url });
  });
});

describe("purge-files (docs/operations.md, Scheduled jobs)", () => {
  it("deletes a file unreferenced for 30 days, bytes and row; a file a storefront uses stays", async () => {
    const db = await dbReady();
    const lonely = ((await upload(owner.userKey, await makePng(20, 20), "image/png")).body as FileBody).file;
    const used = ((await upload(owner.userKey, await makePng(20, 20), "image/png")).body as FileBody).file;
    await call("POST", "/v1/storefronts", {
      key: stranger.userKey,
      body: { name: "Uses a file url", currency: "MXN", branding: { logoUrl: used.url } },
    });
    const now = new Date();
    await purgeUnreferencedFiles(db, now);
    const day = 86_400_000;
    expect((await purgeUnreferencedFiles(db, new Date(now.getTime() + 29 * day))).deleted).toBe(0);
    const later = await purgeUnreferencedFiles(db, new Date(now.getTime() + 31 * day));
    expect(later.deleted).toBeGreaterThanOrEqual(1);
    expect((await serveFile(lonely.id, null)).status).toBe(404);
    expect((await serveFile(used.id, null)).status).toBe(200);
  });
});
