import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { ErrorEnvelope } from "@/server/errors";
import { gql } from "@/server/graphql/testing";
import { connectClient } from "@/server/mcp/testing";
import { call } from "@/server/testing/api";
import { emitEvent, sampleEventData } from "@/server/webhooks/events";
import type { EventType } from "@/server/webhooks/schema";
import { createTestEndpoint, setTestEnv } from "@/server/webhooks/testing";
import type { EventDto, EventList } from "./schema";

// docs/api.md, "Events": GET /v1/events and GET /v1/events/{eventId} through the /v1 pipeline, and the same list
// through GraphQL (`events`) and MCP (`marea.list_events`): one service function, one authorization.
setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1" });

let developer: Awaited<ReturnType<typeof createDeveloper>>;
let user: Awaited<ReturnType<typeof bootstrapUser>>;
let endpointId: string;
const emitted: Array<{ type: EventType; eventId: string; eventRowId: string }> = [];
let developerClient: Client;

async function emit(type: EventType, accountId: string) {
  const now = new Date();
  const data = sampleEventData(type, { developerKeyId: developer.keyId, now });
  const db = await dbReady();
  const event = await inTransaction(db, (tx) => emitEvent(tx, { type, data: data as never, accountId }, now));
  emitted.push({ type, ...event });
}

beforeAll(async () => {
  developer = await createDeveloper();
  user = await bootstrapUser(developer.key);
  endpointId = (await createTestEndpoint(developer.key, { url: "http://127.0.0.1:9/hook" })).endpointId;
  await emit("user.verified", user.userId);
  await emit("order.created", user.userId);
  await emit("order.status_updated", user.userId);
  await emit("order.paid", user.userId);
  developerClient = await connectClient(developer.key);
});

afterAll(async () => {
  await developerClient?.close();
});

const newestFirst = () => [...emitted].reverse().map((e) => e.eventId);

async function events(query: string, key = developer.key) {
  return call<EventList>("GET", `/v1/events${query}`, { key });
}

function errorOf(res: { body: unknown }) {
  return ErrorEnvelope.parse(res.body).error;
}

describe("GET /v1/events", () => {
  it("200 {data, nextCursor}: the developer's events newest first, each {id, eventId, type, createdAt, payload}", async () => {
    const res = await events("");
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((e) => e.eventId)).toEqual(newestFirst());
    expect(res.body.nextCursor).toBeNull();
    const [newest] = res.body.data;
    expect(newest?.id).toMatch(/^evt_[0-9a-z]{26}$/);
    expect(JSON.parse(newest?.payload ?? "{}")).toMatchObject({
      type: "order.paid",
      eventId: newest?.eventId,
    });
  });

  it("`type` repeats: every value given is a filter (and one alone works)", async () => {
    const both = await events("?type=order.created&type=order.paid");
    expect(both.status, both.text).toBe(200);
    expect(both.body.data.map((e) => e.type)).toEqual(["order.paid", "order.created"]);
    const one = await events("?type=user.verified");
    expect(one.body.data.map((e) => e.type)).toEqual(["user.verified"]);
  });

  it("pages with limit and cursor; the cursor of one page continues the next", async () => {
    const first = await events("?limit=3");
    expect(first.body.data).toHaveLength(3);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await events(`?limit=3&cursor=${first.body.nextCursor}`);
    expect([...first.body.data, ...second.body.data].map((e) => e.eventId)).toEqual(newestFirst());
    expect(second.body.nextCursor).toBeNull();
  });

  it("created[gte] and created[lt] filter; undeliveredTo lists the endpoint's pending deliveries", async () => {
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await events(`?created[gte]=${future}`)).body.data).toEqual([]);
    expect((await events(`?created%5Blt%5D=${future}`)).body.data).toHaveLength(emitted.length);
    const undelivered = await events(`?undeliveredTo=${endpointId}`);
    expect(undelivered.body.data.map((e) => e.eventId)).toEqual(newestFirst());
  });

  it("400 invalid_request with param: an unknown parameter by name, a bad type value, a bad time, limit over 100", async () => {
    for (const [query, param] of [
      ["?types=order.created", "types"],
      ["?type=order.created,order.paid", "type[0]"],
      ["?type=order.created&type=nope", "type[1]"],
      ["?created[gte]=yesterday", "created[gte]"],
      ["?limit=101", "limit"],
    ] as const) {
      const res = await events(query);
      expect(res.status, query).toBe(400);
      expect(errorOf(res)).toMatchObject({ code: "invalid_request", param });
    }
  });

  it("404 webhook_endpoint_not_found for another developer's endpoint in undeliveredTo", async () => {
    const other = await createDeveloper();
    const theirs = await createTestEndpoint(other.key, { url: "http://127.0.0.1:9/theirs" });
    const res = await events(`?undeliveredTo=${theirs.endpointId}`);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toMatchObject({ code: "webhook_endpoint_not_found", param: "undeliveredTo" });
  });

  it("a user key reads the order events of its own storefronts; no key is 401; it counts against the key's rate limit", async () => {
    const mine = await events("", user.userKey);
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((e) => e.type)).toEqual([
      "order.paid",
      "order.status_updated",
      "order.created",
    ]);
    const again = await events("", user.userKey);
    expect(Number(again.headers.get("x-ratelimit-remaining"))).toBe(
      Number(mine.headers.get("x-ratelimit-remaining")) - 1,
    );
    const anonymous = await call("GET", "/v1/events");
    expect(anonymous.status).toBe(401);
  });
});

describe("GET /v1/events/{eventId}", () => {
  it("200 by evt_ id and by the envelope's eventId; another account's is 404 event_not_found", async () => {
    const target = emitted[1] as (typeof emitted)[number];
    const byId = await call<EventDto>("GET", `/v1/events/${target.eventRowId}`, { key: developer.key });
    expect(byId.status, byId.text).toBe(200);
    expect(byId.body).toMatchObject({
      id: target.eventRowId,
      eventId: target.eventId,
      type: "order.created",
    });
    const byEventId = await call<EventDto>("GET", `/v1/events/${target.eventId}`, { key: developer.key });
    expect(byEventId.body).toEqual(byId.body);
    const other = await createDeveloper();
    const refused = await call("GET", `/v1/events/${target.eventRowId}`, { key: other.key });
    expect(refused.status).toBe(404);
    expect(errorOf(refused)).toMatchObject({ code: "event_not_found", param: "eventId" });
  });
});

describe("the OpenAPI document", () => {
  it("declares both operations with their scopes, the repeatable type and the creation bounds", async () => {
    const doc = (await call("GET", "/v1/openapi.json")).body as {
      paths: Record<
        string,
        Record<string, { security: unknown; parameters: Array<Record<string, unknown>> }>
      >;
    };
    const list = doc.paths["/v1/events"]?.get;
    expect(list?.security).toEqual([
      { bearerAuth: ["developer:read", "developer:webhooks", "catalog:read"] },
      { apiKeyHeader: ["developer:read", "developer:webhooks", "catalog:read"] },
    ]);
    expect(list?.parameters.map((p) => p.name)).toEqual([
      "limit",
      "cursor",
      "type",
      "created[gte]",
      "created[lt]",
      "undeliveredTo",
    ]);
    expect(list?.parameters.find((p) => p.name === "type")?.schema).toMatchObject({ type: "array" });
    expect(doc.paths["/v1/events/{eventId}"]?.get).toBeDefined();
  });
});

describe("the same list through GraphQL and MCP", () => {
  it("GraphQL `events` answers REST's items, with the same filters; `node` reads an event by its evt_ id", async () => {
    const rest = (await events(`?type=order.created&type=order.paid&undeliveredTo=${endpointId}`)).body.data;
    const res = await gql<{
      events: { edges: Array<{ node: EventDto }>; pageInfo: { hasNextPage: boolean } };
      node: { id: string; eventId: string } | null;
    }>(
      `query ($ep: ID, $id: ID!) {
        events(types: ["order.created", "order.paid"], undeliveredTo: $ep) {
          edges { node { id eventId type createdAt payload } } pageInfo { hasNextPage }
        }
        node(id: $id) { id ... on Event { eventId } }
      }`,
      { key: developer.key, variables: { ep: endpointId, id: emitted[0]?.eventRowId } },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.events.edges.map((e) => e.node)).toEqual(rest);
    expect(res.body.data?.node).toEqual({ id: emitted[0]?.eventRowId, eventId: emitted[0]?.eventId });
  });

  it("GraphQL refuses what REST refuses: a bad type is invalid_request, a key without the scope insufficient_scope", async () => {
    const bad = await gql(`{ events(types: ["order.nope"]) { edges { node { id } } } }`, {
      key: developer.key,
    });
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: "invalid_request" });
    const { apiKeys } = await import("@/server/gate/tables");
    const { eq } = await import("drizzle-orm");
    const limited = await createDeveloper();
    await (await dbReady())
      .update(apiKeys)
      .set({ scopes: ["developer:bootstrap"] })
      .where(eq(apiKeys.id, limited.keyId));
    const refused = await gql(`{ events { edges { node { id } } } }`, { key: limited.key });
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: "insufficient_scope" });
  });

  it("MCP `marea.list_events` (read-only) answers REST's page", async () => {
    const { tools } = await developerClient.listTools();
    const listing = tools.find((t) => t.name === "marea.list_events");
    expect(listing?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    const result = (await developerClient.callTool({
      name: "marea.list_events",
      arguments: { limit: 2, types: ["order.created", "order.status_updated", "order.paid"] },
    })) as { isError?: boolean; structuredContent?: EventList };
    expect(result.isError).toBeFalsy();
    const rest = await events("?limit=2&type=order.created&type=order.status_updated&type=order.paid");
    expect(result.structuredContent).toEqual(rest.body);
  });
});
