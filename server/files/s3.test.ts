import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { newId } from "@/server/lib/ids";
import { serveFile } from "./http";
import { originalKey, variantKey } from "./keys";
import { ensureVariants, purgeUnreferencedFiles } from "./service";
import { setFileStoreForTests } from "./store";
import { S3FileStore } from "./store-s3";
import { makeJpeg, makePng, upload } from "./testing";

// docs/operations.md, "File storage": the S3 store through the AWS SDK against a real S3-protocol server (s3rver,
// path-style, on loopback): the same upload, serving, variants and cleanup as on disk.
let server: S3rver;
let store: S3FileStore;
let userKey: string;

beforeAll(async () => {
  server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: mkdtempSync(join(tmpdir(), "marea-s3rver-")),
    configureBuckets: [{ name: "marea-test" }],
  });
  const { port } = await server.run();
  store = new S3FileStore({
    bucket: "marea-test",
    endpoint: `http://127.0.0.1:${port}`,
    region: "us-east-1",
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    forcePathStyle: true,
    prefix: "test/",
  });
  setFileStoreForTests(store);
  const developer = await createDeveloper();
  userKey = (await bootstrapUser(developer.key)).userKey;
});

afterAll(async () => {
  setFileStoreForTests(undefined);
  store?.destroy();
  await server?.close();
});

describe("the S3 file store", () => {
  it("put, get and remove a key; a missing key reads as null", async () => {
    const key = originalKey(newId("fil"));
    expect(await store.get(key)).toBeNull();
    await store.put(key, Buffer.from("bytes"), "image/png");
    expect(Buffer.from((await store.get(key)) ?? []).toString()).toBe("bytes");
    await store.remove([key]);
    expect(await store.get(key)).toBeNull();
  });

  it("POST /v1/files stores in the bucket; the public URL serves it; WebP variants land beside it", async () => {
    const res = await upload(userKey, await makeJpeg(1200, 900), "image/jpeg");
    expect(res.status).toBe(201);
    const file = (res.body as { file: { id: string; size: number } }).file;
    expect((await store.get(originalKey(file.id)))?.byteLength).toBe(file.size);
    const served = await serveFile(file.id, null);
    expect(served.headers.get("content-type")).toBe("image/jpeg");
    const variants = await ensureVariants(await dbReady(), file.id);
    expect(variants.map((v) => v.width)).toEqual([160, 480, 960]);
    const webp = await store.get(variantKey(file.id, 480));
    expect(await sharp(Buffer.from(webp ?? [])).metadata()).toMatchObject({ format: "webp", width: 480 });
  });

  it("purge-files removes the objects of a file unreferenced for 30 days", async () => {
    const res = await upload(userKey, await makePng(50, 50), "image/png");
    const file = (res.body as { file: { id: string } }).file;
    await ensureVariants(await dbReady(), file.id);
    const now = new Date();
    await purgeUnreferencedFiles(await dbReady(), now);
    await purgeUnreferencedFiles(await dbReady(), new Date(now.getTime() + 31 * 86_400_000));
    expect(await store.get(originalKey(file.id))).toBeNull();
    expect(await store.get(variantKey(file.id, 50))).toBeNull();
  });
});
