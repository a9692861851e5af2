import { describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { latestVerificationCode } from "@/server/orders/testing";
import { createMerchant } from "@/server/storefronts/testing";
import { call } from "@/server/testing/api";
import { asAdapter, serviceContextFor } from "@/server/testing/context";
import { sendTestEvent } from "@/server/webhooks/endpoints";
import { createTestEndpoint } from "@/server/webhooks/testing";
import { asRestStorefront, gql, withFragments } from "./testing";

// Every query of the GraphQL door (docs/graphql.md) answers what /v1 answers for the same objects, field for
// field, through the same services.

type Edges<T> = {
  edges: Array<{ cursor: string; node: T }>;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
};
type Json = Record<string, unknown>;

async function catalog() {
  const merchant = await createMerchant({ plan: "PRO", verified: true });
  const created = await call<{ storefront: { id: string } }>("POST", "/v1/storefronts", {
    key: merchant.userKey,
    body: {
      name: "Café Olé",
      currency: "MXN",
      language: "es",
      businessType: "Cafetería",
      whatsapp: "+5215512345678",
      branding: { logoUrl: "https://cdn.example.com/logo.png", theme: { preset: "ocean" }, font: "Inter" },
      schedule: { monday: { open: "08:00", close: "20:00" }, sunday: null },
      delivery: { enabled: true, type: "distance", ranges: [{ fromKm: 0, toKm: 5, price: 20 }] },
      biography: "auto",
      categories: [{ name: "Pan", position: 1 }, { name: "Café" }],
      pickup: true,
      products: [
        { title: "Concha", price: 12, category: "Pan", tags: ["dulce"], stock: 10 },
        {
          title: "Latte",
          price: 45,
          salePrice: 40,
          category: "Café",
          extraProductsCategory: [
            {
              title: "Leche",
              obligatory: true,
              multipleOption: false,
              maxOptions: 1,
              minOptions: 1,
              extraProducts: [{ title: "Avena", price: 5, available: true }],
            },
          ],
        },
        { title: "Bolillo", price: 3, category: "Pan" },
      ],
    },
  });
  const storefrontId = created.body.storefront.id;
  return { merchant, storefrontId };
}

describe("queries", () => {
  it("storefront, product and their lists answer /v1's objects field for field", async () => {
    const { merchant, storefrontId } = await catalog();
    const res = await gql<{
      storefront: Json & { products: Edges<Json> };
      storefronts: Edges<Json>;
    }>(
      withFragments(`query($id: ID!) {
        storefront(id: $id) { ...StorefrontFields products(first: 2) { edges { cursor node { ...ProductFields } } pageInfo { hasNextPage endCursor } } }
        storefronts { edges { node { id } } pageInfo { hasNextPage endCursor } }
      }`),
      { key: merchant.userKey, variables: { id: storefrontId } },
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const rest = await call<{ storefront: Json }>("GET", `/v1/storefronts/${storefrontId}`, {
      key: merchant.userKey,
    });
    const { products, ...storefront } = res.body.data?.storefront ?? { products: null };
    expect(asRestStorefront(storefront)).toEqual(rest.body.storefront);
    const restProducts = await call<{ data: Json[]; nextCursor: string }>(
      "GET",
      `/v1/storefronts/${storefrontId}/products?limit=2`,
      { key: merchant.userKey },
    );
    expect(products?.edges.map((e) => e.node)).toEqual(restProducts.body.data);
    // The same cursors as /v1: GraphQL's endCursor is /v1's nextCursor, and either continues the other's list.
    expect(products?.pageInfo).toEqual({ hasNextPage: true, endCursor: restProducts.body.nextCursor });
    const next = await gql<{ storefront: { products: Edges<Json> } }>(
      `query($id: ID!, $after: String) { storefront(id: $id) { products(first: 2, after: $after) { edges { node { id } } pageInfo { hasNextPage } } } }`,
      { key: merchant.userKey, variables: { id: storefrontId, after: restProducts.body.nextCursor } },
    );
    expect(next.body.data?.storefront.products.edges.map((e) => e.node.id)).toHaveLength(1);
    expect(next.body.data?.storefront.products.pageInfo.hasNextPage).toBe(false);
    expect(res.body.data?.storefronts.edges.map((e) => e.node.id)).toEqual([storefrontId]);

    const productId = String(restProducts.body.data[1]?.id);
    const one = await gql<{ product: Json; node: Json }>(
      withFragments(
        `query($id: ID!) { product(id: $id) { ...ProductFields } node(id: $id) { __typename id ... on Product { title } } }`,
      ),
      { key: merchant.userKey, variables: { id: productId } },
    );
    expect(one.body.data?.product).toEqual(restProducts.body.data[1]);
    expect(one.body.data?.node).toEqual({ __typename: "Product", id: productId, title: "Latte" });

    const bread = await gql<{ storefront: { products: Edges<{ title: string }> } }>(
      `query($id: ID!) { storefront(id: $id) { products(category: "Pan") { edges { node { title } } } } }`,
      { key: merchant.userKey, variables: { id: storefrontId } },
    );
    expect(bread.body.data?.storefront.products.edges.map((e) => e.node.title)).toEqual([
      "Concha",
      "Bolillo",
    ]);
  });

  it("first is 1-100 (default 20): outside it is invalid_request with param first", async () => {
    const { merchant } = await catalog();
    for (const first of [0, 101]) {
      const res = await gql(`{ storefronts(first: ${first}) { edges { node { id } } } }`, {
        key: merchant.userKey,
      });
      expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: "invalid_request", param: "first" });
    }
  });

  it("orders: one by id, the account's with storefront and status filters, a storefront's, and each order's storefront", async () => {
    const { merchant, storefrontId } = await catalog();
    const products = await call<{ data: Array<{ id: string; extraProductsCategory: unknown[] | null }> }>(
      "GET",
      `/v1/storefronts/${storefrontId}/products`,
      {
        key: merchant.userKey,
      },
    );
    const orderIds: string[] = [];
    // The Latte's milk is an obligatory option group: order the two products without options.
    for (const product of products.body.data.filter((p) => !p.extraProductsCategory).slice(0, 2)) {
      const placed = await call<{ order: { id: string } }>("POST", `/v1/storefronts/${storefrontId}/orders`, {
        key: merchant.userKey,
        body: {
          items: [{ productId: product.id, amount: 1 }],
          customer: { name: "Ana", phone: "5512345678" },
          paymentMethod: { name: "Efectivo" },
        },
      });
      orderIds.push(placed.body.order.id);
    }
    await call("PATCH", `/v1/orders/${orderIds[1]}`, {
      key: merchant.userKey,
      body: { orderStatus: "accepted" },
    });
    await call("POST", `/v1/orders/${orderIds[1]}/pay`, {
      key: merchant.userKey,
      body: { paymentMethod: { name: "Tarjeta" } },
    });
    const res = await gql<{
      order: Json & { storefront: { id: string } };
      accepted: Edges<{ id: string }>;
      pending: Edges<{ id: string }>;
      storefront: { orders: Edges<{ id: string }> };
    }>(
      withFragments(`query($id: ID!, $s: ID!) {
        order(id: $id) { ...OrderFields storefront { id name } }
        accepted: orders(status: accepted) { edges { node { id } } }
        pending: orders(storefrontId: $s, status: pending, first: 5) { edges { node { id } } }
        storefront(id: $s) { orders(first: 1) { edges { node { id } } pageInfo { hasNextPage } } }
      }`),
      { key: merchant.userKey, variables: { id: orderIds[1], s: storefrontId } },
    );
    expect(res.body.errors).toBeUndefined();
    const rest = await call<{ order: Json }>("GET", `/v1/orders/${orderIds[1]}`, { key: merchant.userKey });
    const { storefront, ...order } = res.body.data?.order ?? { storefront: null };
    expect(order).toEqual(rest.body.order);
    expect(storefront).toMatchObject({ id: storefrontId, name: "Café Olé" });
    expect(res.body.data?.accepted.edges.map((e) => e.node.id)).toEqual([orderIds[1]]);
    expect(res.body.data?.pending.edges.map((e) => e.node.id)).toEqual([orderIds[0]]);
    expect(res.body.data?.storefront.orders.edges.map((e) => e.node.id)).toEqual([orderIds[0]]);
  });

  it("webhook endpoints: one, the list, the delivery log with attempts, and node for a delivery", async () => {
    const developer = await createDeveloper();
    const endpoint = await createTestEndpoint(developer.key, { url: "https://hooks.example.com/a" });
    await asAdapter(await serviceContextFor(developer.key), (ctx) =>
      sendTestEvent(ctx, { endpointId: endpoint.endpointId, type: "order.paid" }),
    );
    const res = await gql<{
      webhookEndpoint: Json & { id: string; deliveries: Edges<Json & { id: string }> };
      webhookEndpoints: Edges<{ id: string }>;
    }>(
      withFragments(`query($id: ID!) {
        webhookEndpoint(id: $id) { id ...EndpointFields deliveries(first: 5) { edges { node { id endpointId eventId type status attempts { n at httpStatus durationMs error } nextAttemptAt createdAt lastResponseBody test } } } }
        webhookEndpoints { edges { node { id } } }
      }`),
      { key: developer.key, variables: { id: endpoint.endpointId } },
    );
    expect(res.body.errors).toBeUndefined();
    const rest = await call<Json>("GET", `/v1/webhook_endpoints/${endpoint.endpointId}`, {
      key: developer.key,
    });
    const { id, deliveries, ...fields } = res.body.data?.webhookEndpoint ?? { id: null, deliveries: null };
    expect(id).toBe(endpoint.endpointId);
    expect(fields).toEqual(rest.body);
    expect(fields).not.toHaveProperty("signingSecret");
    const log = await call<{ data: Json[] }>(
      "GET",
      `/v1/webhook_endpoints/${endpoint.endpointId}/deliveries`,
      {
        key: developer.key,
      },
    );
    expect(deliveries?.edges.map((e) => e.node)).toEqual(log.body.data);
    expect(res.body.data?.webhookEndpoints.edges.map((e) => e.node.id)).toEqual([endpoint.endpointId]);
    const deliveryId = deliveries?.edges[0]?.node.id;
    const node = await gql(`query($id: ID!) { node(id: $id) { __typename id } }`, {
      key: developer.key,
      variables: { id: deliveryId },
    });
    expect(node.body.data).toEqual({ node: { __typename: "Delivery", id: deliveryId } });
  });

  it("me, a developer's bootstrapped users and their storefronts; node of a user and nodes in order", async () => {
    const developer = await createDeveloper();
    const user = await bootstrapUser(developer.key);
    await latestVerificationCode(user.email);
    const storefront = await call<{ storefront: { id: string } }>("POST", "/v1/storefronts", {
      key: user.userKey,
      body: { name: "De un socio", currency: "USD" },
    });
    const res = await gql<{
      me: Json & { bootstrappedUsers: Edges<Json & { storefronts: Edges<{ id: string }> }> };
    }>(
      `{ me { type keyId keyName scopes account { id email status plan limits { storefronts products publishable } }
          rateLimit { rpm rpd remainingMinute remainingDay } links { upgradeUrl }
          bootstrappedUsers { edges { node { id email name language status plan developerKeyId createdAt verifiedAt
            storefronts { edges { node { id name } } } } } } } }`,
      { key: developer.key },
    );
    expect(res.body.errors).toBeUndefined();
    const { bootstrappedUsers, links, ...me } = res.body.data?.me ?? { bootstrappedUsers: null, links: null };
    const rest = await call<Json & { _links: Json; rateLimit: Json }>("GET", "/v1/me", {
      key: developer.key,
    });
    expect({ ...me, _links: links, rateLimit: {} }).toEqual({
      ...rest.body,
      _links: { upgradeUrl: null, ...rest.body._links },
      rateLimit: {},
    });
    expect((me as Json).rateLimit).toMatchObject({ rpm: 100_000, rpd: 100_000 });
    expect(bootstrappedUsers?.edges).toHaveLength(1);
    expect(bootstrappedUsers?.edges[0]?.node).toMatchObject({
      id: user.userId,
      email: user.email,
      status: "unverified",
      developerKeyId: developer.keyId,
      storefronts: { edges: [{ node: { id: storefront.body.storefront.id, name: "De un socio" } }] },
    });
    const nodes = await gql(`query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`, {
      key: developer.key,
      variables: { ids: ["stf_unknown", user.userId, "xyz_unknown"] },
    });
    expect(nodes.body.data).toEqual({ nodes: [null, { __typename: "User", id: user.userId }, null] });
    expect(nodes.body.errors?.map((e) => [e.path, e.extensions.code])).toEqual([
      [["nodes", 0], "insufficient_scope"],
    ]);
  });
});
