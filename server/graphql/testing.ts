import type { PGlite } from "@electric-sql/pglite";
import type { Logger } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import type { Sql } from "postgres";
import { type Db, dbReady } from "@/server/db/client";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { yoga as appYoga, schema } from "@/server/wiring/graphql";
import { restActionFor } from "@/server/wiring/rest";
import { createGraphQLYoga, type GraphQLYogaOptions } from "./yoga";

/** Test helpers for the GraphQL door: requests through `yoga.fetch`, and a database that counts statements. */

export type GraphQLAnswer<T = Record<string, unknown>> = {
  status: number;
  headers: Headers;
  body: {
    data?: T | null;
    errors?: Array<{ message: string; path?: string[]; extensions: Record<string, unknown> }>;
    error?: Record<string, unknown>;
  };
  text: string;
};

export type GraphQLCall = {
  key?: string;
  keyHeader?: "authorization" | "x-api-key";
  variables?: Record<string, unknown>;
  operationName?: string;
  headers?: Record<string, string>;
  /** A raw body instead of `{query, variables}`. */
  rawBody?: string;
  method?: "GET" | "POST";
  yoga?: ReturnType<typeof createGraphQLYoga>;
};

/** One GraphQL request through Yoga's fetch handler, as the Next route sends it (GraphQL over HTTP media type). */
export async function gql<T = Record<string, unknown>>(
  query: string,
  call: GraphQLCall = {},
): Promise<GraphQLAnswer<T>> {
  const headers: Record<string, string> = {
    accept: "application/graphql-response+json",
    ...call.headers,
  };
  if (call.key) {
    if (call.keyHeader === "x-api-key") headers["x-api-key"] = call.key;
    else headers.authorization = `Bearer ${call.key}`;
  }
  let url = "http://127.0.0.1/api/graphql";
  let body: string | undefined;
  if (call.method === "GET") {
    const search = new URLSearchParams({ query });
    if (call.variables) search.set("variables", JSON.stringify(call.variables));
    url = `${url}?${search}`;
  } else {
    headers["content-type"] ??= "application/json";
    body =
      call.rawBody ?? JSON.stringify({ query, variables: call.variables, operationName: call.operationName });
  }
  const yoga = call.yoga ?? appYoga;
  const response = await yoga.fetch(new Request(url, { method: call.method ?? "POST", headers, body }));
  const text = await response.text();
  let parsed: GraphQLAnswer<T>["body"] = {};
  try {
    parsed = text ? (JSON.parse(text) as GraphQLAnswer<T>["body"]) : {};
  } catch {
    parsed = {};
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/**
 * The test database seen through a second drizzle client that counts every statement it sends (drizzle's logger
 * sees each query, on postgres.js and PGlite alike). Production code gets no hook: the door takes this `Db`.
 */
export async function countingDb(): Promise<{ db: Db; statements: string[] }> {
  const base = (await dbReady()) as unknown as { $client: unknown };
  const statements: string[] = [];
  const logger: Logger = { logQuery: (query) => statements.push(query) };
  const db =
    testDatabaseKind() === "pglite"
      ? drizzlePglite(base.$client as PGlite, { logger })
      : drizzlePostgres(base.$client as Sql, { logger });
  return { db: db as unknown as Db, statements };
}

/** A GraphQL door on another database or with other options (see `GraphQLYogaOptions`). */
export function testYoga(options: GraphQLYogaOptions = {}) {
  return createGraphQLYoga(schema, { resolveAction: restActionFor, ...options });
}

/** Every field of each /v1 object, as GraphQL names them (`links` is `_links`). */
const FRAGMENT_TEXT = {
  StorefrontFields: /* GraphQL */ `
    fragment StorefrontFields on Storefront {
      id name language currency businessType
      branding { logoUrl backgroundUrl theme { primary secondary tertiary } font }
      schedule {
        monday { ...Day } tuesday { ...Day } wednesday { ...Day } thursday { ...Day }
        friday { ...Day } saturday { ...Day } sunday { ...Day }
      }
      delivery { enabled type fixedPrice ranges { fromKm toKm price } }
      pickup dineIn whatsapp biography { title description } categories { name position }
      slug hidden published links { editUrl publicUrl } createdAt updatedAt
    }
    fragment Day on ScheduleDay { open close closed }`,
  ProductFields: /* GraphQL */ `
    fragment ProductFields on Product {
      id title price description salePrice category subcategory imageUrl thumbnailUrl sku slug position
      cartProduct hide stock tags
      extraProductsCategory {
        title obligatory multipleOption maxOptions minOptions extraProducts { title price available stock }
      }
      imageProcessingPending createdAt updatedAt
    }`,
  OrderFields: /* GraphQL */ `
    fragment OrderFields on Order {
      id publicOrderId storefrontId userId orderStatus customStatus { id label }
      items { productId title amount price options { group option groupTitle title price } } customer { name phone } paymentMethod { id name } paymentStatus
      fulfillment { type distanceKm } subtotalPrice deliveryPrice totalPrice currency createdAt updatedAt paidAt
    }`,
  EndpointFields: /* GraphQL */ `
    fragment EndpointFields on WebhookEndpoint {
      endpointId scope url description enabled subscribedEvents signingSecretVersion createdAt updatedAt
      lastDeliveryAt lastDeliveryStatus consecutiveFailures
    }`,
};

/** `query` followed by the fragments it spreads (GraphQL refuses a document with an unused fragment). */
export function withFragments(query: string): string {
  const used = Object.entries(FRAGMENT_TEXT).filter(([name]) => query.includes(`...${name}`));
  return `${query}\n${used.map(([, text]) => text).join("\n")}`;
}

/** A GraphQL storefront in /v1's shape (`links` back to `_links`), to compare the two doors' answers. */
export function asRestStorefront(storefront: Record<string, unknown>): Record<string, unknown> {
  const { links, ...rest } = storefront;
  return { ...rest, _links: links };
}
