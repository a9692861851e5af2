import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbReady } from "@/server/db/client";
import { env } from "@/server/env";
import { serveFile } from "@/server/files/http";
import {
  type ImageServer,
  keepFilesInTemporaryFolder,
  makeJpeg,
  startImageServer,
  upload,
} from "@/server/files/testing";
import type { StorefrontDto } from "@/server/storefronts/schema";
import { createMerchant, createTestStorefront, type Merchant } from "@/server/storefronts/testing";
import { call } from "@/server/testing/api";
import { fetchImageGuarded, processPendingProductImages, processProductImage } from "./images";
import type { ProductDto } from "./schema";
import { products } from "./tables";

/** A real image server on loopback: the guard lets it through only with allowLocal. */
let images: ImageServer;
let base: string;
let hits: string[];
let merchant: Merchant;
let storefront: StorefrontDto;

let photo: Buffer;

keepFilesInTemporaryFolder();

beforeAll(async () => {
  photo = await makeJpeg(800, 600);
  images = await startImageServer({
    "/ok": { type: "image/png", bytes: photo },
    // A page that says it is a PNG: the bytes decide.
    "/text": { type: "image/png", bytes: "<html>not an image</html>" },
  });
  ({ base, hits } = images);
  merchant = await createMerchant({ plan: "PRO" });
  storefront = await createTestStorefront(merchant.userKey);
});

afterAll(async () => {
  await images?.close();
});

const allowLocal = (url: string) => fetchImageGuarded(url, { allowLocal: true });

/** A pending product inserted through the API (its own after-commit job is refused: loopback without allowLocal). */
async function pendingProduct(imageUrl: string, extra: Record<string, unknown> = {}): Promise<ProductDto> {
  const result = await call<{ product: ProductDto }>("POST", `/v1/storefronts/${storefront.id}/products`, {
    key: merchant.userKey,
    body: { title: "Foto", price: 1, imageUrl, ...extra },
  });
  expect(result.body.product.imageProcessingPending).toBe(true);
  const db = await dbReady();
  // Hold the row pending whatever the after-commit job did, so the job under test runs on a known state: wait for
  // that job to clear the flag first (it always does, done or failed), or it could clear it after the reset.
  for (let waited = 0; waited < 10_000; waited += 50) {
    const [row] = await db
      .select({ pending: products.imageProcessingPending })
      .from(products)
      .where(eq(products.id, result.body.product.id));
    if (!row?.pending) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await db
    .update(products)
    .set({ imageProcessingPending: true, thumbnailUrl: (extra.thumbnailUrl as string) ?? null })
    .where(eq(products.id, result.body.product.id));
  return result.body.product;
}

async function readRow(id: string) {
  const db = await dbReady();
  const [row] = await db.select().from(products).where(eq(products.id, id));
  return row;
}

describe("the image job fetches under the SSRF guard, records a thumbnail and clears the flag", () => {
  it("a reachable image: thumbnailUrl is recorded and imageProcessingPending cleared", async () => {
    const product = await pendingProduct(`${base}/ok/pan.png`);
    const db = await dbReady();
    expect(await processProductImage(db, product.id, allowLocal)).toBe("thumbnail");
    const row = await readRow(product.id);
    expect(row).toMatchObject({ imageProcessingPending: false, imageUrl: `${base}/ok/pan.png` });
    // docs/api.md, "Images": the thumbnail is the smallest WebP variant, served from this service.
    expect(row?.imageFileId).toMatch(/^fil_/);
    expect(row?.thumbnailUrl).toBe(`${env().APP_URL}/files/${row?.imageFileId}/w160.webp`);
    expect(hits).toContain("/ok/pan.png");
    const served = await serveFile(row?.imageFileId as string, "w480.webp");
    expect(served.headers.get("content-type")).toBe("image/webp");
    expect(await sharp(Buffer.from(await served.arrayBuffer())).metadata()).toMatchObject({
      width: 480,
      height: 360,
    });
  });

  it("bytes that are not an image (served as image/png): failed, the flag clears and the URL stays", async () => {
    const product = await pendingProduct(`${base}/text/fake.png`);
    const db = await dbReady();
    expect(await processProductImage(db, product.id, allowLocal)).toBe("failed");
    expect(await readRow(product.id)).toMatchObject({
      imageProcessingPending: false,
      imageUrl: `${base}/text/fake.png`,
      thumbnailUrl: null,
      imageFileId: null,
    });
  });

  it("an uploaded file's url as imageUrl: nothing is fetched, the file's variants show it", async () => {
    const uploaded = await upload(merchant.userKey, await makeJpeg(600, 400), "image/jpeg");
    expect(uploaded.status).toBe(201);
    const file = (uploaded.body as { file: { id: string; url: string } }).file;
    const product = await pendingProduct(file.url);
    const db = await dbReady();
    const fetched: string[] = [];
    const outcome = await processProductImage(db, product.id, async (url) => {
      fetched.push(url);
      return null;
    });
    expect(outcome).toBe("thumbnail");
    expect(fetched).toEqual([]);
    expect(await readRow(product.id)).toMatchObject({
      imageFileId: file.id,
      thumbnailUrl: `${file.url}/w160.webp`,
      imageProcessingPending: false,
    });
  });

  it("a new imageUrl clears the thumbnail that resizing made (a client's own thumbnail stays)", async () => {
    const product = await pendingProduct(`${base}/ok/first.png`);
    const db = await dbReady();
    await processProductImage(db, product.id, allowLocal);
    expect((await readRow(product.id))?.thumbnailUrl).toMatch(/w160\.webp$/);
    const patched = await call<{ product: ProductDto }>(
      "PATCH",
      `/v1/storefronts/${storefront.id}/products/${product.id}`,
      { key: merchant.userKey, body: { imageUrl: "https://cdn.example.com/other.jpg" } },
    );
    expect(patched.body.product).toMatchObject({ thumbnailUrl: null, imageProcessingPending: true });
  });

  it("a thumbnailUrl the client set is kept", async () => {
    const product = await pendingProduct(`${base}/ok/b.png`, {
      thumbnailUrl: "https://cdn.example.com/mine.png",
    });
    const db = await dbReady();
    await processProductImage(db, product.id, allowLocal);
    expect((await readRow(product.id))?.thumbnailUrl).toBe("https://cdn.example.com/mine.png");
  });

  it("an image that cannot be fetched: the flag clears and the URL stays", async () => {
    const product = await pendingProduct(`${base}/missing.png`);
    const db = await dbReady();
    expect(await processProductImage(db, product.id, allowLocal)).toBe("failed");
    expect(await readRow(product.id)).toMatchObject({
      imageProcessingPending: false,
      imageUrl: `${base}/missing.png`,
      thumbnailUrl: null,
    });
  });

  it("a loopback or private address is never contacted without the local-development flag", async () => {
    const product = await pendingProduct(`${base}/ok/private.png`);
    const db = await dbReady();
    const before = hits.filter((h) => h === "/ok/private.png").length;
    expect(await processProductImage(db, product.id)).toBe("failed");
    expect(hits.filter((h) => h === "/ok/private.png").length).toBe(before);
    expect(
      await fetchImageGuarded("http://169.254.169.254/latest/meta-data", { allowLocal: true }),
    ).toBeNull();
    expect(await fetchImageGuarded("https://10.1.2.3/a.png")).toBeNull();
  });

  it("a newer imageUrl written meanwhile is not overwritten by the old fetch", async () => {
    const product = await pendingProduct(`${base}/ok/old.png`);
    const db = await dbReady();
    const outcome = await processProductImage(db, product.id, async (url) => {
      await db
        .update(products)
        .set({ imageUrl: `${base}/ok/new.png` })
        .where(eq(products.id, product.id));
      return allowLocal(url);
    });
    expect(outcome).toBe("skipped");
    expect(await readRow(product.id)).toMatchObject({ imageProcessingPending: true, thumbnailUrl: null });
  });

  it("the sweep processes products left pending", async () => {
    const product = await pendingProduct(`${base}/ok/sweep.png`);
    const db = await dbReady();
    const counts = await processPendingProductImages(db, { fetchImage: allowLocal });
    expect(counts.thumbnail).toBeGreaterThanOrEqual(1);
    expect((await readRow(product.id))?.imageProcessingPending).toBe(false);
  });
});
