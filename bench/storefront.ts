import { randomBytes } from "node:crypto";
import postgres from "postgres";
import type { BenchEnv, BenchRow } from "./env";
import { load } from "./lib";

/**
 * The public storefront page (bench/README.md, scenario (s)): `GET /s/{slug}` of a published storefront with 200
 * products, 32 connections, against the framework floor measured right before it in the same run. The page is
 * rendered once and then served from Next's cache (docs/ui.md, "Public storefront", caching), so it should cost
 * about what a constant route does: req/s >= 0.8 of the floor, p99 <= 1.5 x the floor's p99.
 *
 * Set-up: a user bootstrapped with the bench's developer key, its storefront created over /v1 with 100 products
 * in the manifest and 100 more in a batch (categories, descriptions, sale prices, stock, option groups, image
 * URLs: a realistic menu); then, as an operator would, the account is verified and put on PRO and the
 * storefront published, directly in the bench database.
 */
const PRODUCTS = 200;
const CATEGORIES = ["Entradas", "Tacos", "Tortas", "Platos fuertes", "Postres", "Bebidas", "Cafés", "Extras"];

function product(n: number) {
  const category = CATEGORIES[n % CATEGORIES.length] ?? "Otros";
  return {
    title: `${category} especial ${n}`,
    description: `Receta de la casa número ${n}, preparada al momento con ingredientes frescos del mercado.`,
    price: 40 + (n % 17) * 5,
    ...(n % 5 === 0 ? { salePrice: 35 + (n % 17) * 4 } : {}),
    category,
    position: n,
    thumbnailUrl: `https://cdn.example.com/menu/${n}.jpg`,
    ...(n % 7 === 0 ? { stock: n % 3 } : {}),
    ...(n % 6 === 0
      ? {
          extraProductsCategory: [
            {
              title: "Tamaño",
              obligatory: true,
              multipleOption: false,
              minOptions: 1,
              maxOptions: 1,
              extraProducts: [
                { title: "Chico", price: 0, available: true },
                { title: "Grande", price: 15, available: true },
              ],
            },
          ],
        }
      : {}),
  };
}

async function request(baseUrl: string, method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** The published 200-product storefront the scenario loads; its public URL. */
export async function createBenchStorefront(env: Pick<BenchEnv, "baseUrl" | "databaseUrl" | "developerKey">) {
  const sql = postgres(env.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const user = (await request(env.baseUrl, "POST", "/v1/users", env.developerKey, {
      email: `bench-store-${randomBytes(4).toString("hex")}@example.com`,
      language: "es",
    })) as { user: { id: string }; userKey: string };
    await sql`update api_keys set rpm = 100000000, daily_limit = 100000000 where account_id = ${user.user.id}`;
    await sql`update accounts set plan = 'PRO' where id = ${user.user.id}`;
    const all = Array.from({ length: PRODUCTS }, (_, i) => product(i + 1));
    const created = (await request(env.baseUrl, "POST", "/v1/storefronts", user.userKey, {
      name: "Fonda Bench",
      currency: "MXN",
      language: "es",
      businessType: "Restaurante",
      biography: { title: "Fonda Bench", description: "Comida corrida y antojitos todos los días." },
      branding: { logoUrl: "https://cdn.example.com/logo.png", theme: { preset: "forest" } },
      schedule: null,
      delivery: { enabled: true, type: "fixed", fixedPrice: 25 },
      pickup: true,
      categories: CATEGORIES.map((name, position) => ({ name, position })),
      products: all.slice(0, 100),
    })) as { storefront: { id: string } };
    const storefrontId = created.storefront.id;
    await request(env.baseUrl, "POST", `/v1/storefronts/${storefrontId}/products/batch`, user.userKey, {
      products: all.slice(100),
    });
    const slug = `fonda-bench-${randomBytes(3).toString("hex")}`;
    await sql`update storefronts set published = true, slug = ${slug} where id = ${storefrontId}`;
    return { url: `${env.baseUrl}/s/${slug}`, slug, storefrontId, userKey: user.userKey };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function runStorefrontBench(env: BenchEnv): Promise<BenchRow[]> {
  const { url, slug } = await createBenchStorefront(env);
  {
    // The first view renders and caches the page; the next ones are served from the cache.
    const first = await fetch(url);
    const html = await first.text();
    if (first.status !== 200) throw new Error(`GET /s/${slug}: ${first.status}`);
    const second = await fetch(url);
    await second.arrayBuffer();
    const cache = second.headers.get("x-nextjs-cache");
    process.stdout.write(
      `(s) page: ${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB, ${(html.match(/class="sf-card"/g) ?? []).length} products, cache ${cache}\n`,
    );

    // The floor right next to the page's load: this machine's speed drifts from minute to minute.
    await load("warm-up", { url, warmupSec: 0, durationSec: 3 });
    const floor = await load("(b'') the floor again, next to (s)", { url: `${env.baseUrl}/bench/floor` });
    const page = await load("(s) GET /s/{slug}, 200 products, cached", { url });
    // For information: the floor sending as many bytes as the page, i.e. what the bytes alone cost.
    const sized = await load("(b-size) the floor with the page's byte count", {
      url: `${env.baseUrl}/bench/sized?bytes=${Buffer.byteLength(html)}`,
    });
    const verdict = page.p99 <= floor.p99 * 1.5 ? "ok" : "OVER";
    process.stdout.write(
      `(s) p99 ${page.p99} ms vs floor p99 ${floor.p99} ms x 1.5 = ${(floor.p99 * 1.5).toFixed(0)} ms: ${verdict}\n`,
    );
    if (page.non2xx > 0 || page.errors > 0) {
      process.stdout.write(`(s): ${page.non2xx} non-2xx, ${page.errors} errors\n`);
    }
    return [
      floor,
      { ...page, ratio: { to: "(b'')", value: page.reqPerSec / floor.reqPerSec, target: 0.8 } },
      { ...sized, ratio: { to: "(b'')", value: sized.reqPerSec / floor.reqPerSec } },
    ];
  }
}
