import { randomBytes } from "node:crypto";
import postgres from "postgres";
import type { BenchEnv, BenchRow } from "./env";
import { type Figures, load } from "./lib";

/**
 * Issue 14's benchmark, in the same run as the other figures: the GraphQL door against /v1 for the same data.
 *
 * - (g1) `{ storefront(id) { ...every field, products(first: 20) { ... } } }` against (g0) the same data through
 *   /v1's two GETs (`/v1/storefronts/{id}` and `/v1/storefronts/{id}/products?limit=20`, alternating; a pair is
 *   two requests, so the pairs' rate is half the req/s): g1 >= 0.7 of the pairs' rate.
 * - (g3) the GraphQL `me` query (every field of `GET /v1/me`) against (g2) `GET /v1/me`: g3 >= 0.7 of g2.
 *
 * Each GraphQL load runs right after its /v1 baseline: this machine's speed drifts from minute to minute.
 */
const STOREFRONT_QUERY = `query($id: ID!) { storefront(id: $id) {
  id name language currency businessType
  branding { logoUrl backgroundUrl theme { primary secondary tertiary } font }
  schedule { monday { open close closed } tuesday { open close closed } wednesday { open close closed }
    thursday { open close closed } friday { open close closed } saturday { open close closed } sunday { open close closed } }
  delivery { enabled type fixedPrice ranges { fromKm toKm price } }
  pickup dineIn whatsapp biography { title description } categories { name position } slug hidden published
  links { editUrl publicUrl } createdAt updatedAt
  products(first: 20) { edges { cursor node {
    id title price description salePrice category subcategory imageUrl thumbnailUrl sku slug position cartProduct
    hide stock tags imageProcessingPending createdAt updatedAt
    extraProductsCategory { title obligatory multipleOption maxOptions minOptions extraProducts { title price available stock } }
  } } pageInfo { hasNextPage endCursor } }
} }`;

export const ME_QUERY = `{ me { type keyId keyName scopes account { id email status plan limits { storefronts products publishable } }
  rateLimit { rpm rpd remainingMinute remainingDay } links { upgradeUrl } } }`;

async function request(
  env: BenchEnv,
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${env.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as unknown;
}

/** A merchant with raised limits, one storefront with every field set, and 20 products (one with extras). */
async function prepare(env: BenchEnv): Promise<{ key: string; storefrontId: string }> {
  const made = (await request(env, "POST", "/v1/users", env.developerKey, {
    email: `bench-graphql-${randomBytes(4).toString("hex")}@example.com`,
  })) as { user: { id: string }; userKey: string };
  const sql = postgres(env.databaseUrl, { max: 1, onnotice: () => {} });
  await sql`update api_keys set rpm = 100000000, daily_limit = 100000000 where account_id = ${made.user.id}`;
  await sql`update accounts set plan = 'PRO' where id = ${made.user.id}`;
  await sql.end({ timeout: 5 });
  const created = (await request(env, "POST", "/v1/storefronts", made.userKey, {
    name: "Bench Bakery",
    currency: "MXN",
    language: "es",
    businessType: "Panadería y Repostería",
    whatsapp: "+5215512345678",
    branding: { logoUrl: "https://cdn.example.com/logo.png", font: "Inter", theme: { preset: "ocean" } },
    schedule: { monday: { open: "08:00", close: "20:00" }, tuesday: { open: "08:00", close: "20:00" } },
    delivery: { enabled: true, type: "distance", ranges: [{ fromKm: 0, toKm: 5, price: 20 }] },
    biography: "auto",
    categories: [
      { name: "Pan", position: 1 },
      { name: "Café", position: 2 },
    ],
    products: Array.from({ length: 20 }, (_, i) => ({
      title: `Concha ${i}`,
      price: 18.5,
      salePrice: 15,
      category: "Pan",
      sku: `SKU-${i}`,
      stock: 40,
      tags: ["pan dulce"],
      ...(i === 0
        ? {
            extraProductsCategory: [
              {
                title: "Relleno",
                obligatory: false,
                multipleOption: true,
                maxOptions: 2,
                minOptions: 0,
                extraProducts: [{ title: "Nata", price: 5, available: true }],
              },
            ],
          }
        : {}),
    })),
  })) as { storefront: { id: string } };
  return { key: made.userKey, storefrontId: created.storefront.id };
}

export async function runGraphQLBench(env: BenchEnv): Promise<BenchRow[]> {
  const { key, storefrontId } = await prepare(env);
  const auth = { authorization: `Bearer ${key}` };
  const graphql = (query: string, variables?: Record<string, unknown>) => ({
    url: `${env.baseUrl}/api/graphql`,
    method: "POST" as const,
    headers: { ...auth, "content-type": "application/json", accept: "application/graphql-response+json" },
    body: JSON.stringify({ query, variables }),
  });
  const storefrontPath = `/v1/storefronts/${storefrontId}`;
  let turn = 0;
  const restPair = {
    url: `${env.baseUrl}${storefrontPath}`,
    headers: auth,
    setupRequest: () => ({ path: turn++ % 2 === 0 ? storefrontPath : `${storefrontPath}/products?limit=20` }),
  };

  // Sanity: the GraphQL door answers the storefront with its 20 products.
  const { url, ...probe } = graphql(STOREFRONT_QUERY, { id: storefrontId });
  const check = (await (await fetch(url, probe)).json()) as {
    data?: { storefront?: { products?: { edges: unknown[] } } };
    errors?: unknown;
  };
  if (check.errors || check.data?.storefront?.products?.edges.length !== 20) {
    throw new Error(`GraphQL storefront query: ${JSON.stringify(check).slice(0, 500)}`);
  }
  for (let i = 0; i < 50; i++) {
    await fetch(`${env.baseUrl}/v1/me`, { headers: auth }).then((r) => r.arrayBuffer());
    const { url: meUrl, ...me } = graphql(ME_QUERY);
    await fetch(meUrl, me).then((r) => r.arrayBuffer());
  }

  const pair = await load("(g0) /v1 storefront + products GETs, alternating", restPair);
  const storefront = await load(
    "(g1) GraphQL storefront + 20 products",
    graphql(STOREFRONT_QUERY, { id: storefrontId }),
  );
  const restMe = await load("(g2) GET /v1/me, next to (g3)", { url: `${env.baseUrl}/v1/me`, headers: auth });
  const me = await load("(g3) GraphQL me", graphql(ME_QUERY));
  // For information: the same query over GET (GraphQL over HTTP allows it for queries), which Next serves without
  // reading a request body.
  const meOverGet = await load("(g3') GraphQL me over GET", {
    url: `${env.baseUrl}/api/graphql?query=${encodeURIComponent(ME_QUERY)}`,
    headers: { ...auth, accept: "application/graphql-response+json" },
  });

  const pairs: Figures = {
    ...pair,
    name: "(g0') the same as pairs of two GETs",
    reqPerSec: pair.reqPerSec / 2,
  };
  for (const figures of [pair, storefront, restMe, me, meOverGet]) {
    if (figures.non2xx > 0 || figures.errors > 0) {
      process.stdout.write(`${figures.name}: ${figures.non2xx} non-2xx, ${figures.errors} errors\n`);
    }
  }
  const storefrontRatio = storefront.reqPerSec / pairs.reqPerSec;
  const meRatio = me.reqPerSec / restMe.reqPerSec;
  process.stdout.write(
    `(g1)/(g0'): ${storefrontRatio.toFixed(2)} (target >= 0.7); (g3)/(g2): ${meRatio.toFixed(2)} (target >= 0.7)\n`,
  );
  return [
    pair,
    pairs,
    { ...storefront, ratio: { to: "(g0')", value: storefrontRatio, target: 0.7 } },
    restMe,
    { ...me, ratio: { to: "(g2)", value: meRatio, target: 0.7 } },
    { ...meOverGet, ratio: { to: "(g2)", value: meOverGet.reqPerSec / restMe.reqPerSec } },
  ];
}
