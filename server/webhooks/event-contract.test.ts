import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { createStorefrontWithProduct, latestVerificationCode } from "@/server/orders/testing";
import { call } from "@/server/testing/api";
import { EVENT_ENVELOPE_SCHEMAS } from "./event-schemas";
import { exampleEnvelope } from "./events";
import { EVENT_TYPES, type EventType } from "./schema";
import {
  createTestEndpoint,
  deliveryContract,
  type ReceivedRequest,
  type Receiver,
  setTestEnv,
  startReceiver,
} from "./testing";
import { type DeliveryWorker, startDeliveryWorker } from "./worker";

setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1", WEBHOOK_RETRY_SCHEDULE: "0s,1s,2s" });

// The event contract (docs/webhooks.md, "Events"; "Event types for tools"): /v1/openapi.json's `webhooks` section and
// GET /v1/event_types describe every delivery exactly, checked against real deliveries to a real receiver.

type OpenApi = {
  webhooks: Record<
    string,
    { post: { requestBody: { content: { "application/json": { schema: { $ref: string } } } } } }
  >;
  components: { schemas: Record<string, Record<string, unknown>> };
  paths: Record<string, unknown>;
};
type EventTypeList = {
  data: Array<{ type: string; description: string; source: string; schema: Record<string, unknown> }>;
};

let worker: DeliveryWorker;
let receiver: Receiver;
let developer: { key: string; keyId: string };
let endpointId: string;

beforeAll(async () => {
  worker = startDeliveryWorker({ pollMs: 100 });
  developer = await createDeveloper();
  receiver = await startReceiver();
  endpointId = (
    await createTestEndpoint(developer.key, { url: receiver.url, subscribedEvents: [...EVENT_TYPES] })
  ).endpointId;
});

afterAll(async () => {
  await worker?.stop();
  // close() fails the file if any delivery broke the contract.
  await receiver?.close();
});

function bodyOf(request: ReceivedRequest): { type: string; data: Record<string, unknown>; __test?: boolean } {
  return JSON.parse(request.rawBody) as { type: string; data: Record<string, unknown>; __test?: boolean };
}

describe("real deliveries validate against /v1/openapi.json's webhooks", () => {
  it("every event type, fired by real changes and by test fires, matches its envelope schema and headers", async () => {
    // user.verified: a bootstrapped user verifies with the mailed code.
    const user = await bootstrapUser(developer.key);
    const code = await latestVerificationCode(user.email);
    expect((await call("POST", "/v1/me/verify", { key: user.userKey, body: { code } })).status).toBe(200);
    // order.created, order.status_updated, order.paid: a real order, moved and paid.
    const { storefrontId, productId } = await createStorefrontWithProduct(user.userKey);
    const placed = await call<{ order: { id: string } }>("POST", `/v1/storefronts/${storefrontId}/orders`, {
      key: user.userKey,
      body: {
        items: [{ productId, amount: 2 }],
        customer: { name: "Ana", phone: "+5215512345678" },
        paymentMethod: { name: "Efectivo" },
      },
    });
    expect(placed.status).toBe(201);
    const orderId = placed.body.order.id;
    expect(
      (await call("PATCH", `/v1/orders/${orderId}`, { key: user.userKey, body: { orderStatus: "accepted" } }))
        .status,
    ).toBe(200);
    expect(
      (
        await call("POST", `/v1/orders/${orderId}/pay`, {
          key: user.userKey,
          body: { paymentMethod: { name: "Tarjeta" } },
        })
      ).status,
    ).toBe(200);
    // user.cancelled: another bootstrapped user cancels.
    const leaving = await bootstrapUser(developer.key);
    expect((await call("DELETE", "/v1/me", { key: leaving.userKey })).status).toBe(200);
    // A test fire of every type (`__test: true`).
    for (const type of EVENT_TYPES) {
      const fired = await call("POST", `/v1/webhook_endpoints/${endpointId}/test`, {
        key: developer.key,
        body: { type },
      });
      expect(fired.status).toBe(202);
    }

    await receiver.waitFor((requests) => {
      const real = new Set(requests.filter((r) => !bodyOf(r).__test).map((r) => bodyOf(r).type));
      const tests = new Set(requests.filter((r) => bodyOf(r).__test).map((r) => bodyOf(r).type));
      return EVENT_TYPES.every((type) => real.has(type) && tests.has(type));
    }, 20_000);

    const check = await deliveryContract();
    for (const request of receiver.requests) expect(check(request), request.rawBody).toEqual([]);
    expect(receiver.contractViolations).toEqual([]);
    const paid = receiver.requests.map(bodyOf).find((b) => b.type === "order.paid" && !b.__test);
    expect(paid?.data).toMatchObject({ orderId, paymentMethod: { name: "Tarjeta" }, paymentStatus: "paid" });
    expect(paid?.data.paymentMethod).toEqual({ id: expect.stringMatching(/^pay_/), name: "Tarjeta" });
  });

  it("the check fails a delivery that strays from the contract (a missing field, an extra one, a wrong header)", async () => {
    const check = await deliveryContract();
    const good = receiver.requests.find((r) => bodyOf(r).type === "order.paid");
    expect(good).toBeDefined();
    if (!good) return;
    expect(check(good)).toEqual([]);
    const body = bodyOf(good);
    const { paidAt: _dropped, ...withoutPaidAt } = body.data;
    const variants: ReceivedRequest[] = [
      { ...good, rawBody: JSON.stringify({ ...body, data: withoutPaidAt }) },
      { ...good, rawBody: JSON.stringify({ ...body, data: { ...body.data, internalNote: "x" } }) },
      { ...good, rawBody: JSON.stringify({ ...body, type: "order.refunded" }) },
      { ...good, headers: { ...good.headers, "x-service-source": "developer" } },
      { ...good, headers: { ...good.headers, "x-service-signature": "t=1,v1=zz" } },
    ];
    for (const variant of variants) expect(check(variant).length, variant.rawBody).toBeGreaterThan(0);
  });
});

describe("/v1/openapi.json: the webhooks section", () => {
  it("declares the five event types, each a POST whose body is its envelope component", async () => {
    const res = await call<OpenApi>("GET", "/v1/openapi.json");
    expect(Object.keys(res.body.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const ref = res.body.webhooks[type]?.post.requestBody.content["application/json"].schema.$ref ?? "";
      const component = res.body.components.schemas[ref.replace("#/components/schemas/", "")];
      expect(component?.properties).toMatchObject({ type: { const: type } });
      expect(component?.required).toEqual(["type", "eventId", "timestamp", "apiVersion", "data"]);
      expect(component?.additionalProperties).toBe(false);
    }
    expect(res.body.paths).toHaveProperty("/v1/event_types");
  });

  it("an example envelope of each type (the /docs/events examples) validates against its schema", () => {
    for (const type of EVENT_TYPES) {
      const envelope = exampleEnvelope(type, new Date("2026-05-12T10:00:00Z"));
      expect(EVENT_ENVELOPE_SCHEMAS[type].safeParse(envelope).success).toBe(true);
      expect(envelope).not.toHaveProperty("__test");
    }
  });
});

describe("GET /v1/event_types", () => {
  it("is public like /v1/openapi.json: no key needed, a bad key ignored, no rate-limit headers", async () => {
    const anonymous = await call<EventTypeList>("GET", "/v1/event_types");
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get("x-ratelimit-limit")).toBeNull();
    const withBadKey = await call<EventTypeList>("GET", "/v1/event_types", { key: "mk_dev_not_a_key" });
    expect(withBadKey.status).toBe(200);
    expect(withBadKey.body).toEqual(anonymous.body);
  });

  it("lists {type, description, source, schema} for the five types; each schema is the openapi.json component, standalone", async () => {
    const [list, doc] = await Promise.all([
      call<EventTypeList>("GET", "/v1/event_types"),
      call<OpenApi>("GET", "/v1/openapi.json"),
    ]);
    expect(list.body.data.map((e) => e.type)).toEqual([...EVENT_TYPES]);
    const sources: Record<EventType, string> = {
      "user.verified": "developer",
      "user.cancelled": "developer",
      "order.created": "merchant",
      "order.status_updated": "merchant",
      "order.paid": "merchant",
    };
    const ajv = new Ajv2020({ strict: true });
    addFormats(ajv);
    ajv.addVocabulary(["example"]);
    for (const entry of list.body.data) {
      expect(entry.source).toBe(sources[entry.type as EventType]);
      expect(entry.description.length).toBeGreaterThan(10);
      const { $schema, title, ...schema } = entry.schema;
      expect($schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(doc.body.components.schemas[title as string]).toEqual(schema);
      expect(JSON.stringify(schema)).not.toContain("$ref");
      // Compiles on its own (no reference to the OpenAPI document) and accepts a real example.
      const validate = ajv.compile(entry.schema);
      expect(validate(exampleEnvelope(entry.type as EventType, new Date()))).toBe(true);
      expect(validate({ ...exampleEnvelope(entry.type as EventType, new Date()), data: {} })).toBe(false);
    }
  });
});
