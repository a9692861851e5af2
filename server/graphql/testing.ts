import type { PGlite } from "@electric-sql/pglite";
import type { Logger } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import type { Sql } from "postgres";
import { type Db, dbReady } from "@/server/db/client";
import * as schema from "@/server/db/schema";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { yoga as appYoga, createGraphQLYoga, type GraphQLYogaOptions } from "./yoga";

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
      ? drizzlePglite(base.$client as PGlite, { schema, logger })
      : drizzlePostgres(base.$client as Sql, { schema, logger });
  return { db: db as unknown as Db, statements };
}

/** A GraphQL door on another database or with other options (see `GraphQLYogaOptions`). */
export function testYoga(options: GraphQLYogaOptions) {
  return createGraphQLYoga(options);
}
