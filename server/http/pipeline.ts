import { createHash } from "node:crypto";
import { z } from "zod";
import { type Actor, actorKey, createServiceContext, type ServiceContext, withDb } from "@/server/context";
import { dbReady } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { type ActionResolver, AppError, isAppError, type Language } from "@/server/errors";
import { authorizeActor } from "@/server/gate/authorize";
import {
  checkInTransaction,
  claimIdempotencyKey,
  completeIdempotencyKey,
  fingerprintOf,
  isIdempotencyKeyTaken,
  recordInTransaction,
  recordRefusal,
  releaseIdempotencyKey,
  type StoredResponse,
  storedResponseFor,
  validateIdempotencyKey,
} from "@/server/gate/idempotency";
import { authenticateAndCount } from "@/server/gate/rate-limit";
import { BODY_LIMITS, parseJsonBody, readBoundedBody, readBoundedBytes } from "@/server/kit/body";
import { toAppError } from "@/server/kit/errors";
import { acceptLanguageOf } from "@/server/kit/language";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/log";
import type { OperationDefinition } from "@/server/operations";
import { parseInput, parsePathParams } from "@/server/validation";
import { errorResponse, jsonResponse } from "./envelope";
import { type AnyRoute, isIdempotentRoute, type Reply } from "./route";

/** Bodies over 1 MiB get 413 before they are parsed (docs/api.md, "Request pipeline"). */
export const MAX_BODY_BYTES = BODY_LIMITS.api;

/** The query of an operation that declares none: any parameter is unknown, and refused by name. */
const NO_QUERY = z.strictObject({});

type RequestState = {
  requestId: string;
  /** The clock of this request (tests inject one: server/testing/api.ts). */
  now: () => Date;
  /** The request's URL, parsed once. */
  url: URL;
  language: Language;
  /** Headers every answer carries once known (rate-limit headers after counting). */
  headers: Record<string, string>;
  /** Where next actions point (default: the /v1 API's routes, installed by createV1Api). */
  resolveAction?: ActionResolver;
};

export function newRequestState(request: Request, now: () => Date = () => new Date()): RequestState {
  return {
    requestId: newId("req"),
    now,
    url: new URL(request.url),
    language: acceptLanguageOf(request),
    headers: {},
  };
}

/**
 * The ONE /v1 pipeline (docs/api.md, "Request pipeline"), in this order: authentication -> rate limiting ->
 * body size -> JSON parse -> zod validation -> scope check (and, for writes, the account's terms of service) ->
 * idempotency -> the service call -> the envelope. Errors at any step become the error envelope (docs/api.md,
 * "Errors"); an unexpected exception is a 500 logged with the request id, a lost database a 503.
 */
export async function runPipeline(
  route: AnyRoute,
  request: Request,
  pathParams: Record<string, string | undefined>,
  state: RequestState,
  operation?: OperationDefinition,
): Promise<Response> {
  try {
    const db = await dbReady();

    let actor: Actor | null = null;
    let usage: ServiceContext["usage"];
    if (route.auth === "key") {
      const rawKey = readApiKey(request.headers);
      if (!rawKey) throw new AppError("missing_authorization");
      const counted = await authenticateAndCount(db, rawKey, state.now());
      actor = counted.actor;
      state.headers = counted.limits.headers;
      if (counted.limits.remainingDay !== undefined) {
        usage = { remainingMinute: counted.limits.remaining, remainingDay: counted.limits.remainingDay };
      }
    }

    const idempotencyKey = request.headers.get("idempotency-key");
    const key = actor ? actorKey(actor) : null;
    const isIdempotent = key !== null && idempotencyKey !== null && isIdempotentRoute(route);
    if (isIdempotent) validateIdempotencyKey(idempotencyKey);

    let raw: Buffer | undefined;
    let rawBody = route.body ? await readBoundedBody(request, MAX_BODY_BYTES) : "";
    if (route.rawBody) {
      raw = await readBoundedBytes(request, route.rawBody.maxBytes);
      // The idempotency fingerprint hashes the body: bytes that are not text are named by their own hash.
      rawBody = createHash("sha256").update(raw).digest("hex");
    }
    let input: Parameters<AnyRoute["handler"]>[1];
    try {
      const body = route.body ? parseJsonBody(rawBody, { empty: {} }) : undefined;
      const query = queryOf(state.url.searchParams, route.query);
      input = {
        params: route.params ? parsePathParams(route.params, pathParams, state.language) : pathParams,
        // A query parameter the operation does not know is refused by name, on every operation.
        query: parseInput(route.query ?? NO_QUERY, query, state.language),
        body: route.body ? parseInput(route.body, body, state.language) : undefined,
        headers: request.headers,
        raw,
      };

      // The operation's own authorization (server/gate/authorize.ts), before idempotency so a refused
      // request stores nothing; the service checks it again, which costs nothing.
      if (actor && operation) authorizeActor(actor, route.operationId, operation);
    } catch (error) {
      // A refused request stores nothing, but a key already used with another request is a conflict whatever
      // this one carries (decisions.md, Idempotency): the stored fingerprint is compared before the refusal.
      if (key && isIdempotent && isAppError(error) && error.status < 500) {
        const fingerprint = requestFingerprint(request, state, rawBody);
        const stored = await storedResponseFor(db, key.keyId, idempotencyKey, fingerprint, state.now());
        if (stored) return storedToResponse(stored, state);
      }
      throw error;
    }

    const ctx = createServiceContext({
      db,
      actor,
      requestId: state.requestId,
      language: state.language,
      usage,
      now: state.now,
    });

    const response =
      key && isIdempotent
        ? await runIdempotent(
            route,
            ctx,
            key.keyId,
            input,
            request,
            rawBody,
            idempotencyKey,
            state,
            operation,
          )
        : replyToResponse(await route.handler(ctx, input), state);
    ctx.runAfterCommit();
    return response;
  } catch (error) {
    return renderFailure(error, state);
  }
}

/** The names of a query schema's array fields, found once per schema. */
const ARRAY_FIELDS = new WeakMap<z.ZodType, ReadonlySet<string>>();

function arrayFieldsOf(schema: z.ZodType): ReadonlySet<string> {
  let names = ARRAY_FIELDS.get(schema);
  if (!names) {
    const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
    names = new Set(Object.keys(shape).filter((name) => isArrayField(shape[name])));
    ARRAY_FIELDS.set(schema, names);
  }
  return names;
}

function isArrayField(field: z.ZodType | undefined): boolean {
  let inner: unknown = field;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault || inner instanceof z.ZodNullable)
    inner = inner.unwrap();
  return inner instanceof z.ZodArray;
}

/**
 * The query as the operation's schema reads it (docs/api.md, "Request pipeline"): a parameter whose field is an
 * array receives every value it was given (`?type=a&type=b`, or one), any other its last value. Unknown names stay
 * in, for the schema to refuse by name.
 */
function queryOf(params: URLSearchParams, schema: z.ZodType | undefined): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = Object.fromEntries(params);
  if (!schema) return query;
  for (const name of arrayFieldsOf(schema)) if (params.has(name)) query[name] = params.getAll(name);
  return query;
}

export function renderFailure(error: unknown, state: RequestState): Response {
  const failure = toAppError(error, { requestId: state.requestId });
  return errorResponse(failure, state.requestId, state.language, state.headers, state.resolveAction);
}

/** The raw key of `Authorization: Bearer <key>` or `X-API-Key: <key>` (the GraphQL door reads it the same way). */
export function readApiKey(headers: Headers): string | null {
  const authorization = headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match?.[1]) return match[1];
  }
  const apiKey = headers.get("x-api-key")?.trim();
  return apiKey ? apiKey : null;
}

function requestFingerprint(request: Request, state: RequestState, rawBody: string): string {
  return fingerprintOf(request.method, `${state.url.pathname}${state.url.search}`, rawBody);
}

function replyToResponse(reply: Reply, state: RequestState): Response {
  if (reply.stream)
    return new Response(reply.stream, {
      status: reply.status,
      headers: { ...reply.headers, ...state.headers, "x-request-id": state.requestId },
    });
  return jsonResponse(reply.status, reply.body, {
    ...reply.headers,
    ...state.headers,
    "x-request-id": state.requestId,
  });
}

/**
 * docs/api.md, "Idempotency". The key is checked and its answer recorded inside the write's own transaction
 * (`checkInTransaction`, `recordInTransaction`), so the write and its record commit together, and a request
 * that fails (a 5xx, a lost connection, a killed process) leaves nothing behind: PostgreSQL drops its lock with
 * the transaction and the retry runs at once. A 4xx is stored after the write rolled back. `oneStatement`
 * operations first try their one statement, which records the answer itself. An operation that commits its own
 * writes (`commitsOwnWrites` in the operations table: verifyEmail keeps a wrong code counted) never runs inside
 * that transaction, whichever route carries it: the key is claimed first, under a lease.
 */
async function runIdempotent(
  route: AnyRoute,
  ctx: ServiceContext,
  keyId: string,
  input: Parameters<AnyRoute["handler"]>[1],
  request: Request,
  rawBody: string,
  idempotencyKey: string,
  state: RequestState,
  operation?: OperationDefinition,
): Promise<Response> {
  const fingerprint = requestFingerprint(request, state, rawBody);
  const key = { keyId, idempotencyKey, fingerprint };
  if (route.oneStatement) {
    const answered = await runOneStatementClaimingKey(route.oneStatement, ctx, input, key, state);
    if (answered) return answered;
  }
  if (operation?.commitsOwnWrites) return runClaimed(route, ctx, input, key, state);

  try {
    const outcome = await inTransaction(ctx.db, async (tx) => {
      const check = await checkInTransaction(tx, keyId, idempotencyKey, fingerprint, state.now());
      if (check.kind === "replay") return { kind: "replay" as const, stored: check.response };
      if (route.oneStatement) {
        const write = route.oneStatement(withDb(ctx, tx), input);
        const response = toStored(write.reply, state);
        await write.run({ keyId, idempotencyKey, response, claim: { fingerprint, now: state.now() } });
        return { kind: "done" as const, stored: response, recorded: Promise.resolve() };
      }
      const reply = await route.handler(withDb(ctx, tx), input);
      const response = toStored(reply, state);
      // The record is the transaction's last statement: not awaited here, so it travels with COMMIT in one
      // socket write (server/db/round-trips.ts). A failed record makes COMMIT roll back, which
      // PostgreSQL does not report as an error: awaiting `recorded` below is what surfaces it.
      const record = recordInTransaction(tx, keyId, idempotencyKey, fingerprint, response, state.now());
      record.catch(() => undefined);
      return { kind: "done" as const, stored: response, recorded: record };
    });
    if (outcome.kind === "replay") return storedToResponse(outcome.stored, state);
    await outcome.recorded;
    return storedToResponse(outcome.stored, state, false);
  } catch (error) {
    if (isAppError(error) && error.status < 500 && !isIdempotencyConflict(error))
      return storeRefusal(ctx, key, error, state);
    throw error;
  }
}

/** 409s about the key itself are answered, never stored under it. */
function isIdempotencyConflict(error: AppError): boolean {
  return error.code === "idempotency_request_in_progress" || error.code === "idempotency_key_reused";
}

type IdempotencyKeyOfRequest = { keyId: string; idempotencyKey: string; fingerprint: string };

/** An operation outside a transaction: the key is claimed first (a lease), then completed or released. */
async function runClaimed(
  route: AnyRoute,
  ctx: ServiceContext,
  input: Parameters<AnyRoute["handler"]>[1],
  key: IdempotencyKeyOfRequest,
  state: RequestState,
): Promise<Response> {
  const claim = await claimIdempotencyKey(
    ctx.db,
    key.keyId,
    key.idempotencyKey,
    key.fingerprint,
    state.now(),
  );
  if (claim.kind === "replay") return storedToResponse(claim.response, state);
  try {
    const response = toStored(await route.handler(ctx, input), state);
    await completeIdempotencyKey(ctx.db, key.keyId, key.idempotencyKey, response);
    return storedToResponse(response, state, false);
  } catch (error) {
    if (isAppError(error) && error.status < 500) {
      const refusal = await refusalOf(error, state);
      await completeIdempotencyKey(ctx.db, key.keyId, key.idempotencyKey, refusal);
      return storedToResponse(refusal, state, false);
    }
    await releaseIdempotencyKey(ctx.db, key.keyId, key.idempotencyKey).catch((releaseError: unknown) => {
      log("error", "could not release idempotency claim", {
        requestId: state.requestId,
        error: releaseError,
      });
    });
    throw error;
  }
}

/**
 * The fast path for a one-statement operation: no check round trip first. The write's statement inserts the
 * finished record itself, so a fresh key costs nothing extra. Answers null when the key already has a record
 * (a retry, a concurrent twin, an expired record): that statement failed whole and wrote nothing, and the
 * caller goes through the transactional check, which replays, refuses or takes the key over. A 4xx wrote
 * nothing and recorded nothing: the refusal is stored (or a twin's answer replayed).
 */
async function runOneStatementClaimingKey(
  oneStatement: NonNullable<AnyRoute["oneStatement"]>,
  ctx: ServiceContext,
  input: Parameters<AnyRoute["handler"]>[1],
  key: IdempotencyKeyOfRequest,
  state: RequestState,
): Promise<Response | null> {
  const write = oneStatement(ctx, input);
  const response = toStored(write.reply, state);
  try {
    await write.run({
      keyId: key.keyId,
      idempotencyKey: key.idempotencyKey,
      response,
      claim: { fingerprint: key.fingerprint, now: state.now() },
    });
    return storedToResponse(response, state, false);
  } catch (error) {
    if (isIdempotencyKeyTaken(error)) return null;
    if (!isAppError(error) || error.status >= 500) throw error;
    return storeRefusal(ctx, key, error, state);
  }
}

/** A 4xx of the operation itself, stored under the key (so a retry gets the same answer). */
async function storeRefusal(
  ctx: ServiceContext,
  key: IdempotencyKeyOfRequest,
  error: AppError,
  state: RequestState,
): Promise<Response> {
  const refusal = await refusalOf(error, state);
  const recorded = await recordRefusal(
    ctx.db,
    key.keyId,
    key.idempotencyKey,
    key.fingerprint,
    refusal,
    state.now(),
  );
  if (recorded.kind === "replay") return storedToResponse(recorded.response, state);
  return storedToResponse(refusal, state, false);
}

async function refusalOf(error: AppError, state: RequestState): Promise<StoredResponse> {
  const failure = errorResponse(error, state.requestId, state.language);
  return { status: failure.status, body: await failure.text(), headers: Object.fromEntries(failure.headers) };
}

function toStored(reply: Reply, state: RequestState): StoredResponse {
  return {
    status: reply.status,
    body: JSON.stringify(reply.body),
    headers: {
      "content-type": "application/json; charset=utf-8",
      ...reply.headers,
      "x-request-id": state.requestId,
    },
  };
}

/** A replay answers the stored status, body and headers (its original X-Request-Id included) with fresh rate-limit headers. */
function storedToResponse(stored: StoredResponse, state: RequestState, isReplay = true): Response {
  const headers: Record<string, string> = { ...stored.headers, ...state.headers };
  if (isReplay) headers["idempotent-replayed"] = "true";
  else headers["x-request-id"] = state.requestId;
  return new Response(stored.body, { status: stored.status, headers });
}
