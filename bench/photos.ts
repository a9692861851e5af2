import { randomBytes } from "node:crypto";
import postgres from "postgres";
import sharp from "sharp";
import type { BenchEnv, BenchRow } from "./env";

/**
 * Photos (bench/README.md, scenarios (ph1) and (ph2); docs/api.md, "Files"):
 *
 * (ph1) the bytes of the public page's product images for a 200-product store whose products carry phone photos
 *      (12 megapixels, about 4 MB each, 8 different photos over the 200 products), as the page served them before
 *      resizing (the original behind `imageUrl` on every card: the baseline, measured in this run from the same
 *      files) and after (the WebP variant each card's srcset picks: 160 px on a 1x screen, 480 px on 2x and 3x).
 * (ph2) upload-to-variants time of one 12-megapixel JPEG: `POST /v1/files` until its 1600 px WebP answers 200,
 *      against the libvips floor in this process (decode the same JPEG, resize to 1600 px, encode WebP), measured
 *      right before it.
 */
const PRODUCTS = 200;
const PHOTOS = 8;

/** A 4000 x 3000 JPEG that compresses like a photo (smooth noise), about 4 MB. */
async function phonePhoto(): Promise<Buffer> {
  return sharp(randomBytes(800 * 600 * 3), { raw: { width: 800, height: 600, channels: 3 } })
    .blur(1.2)
    .resize(4000, 3000, { kernel: "cubic" })
    .jpeg({ quality: 88 })
    .toBuffer();
}

async function api(baseUrl: string, method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function uploadJpeg(baseUrl: string, key: string, bytes: Buffer): Promise<{ id: string; url: string }> {
  const response = await fetch(`${baseUrl}/v1/files`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "image/jpeg" },
    body: new Uint8Array(bytes),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST /v1/files: ${response.status} ${text}`);
  return (JSON.parse(text) as { file: { id: string; url: string } }).file;
}

async function waitFor200(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(url, { method: "HEAD" });
    if (response.status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url} never answered 200`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const sizes = new Map<string, number>();
async function bytesOf(url: string): Promise<number> {
  const known = sizes.get(url);
  if (known !== undefined) return known;
  const size = (await (await fetch(url)).arrayBuffer()).byteLength;
  sizes.set(url, size);
  return size;
}

function row(name: string, value: number, baseline: string, ratio: number): BenchRow {
  return {
    name,
    reqPerSec: value,
    p50: 0,
    p99: 0,
    errors: 0,
    non2xx: 0,
    ratio: { to: baseline, value: ratio },
  };
}

export async function runPhotosBench(env: BenchEnv): Promise<BenchRow[]> {
  const sql = postgres(env.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const user = (await api(env.baseUrl, "POST", "/v1/users", env.developerKey, {
      email: `bench-photos-${randomBytes(4).toString("hex")}@example.com`,
      language: "es",
    })) as { user: { id: string }; userKey: string };
    await sql`update api_keys set rpm = 100000000, daily_limit = 100000000 where account_id = ${user.user.id}`;
    await sql`update accounts set plan = 'PRO' where id = ${user.user.id}`;
    const key = user.userKey;

    // (ph2) first, on a quiet server: the floor, then the same JPEG through the service.
    const photo = await phonePhoto();
    const floorRuns: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      await sharp(photo).resize({ width: 1600 }).webp({ quality: 78 }).toBuffer();
      floorRuns.push(performance.now() - started);
    }
    const serviceRuns: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const file = await uploadJpeg(env.baseUrl, key, i === 0 ? photo : await phonePhoto());
      await waitFor200(`${file.url}/w1600.webp`);
      serviceRuns.push(performance.now() - started);
    }
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const floorMs = median(floorRuns);
    const serviceMs = median(serviceRuns);
    process.stdout.write(
      `(ph2) 12 MP JPEG (${(photo.byteLength / 1048576).toFixed(1)} MiB) upload-to-variants ${serviceMs.toFixed(0)} ms ` +
        `(median of 3) vs libvips floor (decode + 1600 px WebP, in process) ${floorMs.toFixed(0)} ms: ` +
        `x${(serviceMs / floorMs).toFixed(2)}\n`,
    );

    // (ph1) the store: 200 products over 8 uploaded photos.
    const files: Array<{ id: string; url: string }> = [];
    for (let i = 0; i < PHOTOS; i++) files.push(await uploadJpeg(env.baseUrl, key, await phonePhoto()));
    const products = Array.from({ length: PRODUCTS }, (_, i) => ({
      title: `Platillo ${i + 1}`,
      price: 50 + (i % 9) * 5,
      position: i + 1,
      imageUrl: files[i % PHOTOS]?.url,
    }));
    const created = (await api(env.baseUrl, "POST", "/v1/storefronts", key, {
      name: "Fonda Fotos",
      currency: "MXN",
      language: "es",
      products: products.slice(0, 100),
    })) as { storefront: { id: string } };
    const storefrontId = created.storefront.id;
    await api(env.baseUrl, "POST", `/v1/storefronts/${storefrontId}/products/batch`, key, {
      products: products.slice(100),
    });
    const deadline = Date.now() + 300_000;
    for (;;) {
      const [pending] = await sql<Array<{ n: number }>>`select count(*)::int as n from products
        where storefront_id = ${storefrontId} and image_processing_pending`;
      if ((pending?.n ?? 0) === 0) break;
      if (Date.now() > deadline) throw new Error("product images still pending after 5 minutes");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const slug = `fonda-fotos-${randomBytes(3).toString("hex")}`;
    await sql`update storefronts set published = true, slug = ${slug} where id = ${storefrontId}`;
    const html = await (await fetch(`${env.baseUrl}/s/${slug}`)).text();
    const images = [...html.matchAll(/<img[^>]*>/g)]
      .map((m) => m[0])
      .filter((tag) => tag.includes("/files/") && tag.includes('sizes="88px"'));
    if (images.length !== PRODUCTS)
      throw new Error(`${images.length} resized card images on the page, not ${PRODUCTS}`);
    let before = 0;
    let after1x = 0;
    let after2x = 0;
    let eager = 0;
    for (const tag of images) {
      const src = /src="([^"]+)"/.exec(tag)?.[1] ?? "";
      const srcset = /srcSet="([^"]+)"|srcset="([^"]+)"/i.exec(tag);
      const list = (srcset?.[1] ?? srcset?.[2] ?? "").split(", ").map((entry) => entry.split(" ")[0] ?? "");
      const original = src.replace(/\/w\d+\.webp$/, "");
      before += await bytesOf(original);
      after1x += await bytesOf(src);
      after2x += await bytesOf(list[list.length - 1] ?? src);
      if (!tag.includes('loading="lazy"')) eager++;
    }
    const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
    const kib = (bytes: number) => (bytes / 1024).toFixed(0);
    process.stdout.write(
      `(ph1) public page, ${PRODUCTS} products: images before ${mib(before)} MiB (the originals), after ` +
        `${kib(after1x)} KiB at 1x (160 px WebP) and ${kib(after2x)} KiB at 2x (480 px): ` +
        `${(before / after1x).toFixed(0)}x and ${(before / after2x).toFixed(0)}x fewer bytes; ${eager} loaded eagerly, the rest lazy\n`,
    );
    return [
      row("(ph1) page image bytes after, 1x (KiB)", Number(kib(after1x)), "before", after1x / before),
      row("(ph1) page image bytes after, 2x (KiB)", Number(kib(after2x)), "before", after2x / before),
      row("(ph2) 12 MP upload-to-variants (ms)", Math.round(serviceMs), "libvips floor", serviceMs / floorMs),
    ];
  } finally {
    await sql.end({ timeout: 5 });
  }
}
