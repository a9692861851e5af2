import type { z } from "zod";
import type { ServiceContext } from "@/server/context";
import type { IdempotencyRecord } from "@/server/db/idempotency-record";
import type { ErrorCode } from "@/server/errors";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE" | "PUT";

/**
 * What a handler answers: status and JSON body (and extra headers, e.g. Location). `stream` replaces the JSON body
 * with a streamed one (the listen sessions' Server-Sent Events, docs/api.md, "Listen sessions"); only a GET that
 * is not idempotent may stream.
 */
export type Reply = {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  stream?: ReadableStream<Uint8Array>;
};

/** An operation's answer, known before its one-statement write runs (see `oneStatement`). */
export type OneStatementWrite = { reply: Reply; run: (record: IdempotencyRecord) => Promise<void> };

export type HandlerInput<B, Q, P> = {
  body: B;
  query: Q;
  params: P;
  headers: Headers;
  /** The raw body of a route with `rawBody` (file uploads); empty otherwise. */
  raw?: Buffer;
};

/**
 * One /v1 operation: its path (OpenAPI style, `/v1/storefronts/{storefrontId}`), who may call it, the zod
 * schemas that validate its input (and document it in /v1/openapi.json), and the handler that calls ONE
 * service function.
 */
export type RouteDefinition<B = unknown, Q = unknown, P = unknown> = {
  operationId: string;
  method: HttpMethod;
  path: string;
  summary: string;
  tags: string[];
  /**
   * `key`: an API key is needed, and the operation of this name in server/wiring/operations.ts says what the key must
   * hold (`authorize`); `none`: no key needed and not rate limited (openapi.json).
   */
  auth: "key" | "none";
  body?: z.ZodType<B>;
  /**
   * The body is bytes, not JSON (file uploads: docs/api.md, "Files"): read up to `maxBytes` (413 while it
   * arrives) and handed to the handler as `raw`; `contentTypes` documents what it takes in /v1/openapi.json.
   */
  rawBody?: { maxBytes: number; contentTypes: string[] };
  query?: z.ZodType<Q>;
  params?: z.ZodType<P>;
  /** Success responses by status, for the OpenAPI document. */
  responses: Record<number, { description: string; schema: z.ZodType; contentType?: string }>;
  /**
   * The operation's own error codes, beyond what its pipeline stages answer (authentication, body, path ids,
   * idempotency: server/http/openapi.ts, `errorCodesOf`). /v1/openapi.json declares the statuses of both.
   */
  errors?: ErrorCode[];
  /** Honour Idempotency-Key (default: every POST, PATCH and DELETE). */
  idempotent?: boolean;
  /**
   * For an operation whose whole write is ONE statement and whose answer is known before it runs (product
   * create): with an Idempotency-Key the pipeline calls this instead of `handler`, and `run` stores the
   * response in the write's own statement. Atomic without a transaction, in one round trip; a fresh key is
   * even claimed by that statement (pipeline.ts, `runOneStatementClaimingKey`). `handler` must answer what
   * `reply` says.
   */
  oneStatement?: (ctx: ServiceContext, input: HandlerInput<B, Q, P>) => OneStatementWrite;
  handler: (ctx: ServiceContext, input: HandlerInput<B, Q, P>) => Promise<Reply>;
};

/** Whether Idempotency-Key is honoured: every POST, PATCH and DELETE unless the route says otherwise. */
export function isIdempotentRoute(route: { idempotent?: boolean; method: HttpMethod }): boolean {
  return route.idempotent ?? route.method !== "GET";
}

/** Keeps the input types of one route tied to its schemas. */
export function defineRoute<B = undefined, Q = undefined, P = undefined>(
  route: RouteDefinition<B, Q, P>,
): RouteDefinition<B, Q, P> {
  return route;
}

// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list of routes, each checked by defineRoute.
export type AnyRoute = RouteDefinition<any, any, any>;
