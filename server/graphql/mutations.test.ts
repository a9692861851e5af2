import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { products } from "@/server/products/tables";
import { storefronts } from "@/server/storefronts/tables";
import { createMerchant, setProductCount } from "@/server/storefronts/testing";
import { call } from "@/server/testing/api";
import { asRestStorefront, gql, withFragments } from "./testing";

// Every mutation of the GraphQL door (docs/graphql.md) is a /v1 write with the same input and rules: the same
// stored rows and DTOs, the same catalogue errors with the same `param`, and nothing written when it fails.

type Json = Record<string, unknown>;

const STOREFRONT_BODY = {
  name: "Tacos Lupita",
  currency: "MXN",
  language: "es",
  whatsapp: "+5215512345678",
  branding: { logoUrl: "https://cdn.example.com/logo.png", font: "Inter", theme: { preset: "forest" } },
  schedule: { monday: { open: "09:00", close: "18:00" } },
  delivery: { enabled: true, type: "fixed", fixedPrice: 25 },
  categories: [{ name: "Tacos", position: 1 }],
};
const PATCH = {
  branding: { font: "Lora", theme: null },
  schedule: { monday: { close: "20:00" }, tuesday: { closed: true } },
  delivery: {
    enabled: true,
    type: "distance",
    ranges: [
      { fromKm: 0, toKm: 5, price: 10 },
      { fromKm: 5, toKm: null, price: 30 },
    ],
  },
  categories: [{ name: "Tortas" }],
  biography: "auto",
  hidden: null,
  slug: "tacos-lupita-centro",
};

/** A stored row without what differs between two writes of the same data (ids, owners, instants). */
async function storedStorefront(id: string): Promise<Json> {
  const db = await dbReady();
  const [row] = await db.select().from(storefronts).where(eq(storefronts.id, id));
  // The branding images' pending mark is the write's own instant, like updatedAt (and its after-commit task clears it
  // whenever it finishes): not part of what the two doors must store alike.
  const { id: _, slug: __, createdAt, updatedAt, brandingImagesPendingSince, ...rest } = row ?? ({} as Json);
  return rest;
}

function withoutIdentity(dto: Json): Json {
  const { id, slug, createdAt, updatedAt, _links, ...rest } = dto;
  return rest;
}

describe("parity with /v1", () => {
  it("updateStorefront and PATCH leave the same stored row and answer the same storefront", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const make = async () =>
      (
        await call<{ storefront: Json & { id: string } }>("POST", "/v1/storefronts", {
          key: merchant.userKey,
          body: STOREFRONT_BODY,
        })
      ).body.storefront.id;
    const viaRest = await make();
    const viaGraphQL = await make();
    const rest = await call<{ storefront: Json }>("PATCH", `/v1/storefronts/${viaRest}`, {
      key: merchant.userKey,
      body: { ...PATCH, slug: "tacos-rest" },
    });
    expect(rest.status).toBe(200);
    const graph = await gql<{ updateStorefront: Json }>(
      withFragments(
        `mutation($id: ID!, $input: UpdateStorefrontInput!) { updateStorefront(id: $id, input: $input) { ...StorefrontFields } }`,
      ),
      { key: merchant.userKey, variables: { id: viaGraphQL, input: { ...PATCH, slug: "tacos-graphql" } } },
    );
    expect(graph.body.errors).toBeUndefined();
    expect(withoutIdentity(asRestStorefront(graph.body.data?.updateStorefront ?? {}))).toEqual(
      withoutIdentity(rest.body.storefront),
    );
    expect(await storedStorefront(viaGraphQL)).toEqual(await storedStorefront(viaRest));
    // PATCH rules: nested objects merged, arrays replaced, null clears.
    expect(graph.body.data?.updateStorefront).toMatchObject({
      branding: { font: "Lora", logoUrl: "https://cdn.example.com/logo.png", theme: null },
      schedule: {
        monday: { open: "09:00", close: "20:00", closed: null },
        tuesday: { open: null, close: null, closed: true },
      },
      categories: [{ name: "Tortas", position: null }],
      hidden: false,
      whatsapp: "+5215512345678",
    });
  });

  it("createProduct, updateProduct and createOrder write what /v1 writes", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const storefront = (
      await call<{ storefront: { id: string } }>("POST", "/v1/storefronts", {
        key: merchant.userKey,
        body: STOREFRONT_BODY,
      })
    ).body.storefront.id;
    const manifest = {
      title: "Taco al pastor",
      price: 25.12345,
      salePrice: 22,
      tags: ["cerdo"],
      stock: 50,
      extraProductsCategory: [
        {
          title: "Salsa",
          obligatory: false,
          multipleOption: true,
          maxOptions: 2,
          minOptions: 0,
          extraProducts: [{ title: "Verde", price: 0, available: true }],
        },
      ],
    };
    const rest = await call<{ product: Json & { id: string } }>(
      "POST",
      `/v1/storefronts/${storefront}/products`,
      { key: merchant.userKey, body: manifest },
    );
    const graph = await gql<{ createProduct: Json & { id: string } }>(
      withFragments(
        `mutation($s: ID!, $input: ProductManifest!) { createProduct(storefrontId: $s, input: $input) { ...ProductFields } }`,
      ),
      { key: merchant.userKey, variables: { s: storefront, input: manifest } },
    );
    expect(graph.body.errors).toBeUndefined();
    const restProduct = rest.body.product;
    const graphProduct = graph.body.data?.createProduct ?? { id: "" };
    expect(withoutIdentity(graphProduct)).toEqual(withoutIdentity(restProduct));
    expect(graphProduct.price).toBe(25.1235);
    const patch = { salePrice: null, stock: 3, tags: null, description: "Con piña" };
    const restPatched = await call<{ product: Json }>(
      "PATCH",
      `/v1/storefronts/${storefront}/products/${restProduct.id}`,
      { key: merchant.userKey, body: patch },
    );
    const graphPatched = await gql<{ updateProduct: Json }>(
      withFragments(
        `mutation($id: ID!, $input: UpdateProductInput!) { updateProduct(id: $id, input: $input) { ...ProductFields } }`,
      ),
      { key: merchant.userKey, variables: { id: graphProduct.id, input: patch } },
    );
    expect(withoutIdentity(graphPatched.body.data?.updateProduct ?? {})).toEqual(
      withoutIdentity(restPatched.body.product),
    );
    const db = await dbReady();
    const rows = await db.select().from(products).where(eq(products.storefrontId, storefront));
    const strip = ({ id, createdAt, updatedAt, ...row }: Json) => row;
    expect(strip(rows[1] as Json)).toEqual(strip(rows[0] as Json));

    const order = {
      items: [{ productId: restProduct.id, amount: 1 }],
      customer: { name: "Ana", phone: "5512345678" },
      paymentMethod: { name: "Efectivo" },
      fulfillment: { type: "delivery" },
    };
    const restOrder = await call<{ order: Json }>("POST", `/v1/storefronts/${storefront}/orders`, {
      key: merchant.userKey,
      body: order,
    });
    const graphOrder = await gql<{ createOrder: Json }>(
      withFragments(
        `mutation($s: ID!, $input: CreateOrderInput!) { createOrder(storefrontId: $s, input: $input) { ...OrderFields } }`,
      ),
      { key: merchant.userKey, variables: { s: storefront, input: order } },
    );
    const orderShape = ({ id, publicOrderId, createdAt, updatedAt, paymentMethod, ...rest }: Json) => ({
      ...rest,
      paymentMethod: { id: null, ...(paymentMethod as Json) },
    });
    expect(orderShape(graphOrder.body.data?.createOrder ?? {})).toEqual(orderShape(restOrder.body.order));
    expect(graphOrder.body.data?.createOrder).toMatchObject({
      publicOrderId: 2,
      deliveryPrice: 25,
      totalPrice: 50.1235,
    });
  });
});

describe("every mutation", () => {
  it("storefronts: create with products (plan limits as a partial result), publish, unpublish, delete", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    await setProductCount(merchant.userId, 9_999);
    const created = await gql<{
      createStorefront: {
        storefront: { id: string; published: boolean };
        products: Array<{ title: string }>;
        rejected: Array<{ index: number; error: Json }>;
      };
    }>(
      `mutation($input: CreateStorefrontInput!) { createStorefront(input: $input) {
        storefront { id published } products { title } rejected { index error { code type param message recoverable upgrade { currentPlan requiredPlan upgradeUrl } } } } }`,
      {
        key: merchant.userKey,
        variables: {
          input: {
            name: "Panadería",
            currency: "MXN",
            products: [
              { title: "A", price: 1 },
              { title: "B", price: 2 },
            ],
          },
        },
      },
    );
    expect(created.body.errors).toBeUndefined();
    const payload = created.body.data?.createStorefront;
    expect(payload?.products).toEqual([{ title: "A" }]);
    expect(payload?.rejected).toEqual([
      {
        index: 1,
        error: expect.objectContaining({
          code: "products_over_limit",
          type: "plan_limit",
          param: "products[1]",
          upgrade: expect.objectContaining({ requiredPlan: "PRO" }),
        }),
      },
    ]);
    const id = payload?.storefront.id;
    const published = await gql<{
      publishStorefront: { published: boolean; slug: string; links: { publicUrl: string } };
    }>(`mutation($id: ID!) { publishStorefront(id: $id) { published slug links { publicUrl } } }`, {
      key: merchant.userKey,
      variables: { id },
    });
    expect(published.body.data?.publishStorefront).toMatchObject({ published: true, slug: "panaderia" });
    expect(published.body.data?.publishStorefront.links.publicUrl).toMatch(/\/s\/panaderia$/);
    const unpublished = await gql(`mutation($id: ID!) { unpublishStorefront(id: $id) { published slug } }`, {
      key: merchant.userKey,
      variables: { id },
    });
    expect(unpublished.body.data).toEqual({ unpublishStorefront: { published: false, slug: "panaderia" } });
    const deleted = await gql(`mutation($id: ID!) { deleteStorefront(id: $id) { id deleted } }`, {
      key: merchant.userKey,
      variables: { id },
    });
    expect(deleted.body.data).toEqual({ deleteStorefront: { id, deleted: true } });
    const gone = await gql(`query($id: ID!) { storefront(id: $id) { id } }`, {
      key: merchant.userKey,
      variables: { id },
    });
    expect(gone.body.errors?.[0]?.extensions).toMatchObject({
      code: "storefront_deleted",
      type: "not_found",
    });
  });

  it("publishing needs a verified account on a plan that can publish: the catalogue says why", async () => {
    const merchant = await createMerchant({ plan: "PRO" });
    const created = await call<{ storefront: { id: string } }>("POST", "/v1/storefronts", {
      key: merchant.userKey,
      body: { name: "X", currency: "MXN" },
    });
    const res = await gql(`mutation($id: ID!) { publishStorefront(id: $id) { id } }`, {
      key: merchant.userKey,
      variables: { id: created.body.storefront.id },
    });
    expect(res.body.errors?.[0]?.extensions).toMatchObject({
      code: "insufficient_scope",
      requiredScopes: ["storefront:publish"],
    });
  });

  it("products: batch create with rejected inputs, update and delete by product id", async () => {
    const merchant = await createMerchant();
    const storefrontId = (
      await call<{ storefront: { id: string } }>("POST", "/v1/storefronts", {
        key: merchant.userKey,
        body: { name: "X", currency: "MXN" },
      })
    ).body.storefront.id;
    await setProductCount(merchant.userId, 1_999);
    const batch = await gql<{
      createProducts: {
        products: Array<{ id: string; title: string }>;
        rejected: Array<{ index: number; error: { code: string; param: string } }>;
      };
    }>(
      `mutation($s: ID!, $inputs: [ProductManifest!]!) { createProducts(storefrontId: $s, inputs: $inputs) { products { id title } rejected { index error { code param } } } }`,
      {
        key: merchant.userKey,
        variables: {
          s: storefrontId,
          inputs: [
            { title: "A", price: 1 },
            { title: "B", price: 2 },
            { title: "C", price: 3 },
          ],
        },
      },
    );
    expect(batch.body.data?.createProducts.products.map((p) => p.title)).toEqual(["A"]);
    expect(batch.body.data?.createProducts.rejected).toEqual([
      { index: 1, error: { code: "products_over_limit", param: "inputs[1]" } },
      { index: 2, error: { code: "products_over_limit", param: "inputs[2]" } },
    ]);
    const productId = batch.body.data?.createProducts.products[0]?.id;
    const updated = await gql(
      `mutation($id: ID!) { updateProduct(id: $id, input: { title: "A+", salePrice: 0.5 }) { title salePrice } }`,
      { key: merchant.userKey, variables: { id: productId } },
    );
    expect(updated.body.data).toEqual({ updateProduct: { title: "A+", salePrice: 0.5 } });
    const tooHigh = await gql(
      `mutation($id: ID!) { updateProduct(id: $id, input: { salePrice: 5 }) { id } }`,
      { key: merchant.userKey, variables: { id: productId } },
    );
    expect(tooHigh.body.errors?.[0]?.extensions).toMatchObject({
      code: "invalid_request",
      param: "salePrice",
    });
    const deleted = await gql(`mutation($id: ID!) { deleteProduct(id: $id) { id deleted } }`, {
      key: merchant.userKey,
      variables: { id: productId },
    });
    expect(deleted.body.data).toEqual({ deleteProduct: { id: productId, deleted: true } });
    const single = await gql(
      `mutation($s: ID!) { createProduct(storefrontId: $s, input: { title: "Z", price: 1 }) { id } }`,
      { key: merchant.userKey, variables: { s: storefrontId } },
    );
    expect(single.body.data).toEqual({ createProduct: { id: expect.stringMatching(/^prd_/) } });
  });

  it("webhook endpoints: the signing secret only in the create and rotate payloads; update, test event, delete", async () => {
    const developer = await createDeveloper();
    const created = await gql<{
      createWebhookEndpoint: {
        signingSecret: string;
        webhookEndpoint: { id: string; endpointId: string; signingSecretVersion: number };
      };
    }>(
      `mutation { createWebhookEndpoint(input: { url: "https://hooks.example.com/in", subscribedEvents: ["order.paid"] }) {
        signingSecret webhookEndpoint { id endpointId signingSecretVersion subscribedEvents } } }`,
      { key: developer.key },
    );
    expect(created.body.errors).toBeUndefined();
    const payload = created.body.data?.createWebhookEndpoint;
    expect(payload?.signingSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(payload?.webhookEndpoint.id).toBe(payload?.webhookEndpoint.endpointId);
    const id = payload?.webhookEndpoint.endpointId;
    const noSecret = await gql(
      `mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: { enabled: false }) { enabled signingSecret } }`,
      { key: developer.key, variables: { id } },
    );
    expect(noSecret.body.errors?.[0]?.message).toMatch(/signingSecret/);
    const paused = await gql(
      `mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: { enabled: false, description: "pausado" }) { enabled description } }`,
      { key: developer.key, variables: { id } },
    );
    expect(paused.body.data).toEqual({ updateWebhookEndpoint: { enabled: false, description: "pausado" } });
    const refused = await gql(
      `mutation($id: ID!) { sendTestEvent(endpointId: $id, type: "order.paid") { eventId } }`,
      { key: developer.key, variables: { id } },
    );
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: "webhook_endpoint_paused" });
    await gql(`mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: { enabled: true }) { enabled } }`, {
      key: developer.key,
      variables: { id },
    });
    const fired = await gql(
      `mutation($id: ID!) { sendTestEvent(endpointId: $id, type: "order.paid") { eventId } }`,
      { key: developer.key, variables: { id } },
    );
    expect(fired.body.data).toEqual({ sendTestEvent: { eventId: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    const badType = await gql(
      `mutation($id: ID!) { sendTestEvent(endpointId: $id, type: "order.eaten") { eventId } }`,
      { key: developer.key, variables: { id } },
    );
    expect(badType.body.errors?.[0]?.extensions).toMatchObject({ code: "invalid_request", param: "type" });
    const rotated = await gql<{
      rotateWebhookSigningSecret: {
        signingSecret: string;
        webhookEndpoint: { signingSecretVersion: number };
      };
    }>(
      `mutation($id: ID!) { rotateWebhookSigningSecret(id: $id) { signingSecret webhookEndpoint { signingSecretVersion } } }`,
      { key: developer.key, variables: { id } },
    );
    expect(rotated.body.data?.rotateWebhookSigningSecret.webhookEndpoint.signingSecretVersion).toBe(2);
    expect(rotated.body.data?.rotateWebhookSigningSecret.signingSecret).not.toBe(payload?.signingSecret);
    const deleted = await gql(`mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { id deleted } }`, {
      key: developer.key,
      variables: { id },
    });
    expect(deleted.body.data).toEqual({ deleteWebhookEndpoint: { id, deleted: true } });
    const badUrl = await gql(
      `mutation { createWebhookEndpoint(input: { url: "http://localhost/x" }) { signingSecret } }`,
      { key: developer.key },
    );
    expect(badUrl.body.errors?.[0]?.extensions).toMatchObject({ code: "invalid_webhook_url", param: "url" });
  });

  it("orders: move the status, pay, and refuse what the rules refuse", async () => {
    const merchant = await createMerchant({ plan: "PRO", verified: true });
    const storefrontId = (
      await call<{ storefront: { id: string } }>("POST", "/v1/storefronts", {
        key: merchant.userKey,
        body: { name: "X", currency: "MXN" },
      })
    ).body.storefront.id;
    const product = await call<{ product: { id: string } }>(
      "POST",
      `/v1/storefronts/${storefrontId}/products`,
      { key: merchant.userKey, body: { title: "T", price: 10, stock: 1 } },
    );
    const input = {
      items: [{ productId: product.body.product.id, amount: 1 }],
      customer: { name: "Ana", phone: "5512345678" },
      paymentMethod: { name: "Efectivo" },
    };
    const placed = await gql<{ createOrder: { id: string } }>(
      `mutation($s: ID!, $input: CreateOrderInput!) { createOrder(storefrontId: $s, input: $input) { id } }`,
      { key: merchant.userKey, variables: { s: storefrontId, input } },
    );
    const id = placed.body.data?.createOrder.id;
    const noStock = await gql(
      `mutation($s: ID!, $input: CreateOrderInput!) { createOrder(storefrontId: $s, input: $input) { id } }`,
      { key: merchant.userKey, variables: { s: storefrontId, input } },
    );
    expect(noStock.body.errors?.[0]?.extensions).toMatchObject({
      code: "insufficient_stock",
      param: "items[0].amount",
    });
    const moved = await gql(
      `mutation($id: ID!) { updateOrderStatus(id: $id, input: { orderStatus: accepted, customStatus: { id: "horno", label: "En el horno" } }) { orderStatus customStatus { id label } } }`,
      { key: merchant.userKey, variables: { id } },
    );
    expect(moved.body.data).toEqual({
      updateOrderStatus: { orderStatus: "accepted", customStatus: { id: "horno", label: "En el horno" } },
    });
    const backwards = await gql(
      `mutation($id: ID!) { updateOrderStatus(id: $id, input: { orderStatus: pending }) { id } }`,
      { key: merchant.userKey, variables: { id } },
    );
    expect(backwards.body.errors?.[0]?.extensions).toMatchObject({
      code: "invalid_order_transition",
      param: "orderStatus",
    });
    const paid = await gql(
      `mutation($id: ID!) { payOrder(id: $id, input: { paymentMethod: { name: "Tarjeta" } }) { paymentStatus paymentMethod { id name } } }`,
      { key: merchant.userKey, variables: { id } },
    );
    expect(paid.body.data).toEqual({
      payOrder: {
        paymentStatus: "paid",
        paymentMethod: { id: expect.stringMatching(/^pay_/), name: "Tarjeta" },
      },
    });
    const twice = await gql(
      `mutation($id: ID!) { payOrder(id: $id, input: { paymentMethod: { name: "Tarjeta" } }) { id } }`,
      { key: merchant.userKey, variables: { id } },
    );
    expect(twice.body.errors?.[0]?.extensions).toMatchObject({
      code: "order_already_paid",
      type: "conflict",
    });
  });

  it("accounts: a developer bootstraps a user and issues it another key; the same email twice is email_taken", async () => {
    const developer = await createDeveloper();
    const email = `graphql-${Date.now()}@example.com`;
    const made = await gql<{
      bootstrapUser: {
        user: { id: string; email: string; status: string; language: string };
        userKey: string;
      };
    }>(
      `mutation($email: String!) { bootstrapUser(input: { email: $email, language: pt }) { user { id email status language } userKey } }`,
      { key: developer.key, variables: { email } },
    );
    expect(made.body.data?.bootstrapUser).toMatchObject({
      user: { email, status: "unverified", language: "pt" },
      userKey: expect.stringMatching(/^mk_user_/),
    });
    const again = await gql(
      `mutation($email: String!) { bootstrapUser(input: { email: $email }) { userKey } }`,
      { key: developer.key, variables: { email } },
    );
    expect(again.body.errors?.[0]?.extensions).toMatchObject({
      code: "email_taken",
      param: "email",
      type: "conflict",
    });
    const key = await gql(
      `mutation($id: ID!) { issueUserKey(userId: $id, input: { name: "pos" }) { key { id name prefix scopes } userKey } }`,
      { key: developer.key, variables: { id: made.body.data?.bootstrapUser.user.id } },
    );
    expect(key.body.data).toEqual({
      issueUserKey: {
        key: {
          id: expect.stringMatching(/^key_/),
          name: "pos",
          prefix: expect.stringMatching(/^mk_user_/),
          scopes: ["catalog:read", "catalog:write", "me:verify", "me:resendVerification"],
        },
        userKey: expect.stringMatching(/^mk_user_/),
      },
    });
    const stranger = await createDeveloper();
    const notYours = await gql(`mutation($id: ID!) { issueUserKey(userId: $id) { userKey } }`, {
      key: stranger.key,
      variables: { id: made.body.data?.bootstrapUser.user.id },
    });
    expect(notYours.body.errors?.[0]?.extensions).toMatchObject({ code: "user_not_found", param: "userId" });
  });
});

describe("errors and failed writes", () => {
  it("a validation error carries the catalogue's code and the JSON path in param, localized by Accept-Language", async () => {
    const merchant = await createMerchant();
    const id = (
      await call<{ storefront: { id: string } }>("POST", "/v1/storefronts", {
        key: merchant.userKey,
        body: { name: "X", currency: "MXN" },
      })
    ).body.storefront.id;
    const ranges = [
      { fromKm: 0, toKm: 5, price: 1 },
      { fromKm: 3, toKm: 8, price: 2 },
    ];
    const viaVariables = await gql(
      `mutation($id: ID!, $input: UpdateStorefrontInput!) { updateStorefront(id: $id, input: $input) { id } }`,
      {
        key: merchant.userKey,
        variables: { id, input: { delivery: { enabled: true, type: "distance", ranges } } },
        headers: { "accept-language": "pt-BR,pt;q=0.9" },
      },
    );
    expect(viaVariables.status).toBe(200);
    expect(viaVariables.body.data).toEqual({ updateStorefront: null });
    expect(viaVariables.body.errors?.[0]).toMatchObject({
      path: ["updateStorefront"],
      extensions: {
        code: "invalid_request",
        type: "invalid_request",
        param: "delivery.ranges[1].fromKm",
        recoverable: false,
        retryAfterMs: null,
        upgrade: null,
        requiredScopes: null,
        heldScopes: null,
      },
    });
    expect(viaVariables.body.errors?.[0]?.message).toMatch(/^A solicitação é inválida\./);
    expect(viaVariables.body.errors?.[0]?.extensions.requestId).toBe(
      viaVariables.headers.get("x-request-id"),
    );
    const inline = await gql(
      `mutation($id: ID!) { updateStorefront(id: $id, input: { delivery: { enabled: true, ranges: [{ fromKm: 0, toKm: 5, price: 1 }, { fromKm: 3, toKm: 8, price: 2 }] } }) { id } }`,
      { key: merchant.userKey, variables: { id } },
    );
    expect(inline.body.errors?.[0]?.extensions).toMatchObject({ param: "delivery.ranges[1].fromKm" });
    // A variable GraphQL itself refuses (wrong type, unknown field) names the same path; the operation never ran.
    const wrongType = await gql(
      `mutation($s: ID!, $input: ProductManifest!) { createProduct(storefrontId: $s, input: $input) { id } }`,
      { key: merchant.userKey, variables: { s: id, input: { title: "T", price: "cheap" } } },
    );
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors?.[0]?.extensions).toMatchObject({ code: "invalid_request", param: "price" });
    const unknownField = await gql(
      `mutation($id: ID!, $input: UpdateStorefrontInput!) { updateStorefront(id: $id, input: $input) { id } }`,
      { key: merchant.userKey, variables: { id, input: { delivery: { enabled: true, colour: "red" } } } },
    );
    expect(unknownField.body.errors?.[0]?.extensions).toMatchObject({
      code: "invalid_request",
      param: "delivery.colour",
    });
  });

  it("a mutation that fails writes nothing: whatsapp or products in an update, a bad product in a manifest or a batch", async () => {
    const merchant = await createMerchant({ plan: "PRO" });
    const id = (
      await call<{ storefront: { id: string } }>("POST", "/v1/storefronts", {
        key: merchant.userKey,
        body: { name: "Antes", currency: "MXN" },
      })
    ).body.storefront.id;
    const before = await storedStorefront(id);
    for (const [input, param] of [
      [{ name: "Después", whatsapp: null }, "whatsapp"],
      [{ name: "Después", products: [{ title: "X", price: 1 }] }, "products"],
      [{ name: "Después", currency: "XXX" }, "currency"],
    ] as const) {
      const res = await gql(
        `mutation($id: ID!, $input: UpdateStorefrontInput!) { updateStorefront(id: $id, input: $input) { name } }`,
        { key: merchant.userKey, variables: { id, input } },
      );
      expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: "invalid_request", param });
    }
    expect(await storedStorefront(id)).toEqual(before);
    const manifest = await gql(
      `mutation { createStorefront(input: { name: "Nueva", currency: "MXN", products: [{ title: "Ok", price: 1 }, { title: "Mal", price: 5, salePrice: 9 }] }) { storefront { id } } }`,
      { key: merchant.userKey },
    );
    expect(manifest.body.errors?.[0]?.extensions).toMatchObject({
      code: "invalid_request",
      param: "products[1].salePrice",
    });
    const batch = await gql(
      `mutation($s: ID!) { createProducts(storefrontId: $s, inputs: [{ title: "Ok", price: 1 }, { title: "", price: 1 }]) { products { id } } }`,
      { key: merchant.userKey, variables: { s: id } },
    );
    expect(batch.body.errors?.[0]?.extensions).toMatchObject({
      code: "invalid_request",
      param: "inputs[1].title",
    });
    const list = await call<{ data: unknown[] }>("GET", "/v1/storefronts", { key: merchant.userKey });
    expect(list.body.data).toHaveLength(1);
    const db = await dbReady();
    expect(await db.select().from(products).where(eq(products.accountId, merchant.userId))).toEqual([]);
  });
});
