import { randomBytes } from "node:crypto";
import postgres from "postgres";
import type { BenchEnv, BenchRow } from "./env";
import { load, loadPageFloor } from "./lib";

/**
 * The dashboard's products table (bench/README.md, scenario (p)): `GET /dashboard/storefronts/{id}/products`, the
 * first page (50 rows) of a storefront with 2,000 products, rendered on the server for a signed-in merchant
 * (session cookie, the proxy, the sign-in gate, the tRPC server caller, React's render), against the framework
 * floor measured right before it. Target: >= 0.3 of the floor.
 *
 * Set-up: a user bootstrapped with the bench's developer key, its storefront created over /v1 with 100 products and
 * 19 batches of 100 more (the FREE_NEW plan's 2,000: titles, SKUs, categories, positions, prices, some sale prices
 * and stock, thumbnails); then, as an operator would, the account verified with the current terms, and a session
 * made through the sessions service.
 */
const PRODUCTS = 2_000;
const CATEGORIES = ["Pan dulce", "Pan salado", "Pasteles", "Galletas", "Bebidas", "Temporada"];

function product(n: number) {
  const category = CATEGORIES[n % CATEGORIES.length] ?? "Otros";
  return {
    title: `${category} ${n}`,
    description: `Horneado cada mañana, receta ${n}.`,
    price: 10 + (n % 40),
    ...(n % 5 === 0 ? { salePrice: 8 + (n % 40) } : {}),
    category,
    sku: `SKU-${String(n).padStart(5, "0")}`,
    position: n % 3 === 0 ? null : n,
    thumbnailUrl: `https://cdn.example.com/pan/${n}.jpg`,
    ...(n % 4 === 0 ? { stock: n % 50 } : {}),
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

/** The 2,000-product storefront and a signed-in merchant's cookie. */
async function createCatalog(env: BenchEnv): Promise<{ url: string; cookie: string }> {
  const user = (await request(env.baseUrl, "POST", "/v1/users", env.developerKey, {
    email: `bench-products-${randomBytes(4).toString("hex")}@example.com`,
    language: "es",
  })) as { user: { id: string }; userKey: string };
  const sql = postgres(env.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`update api_keys set rpm = 100000000, daily_limit = 100000000 where account_id = ${user.user.id}`;
  } finally {
    await sql.end({ timeout: 5 });
  }
  const all = Array.from({ length: PRODUCTS }, (_, i) => product(i + 1));
  const created = (await request(env.baseUrl, "POST", "/v1/storefronts", user.userKey, {
    name: "Panadería Bench",
    currency: "MXN",
    language: "es",
    categories: CATEGORIES.map((name, position) => ({ name, position })),
    products: all.slice(0, 100),
  })) as { storefront: { id: string } };
  const storefrontId = created.storefront.id;
  for (let start = 100; start < PRODUCTS; start += 100) {
    await request(env.baseUrl, "POST", `/v1/storefronts/${storefrontId}/products/batch`, user.userKey, {
      products: all.slice(start, start + 100),
    });
  }
  // The operator's part, through the service layer in this process (as createBenchDeveloperKey does).
  process.env.DATABASE_URL = env.databaseUrl;
  const { dbReady, closeDb } = await import("@/server/db/client");
  const { currentTerms } = await import("@/server/gate/terms");
  const { createSession } = await import("@/server/sessions/service");
  const db = await dbReady();
  const admin = postgres(env.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`update accounts set status = 'verified', verified_at = now(),
      tos_accepted_version = ${currentTerms().version} where id = ${user.user.id}`;
    // The planner's statistics as a live database has them (autovacuum analyzes a table within a minute of
    // 2,000 inserts): without them the first page sorts every product instead of reading the order index.
    await admin`analyze products`;
  } finally {
    await admin.end({ timeout: 5 });
  }
  const session = await createSession(db, user.user.id, new Date());
  await closeDb();
  return {
    url: `${env.baseUrl}/dashboard/storefronts/${storefrontId}/products`,
    cookie: `marea_session=${session.token}`,
  };
}

export async function runProductsTableBench(env: BenchEnv): Promise<BenchRow[]> {
  const { url, cookie } = await createCatalog(env);
  const headers = { cookie, "accept-language": "en" };
  const first = await fetch(url, { headers, redirect: "manual" });
  const html = await first.text();
  const rows = (html.match(/data-testid="product-row"/g) ?? []).length;
  if (first.status !== 200 || rows !== 50) {
    throw new Error(`GET products table: ${first.status}, ${rows} rows (expected 200 and 50)`);
  }
  process.stdout.write(
    `(p) products table: ${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB, ${rows} rows\n`,
  );
  await load("warm-up", { url, headers, warmupSec: 0, durationSec: 3 });
  const floor = await load("(b-p) the floor again, next to (p)", { url: `${env.baseUrl}/bench/floor` });
  const page = await load("(p) dashboard products table, 2,000 products, first page", { url, headers });
  // For information: the dashboard overview with the same session, i.e. what the shell, the sign-in
  // gate and a server-rendered dashboard page cost before any table.
  const shell = await load("(p0) /dashboard overview, signed in", {
    url: `${env.baseUrl}/dashboard`,
    headers,
  });
  if (page.non2xx > 0 || page.errors > 0) {
    process.stdout.write(`(p): ${page.non2xx} non-2xx, ${page.errors} errors\n`);
  }
  const pageFloor = await loadPageFloor(env.baseUrl, "(p-f)", [
    ["(p)", page],
    ["(p0)", shell],
  ]);
  return [
    floor,
    { ...page, ratio: { to: "(b-p)", value: page.reqPerSec / floor.reqPerSec, target: 0.3 } },
    { ...shell, ratio: { to: "(b-p)", value: shell.reqPerSec / floor.reqPerSec } },
    { ...pageFloor, ratio: { to: "(b-p)", value: pageFloor.reqPerSec / floor.reqPerSec } },
  ];
}
