import { eq } from "drizzle-orm";
import { getIntrospectionQuery, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { dbReady } from "@/server/db/client";
import { SCOPES } from "@/server/gate/scopes";
import { apiKeys } from "@/server/gate/tables";
import { newId } from "@/server/lib/ids";
import { ProductManifest } from "@/server/products/schema";
import { createProducts } from "@/server/products/service";
import { storefronts } from "@/server/storefronts/tables";
import { createMerchant, createTestStorefront } from "@/server/storefronts/testing";
import { asAdapter, serviceContextFor } from "@/server/testing/context";
import { createTestEndpoint, setTestEnv } from "@/server/webhooks/testing";
import { schema } from "@/server/wiring/graphql";
import { paramOf } from "./errors";
import { GRAPHQL_LIMITS, operationCost } from "./limits";
import { countingDb, gql, testYoga } from "./testing";

// The GraphQL door's limits and performance (docs/graphql.md, "Limits"): depth, cost, aliases, tokens, batching
// and sizes are refused before any resolver runs, and a query's statements do not grow with its result.

const DEEP = `{ storefronts { edges { node { orders { edges { node { storefront { products { edges { node {
  extraProductsCategory { title } } } } } } } } } } } }`;

async function merchantKey() {
  const merchant = await createMerchant({ plan: "PRO", verified: true });
  return merchant.userKey;
}

function cost(query: string, variables: Record<string, unknown> = {}): number {
  const document = parse(query);
  const operation = document.definitions[0];
  if (operation?.kind !== "OperationDefinition") throw new Error("no operation");
  return operationCost(schema, document, operation, variables);
}

describe("the cost of a query", () => {
  it("counts the objects with an id a query can load, lists `first` times (literal, variable or default 20)", () => {
    expect(cost("{ me { keyId } }")).toBe(0);
    expect(cost(`{ storefront(id: "stf_x") { id name branding { font } } }`)).toBe(1);
    expect(cost("{ storefronts(first: 5) { edges { node { id } } pageInfo { hasNextPage } } }")).toBe(6);
    expect(cost("{ storefronts { edges { node { id } } } }")).toBe(21);
    expect(cost("query($n: Int) { storefronts(first: $n) { edges { node { id } } } }", { n: 100 })).toBe(101);
    expect(
      cost(
        "{ storefronts(first: 20) { edges { node { id products(first: 20) { edges { node { id } } } } } } }",
      ),
    ).toBe(1 + 20 * (1 + 1 + 20));
    expect(cost(`{ nodes(ids: ["a", "b", "c"]) { id } }`)).toBe(1 + 3);
    expect(cost(`mutation { deleteProduct(id: "prd_x") { id } }`)).toBe(GRAPHQL_LIMITS.mutationCost);
    expect(cost(getIntrospectionQuery())).toBe(0);
  });
});

describe("limits refuse before anything runs", () => {
  it("deeper than 10, costlier than 1,000 (with `first` from variables too): 400 query_too_complex, and no SQL beyond authentication", async () => {
    const key = await merchantKey();
    const { db, statements } = await countingDb();
    const yoga = testYoga({ db: async () => db });
    await gql("{ __typename }", { key, yoga });
    const authentication = statements.length;
    expect(authentication).toBe(1);
    statements.length = 0;

    const deep = await gql(DEEP, { key, yoga });
    expect(deep.status).toBe(400);
    expect(deep.body.data).toBeUndefined();
    expect(deep.body.errors?.[0]?.extensions).toMatchObject({
      code: "query_too_complex",
      type: "invalid_request",
    });
    expect(deep.body.errors?.[0]?.message).toMatch(/depth limit of 10 exceeded/);
    expect(statements).toHaveLength(authentication);

    statements.length = 0;
    const costly =
      "query($n: Int) { storefronts(first: $n) { edges { node { products(first: $n) { edges { node { id } } } } } } }";
    const refused = await gql(costly, { key, yoga, variables: { n: 100 } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: "query_too_complex" });
    expect(refused.body.errors?.[0]?.message).toMatch(/cost limit of 1000 exceeded, found 10201/);
    expect(statements).toHaveLength(authentication);
    // The same query with small pages runs.
    const small = await gql(costly, { key, yoga, variables: { n: 5 } });
    expect(small.body.errors).toBeUndefined();
  });

  it("aliases, tokens and directives are capped", async () => {
    const key = await merchantKey();
    const aliases = Array.from({ length: 16 }, (_, i) => `a${i}: me { keyId }`).join(" ");
    const manyAliases = await gql(`{ ${aliases} }`, { key });
    expect(manyAliases.body.errors?.[0]?.extensions.code).toBe("query_too_complex");
    expect(manyAliases.body.errors?.[0]?.message).toMatch(/Aliases limit of 15 exceeded/);
    const tokens = await gql(`{ ${"me { keyId } ".repeat(700)} }`, { key });
    expect(tokens.body.errors?.[0]?.extensions.code).toBe("query_too_complex");
    expect(tokens.body.errors?.[0]?.message).toMatch(/Token limit of 2000 exceeded/);
    const directives = await gql(`{ me { keyId ${"@include(if: true) ".repeat(11)} } }`, { key });
    expect(directives.body.errors?.[0]?.extensions.code).toBe("query_too_complex");
  });

  it("a batched array is refused; query text over 100 KB is 413; a body over 1 MiB is 413; invalid JSON is invalid_json", async () => {
    const key = await merchantKey();
    const batched = await gql("", {
      key,
      rawBody: JSON.stringify([{ query: "{ me { keyId } }" }, { query: "{ me { keyId } }" }]),
    });
    expect(batched.status).toBe(400);
    expect(batched.body.errors?.[0]?.extensions).toMatchObject({ code: "invalid_request" });
    expect(batched.body.errors?.[0]?.message).toMatch(/Batching is not supported/);
    const longQuery = `{ me { keyId } } # ${"x".repeat(100_001)}`;
    const tooLong = await gql(longQuery, { key });
    expect(tooLong.status).toBe(413);
    expect(tooLong.body.errors?.[0]?.extensions).toMatchObject({ code: "payload_too_large", param: "query" });
    const hugeVariables = await gql("query($x: String) { me { keyId } }", {
      key,
      variables: { x: "y".repeat(1_100_000) },
    });
    expect(hugeVariables.status).toBe(413);
    expect(hugeVariables.body.errors?.[0]?.extensions.code).toBe("payload_too_large");
    // A declared length over the cap is refused before the body is read.
    const declared = await gql("{ me { keyId } }", {
      key,
      headers: { "content-length": String(2 * 1024 * 1024) },
    });
    expect(declared.status).toBe(413);
    expect(declared.body.errors?.[0]?.extensions.code).toBe("payload_too_large");
    const broken = await gql("", { key, rawBody: "{ not json" });
    expect(broken.status).toBe(400);
    expect(broken.body.errors?.[0]?.extensions.code).toBe("invalid_json");
  });

  it("a mutation over GET is refused; a query over GET runs", async () => {
    const key = await merchantKey();
    const viaGet = await gql("{ me { keyId } }", { key, method: "GET" });
    expect(viaGet.status).toBe(200);
    const mutation = await gql(`mutation { deleteProduct(id: "prd_x") { id } }`, { key, method: "GET" });
    expect(mutation.status).toBe(405);
    expect(mutation.body.errors?.[0]?.extensions.code).toBe("method_not_allowed");
  });

  it("introspection is on; GraphiQL is served outside production only", async () => {
    const key = await merchantKey();
    const introspection = await gql<{ __schema: { queryType: { name: string } } }>(getIntrospectionQuery(), {
      key,
    });
    expect(introspection.body.errors).toBeUndefined();
    expect(introspection.body.data?.__schema.queryType.name).toBe("Query");
    const page = (yoga: ReturnType<typeof testYoga>) =>
      yoga.fetch(new Request("http://127.0.0.1/api/graphql", { headers: { accept: "text/html" } }));
    const dev = await page(testYoga({ graphiql: true }));
    expect(dev.status).toBe(200);
    expect(await dev.text()).toMatch(/GraphiQL/i);
    const before = process.env.NODE_ENV;
    setTestEnv({ NODE_ENV: "production" });
    try {
      // No page: the request goes on to authentication.
      const production = await page(testYoga({}));
      expect(production.status).toBe(401);
    } finally {
      setTestEnv({ NODE_ENV: before });
    }
  });
});

describe("no N+1", () => {
  /** `storefrontCount` storefronts of `productCount` products each, two categories, and an endpoint. */
  async function account(storefrontCount: number, productCount: number) {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const db = await dbReady();
    await db
      .update(apiKeys)
      .set({ scopes: [SCOPES.catalogRead, SCOPES.catalogWrite, SCOPES.developerWebhooks] })
      .where(eq(apiKeys.accountId, merchant.userId));
    const first = await createTestStorefront(merchant.userKey, {
      categories: [{ name: "Pan" }, { name: "Café" }],
    });
    // PRO allows 10 storefronts; the rest are copies of the first one's row.
    const [row] = await db.select().from(storefronts).where(eq(storefronts.id, first.id));
    if (!row) throw new Error("no storefront row");
    const ids = [first.id];
    for (let i = 1; i < storefrontCount; i++) {
      const id = newId("stf");
      await db.insert(storefronts).values({ ...row, id, slug: null });
      ids.push(id);
    }
    const ctx = await serviceContextFor(merchant.userKey);
    for (const storefrontId of ids) {
      const manifests = Array.from({ length: productCount }, (_, i) =>
        ProductManifest.parse({ title: `P${i}`, price: i + 1, category: i % 2 ? "Pan" : "Café" }),
      );
      await asAdapter(ctx, (c) => createProducts(c, { storefrontId, products: manifests }));
    }
    await createTestEndpoint(merchant.userKey, { url: "https://hooks.example.com/n1" });
    return merchant.userKey;
  }

  const QUERY = `{
    storefronts(first: 20) { edges { node { id name categories { name position }
      products(first: 20) { edges { node { id title category } } } } } }
    webhookEndpoints(first: 20) { edges { node { id url } } }
  }`;

  it("20 storefronts with 20 products each, their categories and the endpoints: the same 4 statements as 2 with 2", async () => {
    const counted: number[] = [];
    for (const [storefrontCount, productCount] of [
      [2, 2],
      [20, 20],
    ] as const) {
      const key = await account(storefrontCount, productCount);
      const { db, statements } = await countingDb();
      const res = await gql<{
        storefronts: { edges: Array<{ node: { categories: unknown[]; products: { edges: unknown[] } } }> };
        webhookEndpoints: { edges: unknown[] };
      }>(QUERY, { key, yoga: testYoga({ db: async () => db }) });
      expect(res.body.errors).toBeUndefined();
      const edges = res.body.data?.storefronts.edges ?? [];
      expect(edges).toHaveLength(storefrontCount);
      for (const edge of edges) {
        expect(edge.node.products.edges).toHaveLength(productCount);
        expect(edge.node.categories).toHaveLength(2);
      }
      expect(res.body.data?.webhookEndpoints.edges).toHaveLength(1);
      counted.push(statements.length);
    }
    // Authentication and counting, the storefronts, every storefront's products, the endpoints.
    expect(counted).toEqual([4, 4]);
  });
});

describe("param of a variable GraphQL refuses", () => {
  it("is the JSON path inside the variable, the field GraphQL names, or the variable", () => {
    expect(
      paramOf(
        'Variable "$input" got invalid value "x" at "input.delivery.ranges[1].fromKm"; Float cannot represent non numeric value: "x"',
      ),
    ).toBe("delivery.ranges[1].fromKm");
    expect(
      paramOf(
        'Variable "$input" got invalid value { colour: "red" } at "input.delivery"; Field "colour" is not defined by type "DeliveryInput".',
      ),
    ).toBe("delivery.colour");
    expect(
      paramOf(
        'Variable "$input" got invalid value {}; Field "title" of required type "String!" was not provided.',
      ),
    ).toBe("title");
    expect(paramOf('Variable "$id" of required type "ID!" was not provided.')).toBe("id");
    expect(paramOf('Expected value of type "Float", found "x".')).toBeNull();
  });
});
