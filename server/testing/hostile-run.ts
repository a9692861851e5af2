import { eq, sql } from "drizzle-orm";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { dbReady, queryRows } from "@/server/db/client";
import { keepFilesInTemporaryFolder, makePng, upload } from "@/server/files/testing";
import { VERIFIED_USER_SCOPES } from "@/server/gate/scopes";
import { accounts, apiKeys } from "@/server/gate/tables";
import { currentTerms } from "@/server/gate/terms";
import type { AnyRoute } from "@/server/http/route";
import { createStorefrontWithProduct } from "@/server/orders/testing";
import { createMerchant } from "@/server/storefronts/testing";
import { createTestEndpoint } from "@/server/webhooks/testing";
import {
  type Answer,
  checkAnswer,
  type GeneratedRequest,
  type HostileFixtures,
  type OpenApiDocument,
} from "./hostile";

/**
 * The rows a hostile run works on, and the checks that need the database: used by the property test
 * (server/http/hostile.test.ts) and by bench/hostile.ts. Rows are made through the services of this process,
 * on the database DATABASE_URL (or PGlite) names, the same one the server under test uses.
 */

/** Sends one request to the API under test (in-process or over HTTP) and reads its whole answer. */
export type Send = (request: {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}) => Promise<Answer>;

export type Merchant = { userId: string; userKey: string };

/** A merchant bootstrapped by `developerKey`, verified, on PRO, with a key that is never rate limited. */
export async function verifiedMerchantOf(developerKey: string): Promise<Merchant> {
  const user = await bootstrapUser(developerKey);
  const db = await dbReady();
  await db
    .update(accounts)
    .set({
      status: "verified",
      verifiedAt: new Date(),
      tosAcceptedVersion: currentTerms().version,
      plan: "PRO",
    })
    .where(eq(accounts.id, user.userId));
  await db
    .update(apiKeys)
    .set({ scopes: VERIFIED_USER_SCOPES, rpm: 1_000_000, dailyLimit: 1_000_000 })
    .where(eq(apiKeys.accountId, user.userId));
  return user;
}

export type HostileRun = {
  fixtures: HostileFixtures;
  /** Another account's storefront, products and order: no generated request may change them. */
  victim: { key: string; storefrontId: string };
};

/**
 * A developer with a verified merchant it bootstrapped (several storefronts with products, an order, a webhook
 * endpoint), rows of their own for the deletes, a throwaway account for `DELETE /v1/me`, and a victim account.
 */
export async function createHostileRun(send: Send): Promise<HostileRun> {
  const developer = await createDeveloper();
  const merchant = await verifiedMerchantOf(developer.key);
  const own = [];
  for (const stock of [1000, 1000, null])
    own.push(await createStorefrontWithProduct(merchant.userKey, { stock }));
  const doomed = [];
  for (let i = 0; i < 3; i++) doomed.push(await createStorefrontWithProduct(merchant.userKey));
  // DELETE /v1/me cancels the caller's account: the generator sends it with a throwaway account's key.
  const throwaway = await verifiedMerchantOf(developer.key);
  const other = await createMerchant({ plan: "PRO" });
  const victim = await createStorefrontWithProduct(other.userKey, { stock: 5 });
  const order = async (key: string, storefrontId: string, productId: string) => {
    const answer = await send({
      method: "POST",
      path: `/v1/storefronts/${storefrontId}/orders`,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        items: [{ productId, amount: 1 }],
        customer: { name: "Ana", phone: "5551234" },
        paymentMethod: { name: "cash" },
      }),
    });
    return (JSON.parse(answer.text) as { order: { id: string } }).order.id;
  };
  const first = own[0] as { storefrontId: string; productId: string };
  const ownOrder = await order(merchant.userKey, first.storefrontId, first.productId);
  const victimOrder = await order(other.userKey, victim.storefrontId, victim.productId);
  // A file and listen sessions of their own, so GET /v1/files/{fileId} and the session close can succeed too (a
  // session's stream is left to unknown ids: a real one would stay open).
  keepFilesInTemporaryFolder();
  const file = await upload(merchant.userKey, await makePng(8, 8), "image/png");
  const fileId = (file.body.file as { id: string }).id;
  const sessionIds: string[] = [];
  for (const key of [developer.key, developer.key, merchant.userKey, merchant.userKey]) {
    const opened = await send({
      method: "POST",
      path: "/v1/listen_sessions",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ forwardTo: "http://localhost:4000/hooks" }),
    });
    sessionIds.push((JSON.parse(opened.text) as { session: { id: string } }).session.id);
  }
  const endpoint = await createTestEndpoint(developer.key, { url: "https://hooks.example.com/fixture" });
  const doomedEndpoint = await createTestEndpoint(developer.key, { url: "https://hooks.example.com/doomed" });
  return {
    victim: { key: other.userKey, storefrontId: victim.storefrontId },
    fixtures: {
      keys: { developer: developer.key, user: merchant.userKey },
      keyFor: { cancelAccount: throwaway.userKey },
      ids: {
        storefrontId: [...own.map((o) => o.storefrontId), victim.storefrontId],
        productId: [...own.map((o) => o.productId), victim.productId],
        orderId: [ownOrder, victimOrder],
        userId: [merchant.userId, other.userId],
        id: [endpoint.endpointId, endpoint.endpointId, "mk_we_ffffffffffffffff"],
        fileId: [fileId, fileId, "fil_01jd8x4w6y3k2m9q7r5t1v0z8a"],
      },
      // The deletes get rows of their own, so the other operations keep rows to work on.
      idsFor: {
        deleteStorefront: { storefrontId: [...doomed.map((d) => d.storefrontId), victim.storefrontId] },
        deleteProduct: {
          storefrontId: doomed.map((d) => d.storefrontId),
          productId: [...doomed.map((d) => d.productId), victim.productId],
        },
        deleteWebhookEndpoint: { id: [doomedEndpoint.endpointId] },
        closeListenSession: { sessionId: sessionIds },
      },
      productIds: [...own.map((o) => o.productId), victim.productId, "prd_none"],
    },
  };
}

/**
 * Sends `request` and returns its answer with what is wrong with it: `checkAnswer`, and for a write that
 * answered a storefront or a product, whether reading it back gives the same (nothing changed on the way in).
 */
export async function sendAndCheck(
  doc: OpenApiDocument,
  routes: Map<string, AnyRoute>,
  send: Send,
  request: GeneratedRequest,
): Promise<{ answer: Answer; problems: string[] }> {
  const answer = await send(request);
  const problems = checkAnswer(doc, routes, request, answer);
  const isFresh2xx =
    answer.status >= 200 && answer.status < 300 && answer.headers.get("idempotent-replayed") === null;
  if (isFresh2xx && problems.length === 0) problems.push(...(await readBack(send, request, answer.text)));
  return { answer, problems };
}

async function readBack(send: Send, request: GeneratedRequest, text: string): Promise<string[]> {
  const authorization = request.headers.authorization;
  if (!authorization || request.method === "GET" || request.method === "DELETE") return [];
  const body = JSON.parse(text) as { storefront?: { id: string }; product?: Record<string, unknown> };
  const get = async (path: string) => {
    const answer = await send({ method: "GET", path, headers: { authorization } });
    return answer.status === 200
      ? (JSON.parse(answer.text) as Record<string, Record<string, unknown>>)
      : null;
  };
  const problems: string[] = [];
  if (body.storefront?.id) {
    const read = await get(`/v1/storefronts/${body.storefront.id}`);
    if (read && JSON.stringify(read.storefront) !== JSON.stringify(body.storefront)) {
      problems.push(`storefront reads back changed: ${JSON.stringify(read.storefront).slice(0, 200)}`);
    }
  }
  const storefrontId = /^\/v1\/storefronts\/([^/?]+)\/products/.exec(request.path)?.[1];
  if (body.product?.id && storefrontId) {
    const read = await get(`/v1/storefronts/${storefrontId}/products/${body.product.id}`);
    // The image task may finish in between: it owns these three fields.
    const strip = (product: Record<string, unknown> | undefined) => {
      const { imageProcessingPending: _a, thumbnailUrl: _b, updatedAt: _c, ...rest } = product ?? {};
      return JSON.stringify(rest);
    };
    if (read && strip(read.product) !== strip(body.product)) {
      problems.push(`product reads back changed: ${JSON.stringify(read.product).slice(0, 200)}`);
    }
  }
  return problems;
}

/** The victim's storefront, products and orders as its own key reads them. */
export async function victimState(send: Send, victim: HostileRun["victim"]): Promise<string[]> {
  const headers = { authorization: `Bearer ${victim.key}` };
  const paths = ["", "/products", "/orders"].map((tail) => `/v1/storefronts/${victim.storefrontId}${tail}`);
  return Promise.all(paths.map(async (path) => (await send({ method: "GET", path, headers })).text));
}

/**
 * Rows that contradict each other, and text the database changed on the way in (U+FFFD where a lone surrogate
 * was: the generator never sends U+FFFD itself). Empty when the data is intact.
 */
export async function inconsistencies(): Promise<string[]> {
  const db = await dbReady();
  const problems: string[] = [];
  const counters = await queryRows<{ id: string; product_count: number; products: number }>(
    db,
    sql`select a.id, a.product_count, (select count(*)::int from products p join storefronts s on s.id = p.storefront_id
          where s.account_id = a.id and s.deleted_at is null) as products from accounts a`,
  );
  for (const row of counters) {
    if (row.product_count !== row.products) {
      problems.push(`account ${row.id}: product_count ${row.product_count} != ${row.products}`);
    }
  }
  const checks: Array<[string, ReturnType<typeof sql>]> = [
    [
      "order_counter differs from its orders",
      sql`select id from storefronts s where s.order_counter <> (select count(*) from orders o where o.storefront_id = s.id)`,
    ],
    [
      "total is not subtotal + delivery",
      sql`select id from orders where total_price <> subtotal_price + delivery_price`,
    ],
    ["negative stock", sql`select id from products where stock < 0`],
    [
      "idempotency claim left in progress",
      sql`select key_id as id from idempotency_keys where state = 'in_progress'`,
    ],
  ];
  for (const [problem, query] of checks) {
    for (const row of await queryRows<{ id: string }>(db, query)) problems.push(`${row.id}: ${problem}`);
  }
  const columns = await queryRows<{ table_name: string; column_name: string }>(
    db,
    sql`select table_name, column_name from information_schema.columns
        where table_schema = 'public' and data_type in ('text', 'jsonb', 'character varying')`,
  );
  for (const { table_name: table, column_name: column } of columns) {
    const [row] = await queryRows<{ n: number }>(
      db,
      sql.raw(
        `select count(*)::int as n from "${table}" where "${column}"::text like '%' || chr(65533) || '%'`,
      ),
    );
    if ((row?.n ?? 0) > 0) problems.push(`${table}.${column}: ${row?.n} values hold U+FFFD`);
  }
  return problems;
}
