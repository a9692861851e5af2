import { and, eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServiceContext } from "@/server/context";
import { dbReady } from "@/server/db/client";
import { env } from "@/server/env";
import { fetchImageGuarded } from "@/server/files/fetch";
import { serveFile } from "@/server/files/http";
import { purgeUnreferencedFiles } from "@/server/files/service";
import { files } from "@/server/files/tables";
import {
  type ImageServer,
  keepFilesInTemporaryFolder,
  makeJpeg,
  startImageServer,
  upload,
} from "@/server/files/testing";
import { call } from "@/server/testing/api";
import { asAdapter, contextWith, serviceContextFor } from "@/server/testing/context";
import { setTestEnv } from "@/server/webhooks/testing";
import { runJob } from "@/server/wiring/jobs";
import {
  brandingImagesOf,
  PENDING_GRACE_MS,
  processBrandingImages,
  scheduleBrandingImages,
} from "./branding-images";
import { updateStorefront } from "./patch";
import { getPublishedStorefrontBySlug, publishStorefront } from "./publish";
import { CreateStorefrontInput, type StorefrontDto } from "./schema";
import { createStorefront } from "./service";
import { storefronts } from "./tables";
import { createMerchant, createTestStorefront, type Merchant } from "./testing";

// docs/api.md, "Branding images": logos and backgrounds given as external URLs are fetched once under the SSRF
// guard and resized like product images. A real image server on loopback; the guard admits it only with the
// local-development flag, set for this file so the after-commit job reaches it too.
setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1" });
keepFilesInTemporaryFolder();

let images: ImageServer;
let base: string;
let hits: string[];
let merchant: Merchant;
let logo: Buffer;
let cover: Buffer;

beforeAll(async () => {
  logo = await makeJpeg(400, 400);
  cover = await makeJpeg(2000, 800);
  images = await startImageServer({
    "/logo": { type: "image/jpeg", bytes: logo },
    "/cover": { type: "image/jpeg", bytes: cover },
    "/text": { type: "image/png", bytes: "<html>not an image</html>" },
  });
  ({ base, hits } = images);
  merchant = await createMerchant({ plan: "PRO", verified: true });
});

afterAll(async () => {
  await images?.close();
});

const timesFetched = (path: string) => hits.filter((hit) => hit === path).length;

async function fetchedFile(url: string) {
  const db = await dbReady();
  const [row] = await db
    .select()
    .from(files)
    .where(and(eq(files.accountId, merchant.userId), eq(files.sourceUrl, url)));
  return row ?? null;
}

/** Waits for the after-commit job: the file fetched from `url` has its variants. */
async function variantsMadeFor(url: string) {
  for (let waited = 0; waited < 20_000; waited += 50) {
    const row = await fetchedFile(url);
    if (row?.variants) return row;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no variants for ${url}`);
}

async function published(storefront: StorefrontDto) {
  const ctx = await serviceContextFor(merchant.userKey);
  const { slug } = await asAdapter(ctx, (c) => publishStorefront(c, { storefrontId: storefront.id }));
  return getPublishedStorefrontBySlug(await contextWith(null), { slug: slug ?? "" });
}

describe("branding images given as external URLs", () => {
  it("are fetched once under the guard, resized into WebP variants and served with srcset; the URLs stay as sent", async () => {
    const logoUrl = `${base}/logo/tacos.jpg`;
    const backgroundUrl = `${base}/cover/plaza.jpg`;
    const storefront = await createTestStorefront(merchant.userKey, { branding: { logoUrl, backgroundUrl } });
    // The after-commit job of the creation fetched both.
    const logoFile = await variantsMadeFor(logoUrl);
    const coverFile = await variantsMadeFor(backgroundUrl);
    expect(logoFile.variants?.map((v) => v.width)).toEqual([160]);
    expect(coverFile.variants?.map((v) => v.width)).toEqual([160, 480, 960, 1600]);
    // Running the job again fetches nothing: the account already holds the files.
    const db = await dbReady();
    expect(await processBrandingImages(db, storefront.id)).toEqual({
      logoUrl: "resized",
      backgroundUrl: "resized",
    });
    expect(timesFetched("/logo/tacos.jpg")).toBe(1);
    expect(timesFetched("/cover/plaza.jpg")).toBe(1);

    const page = await published(storefront);
    expect(page.storefront.branding).toMatchObject({ logoUrl, backgroundUrl });
    const files = `${env().APP_URL}/files`;
    expect(page.brandingImages.logo).toMatchObject({
      srcSet: `${files}/${logoFile.id}/w160.webp 160w`,
      width: 160,
      height: 160,
    });
    expect(page.brandingImages.background?.srcSet).toBe(
      [160, 480, 960, 1600].map((w) => `${files}/${coverFile.id}/w${w}.webp ${w}w`).join(", "),
    );
    expect(page.brandingImages.background).toMatchObject({ width: 1600, height: 640 });
    const served = await serveFile(coverFile.id, "w480.webp");
    expect(served.headers.get("content-type")).toBe("image/webp");
    expect(await sharp(Buffer.from(await served.arrayBuffer())).metadata()).toMatchObject({
      width: 480,
      height: 192,
    });

    // The purge keeps a file a storefront's branding URL was fetched into.
    await purgeUnreferencedFiles(db, new Date());
    expect((await fetchedFile(logoUrl))?.unreferencedSince).toBeNull();
  });

  it("a URL that is not an image or does not answer: the job fails, the URL stays as it is and the page shows it", async () => {
    const storefront = await createTestStorefront(merchant.userKey);
    const logoUrl = `${base}/text/logo.png`;
    const backgroundUrl = `${base}/missing/cover.jpg`;
    const patched = await call<{ storefront: StorefrontDto }>("PATCH", `/v1/storefronts/${storefront.id}`, {
      key: merchant.userKey,
      body: { branding: { logoUrl, backgroundUrl } },
    });
    expect(patched.status).toBe(200);
    const db = await dbReady();
    expect(await processBrandingImages(db, storefront.id)).toEqual({
      logoUrl: "failed",
      backgroundUrl: "failed",
    });
    expect(await fetchedFile(logoUrl)).toBeNull();
    expect(await fetchedFile(backgroundUrl)).toBeNull();
    const page = await published(storefront);
    expect(page.storefront.branding).toMatchObject({ logoUrl, backgroundUrl });
    expect(page.brandingImages).toEqual({ logo: null, background: null });
  });

  it("a private address is never contacted without the local-development flag", async () => {
    const storefront = await createTestStorefront(merchant.userKey);
    const db = await dbReady();
    await db
      .update(storefronts)
      .set({ branding: { logoUrl: "http://169.254.169.254/latest/meta-data" } })
      .where(eq(storefronts.id, storefront.id));
    const strict = (url: string) => fetchImageGuarded(url, { allowLocal: false });
    expect(await processBrandingImages(db, storefront.id, strict)).toEqual({
      logoUrl: "failed",
      backgroundUrl: "none",
    });
    await db
      .update(storefronts)
      .set({ branding: { logoUrl: `${base}/logo/private.jpg` } })
      .where(eq(storefronts.id, storefront.id));
    expect((await processBrandingImages(db, storefront.id, strict)).logoUrl).toBe("failed");
    expect(timesFetched("/logo/private.jpg")).toBe(0);
  });

  it("only a write that sends a logo or background schedules the job: a PATCH of the font alone fetches nothing", async () => {
    const tasks: unknown[] = [];
    const ctx = {
      ...createServiceContext({ db: await dbReady() }),
      afterCommit: (task: unknown) => tasks.push(task),
    };
    scheduleBrandingImages(ctx, "stf_x", { font: "Lora" });
    scheduleBrandingImages(ctx, "stf_x", { logoUrl: null, backgroundUrl: "auto" });
    scheduleBrandingImages(ctx, "stf_x", undefined);
    expect(tasks).toHaveLength(0);
    scheduleBrandingImages(ctx, "stf_x", { logoUrl: `${base}/logo/a.jpg` });
    expect(tasks).toHaveLength(1);
  });

  it("an uploaded logo ({fileId}) is served as its variants, nothing fetched", async () => {
    const uploaded = await upload(merchant.userKey, await makeJpeg(600, 300), "image/jpeg");
    expect(uploaded.status).toBe(201);
    const file = (uploaded.body as { file: { id: string; url: string } }).file;
    const storefront = await createTestStorefront(merchant.userKey, {
      branding: { logoUrl: { fileId: file.id } },
    });
    const db = await dbReady();
    const outcome = await processBrandingImages(db, storefront.id, async () => {
      throw new Error("nothing is fetched for an uploaded file");
    });
    expect(outcome).toEqual({ logoUrl: "resized", backgroundUrl: "none" });
    const [row] = await db.select().from(storefronts).where(eq(storefronts.id, storefront.id));
    const images = await brandingImagesOf(db, { accountId: merchant.userId, branding: row?.branding });
    expect(images.logo?.srcSet).toBe(`${file.url}/w160.webp 160w, ${file.url}/w480.webp 480w`);
    expect(images.background).toBeNull();
  });
});

describe("a write whose after-commit job never ran (the process stopped between the commit and the job)", () => {
  async function pendingSince(storefrontId: string) {
    const db = await dbReady();
    const [row] = await db
      .select({ pendingSince: storefronts.brandingImagesPendingSince })
      .from(storefronts)
      .where(eq(storefronts.id, storefrontId));
    return row?.pendingSince ?? null;
  }

  it("leaves the storefront pending; `process-branding-images` resizes it once the grace has passed and clears the mark", async () => {
    const logoUrl = `${base}/logo/stopped.jpg`;
    const backgroundUrl = `${base}/cover/stopped.jpg`;
    // The service calls without `runAfterCommit`: the jobs these writes scheduled are lost.
    const { storefront } = await createStorefront(
      await serviceContextFor(merchant.userKey),
      CreateStorefrontInput.parse({
        name: "Tacos Lupe",
        language: "es",
        currency: "MXN",
        branding: { logoUrl },
      }),
    );
    expect(await pendingSince(storefront.id)).not.toBeNull();
    // A PATCH of the font alone keeps the mark as it is; one that sends a background moves it to its updatedAt.
    const before = await pendingSince(storefront.id);
    await updateStorefront(await serviceContextFor(merchant.userKey), {
      storefrontId: storefront.id,
      patch: { branding: { font: "Lora" } },
    });
    expect(await pendingSince(storefront.id)).toEqual(before);
    const patched = await updateStorefront(await serviceContextFor(merchant.userKey), {
      storefrontId: storefront.id,
      patch: { branding: { backgroundUrl } },
    });
    const mark = await pendingSince(storefront.id);
    expect(mark?.toISOString()).toBe(patched.updatedAt);
    expect(timesFetched("/logo/stopped.jpg")).toBe(0);

    // Within the grace the sweep leaves it to the write's own job.
    const db = await dbReady();
    await runJob(db, "process-branding-images", new Date((mark as Date).getTime() + PENDING_GRACE_MS - 1000));
    expect(timesFetched("/logo/stopped.jpg")).toBe(0);
    expect(await pendingSince(storefront.id)).toEqual(mark);

    // After it: both images fetched once and resized, the mark cleared, the page serves the variants.
    const swept = await runJob(
      db,
      "process-branding-images",
      new Date((mark as Date).getTime() + PENDING_GRACE_MS + 1000),
    );
    expect(swept).toMatchObject({ job: "process-branding-images" });
    expect((swept as { resized: number }).resized).toBeGreaterThanOrEqual(2);
    expect(timesFetched("/logo/stopped.jpg")).toBe(1);
    expect(timesFetched("/cover/stopped.jpg")).toBe(1);
    expect((await fetchedFile(logoUrl))?.variants?.map((v) => v.width)).toEqual([160]);
    expect((await fetchedFile(backgroundUrl))?.variants?.map((v) => v.width)).toEqual([160, 480, 960, 1600]);
    expect(await pendingSince(storefront.id)).toBeNull();
    const page = await published(storefront);
    expect(page.brandingImages.logo?.srcSet).toContain("/w160.webp 160w");
    expect(page.brandingImages.background?.srcSet).toContain("/w1600.webp 1600w");

    // Nothing pending any more: the next sweep fetches nothing.
    await runJob(db, "process-branding-images", new Date((mark as Date).getTime() + 2 * PENDING_GRACE_MS));
    expect(timesFetched("/logo/stopped.jpg")).toBe(1);
  });

  it("a write whose job ran clears its own mark", async () => {
    const storefront = await createTestStorefront(merchant.userKey, {
      branding: { logoUrl: `${base}/logo/ran.jpg` },
    });
    for (let waited = 0; (await pendingSince(storefront.id)) !== null; waited += 50) {
      if (waited > 20_000) throw new Error("the mark was never cleared");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(timesFetched("/logo/ran.jpg")).toBe(1);
  });
});
