import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import { type ExecutionArgs, type ExecutionResult, type GraphQLSchema, getOperationAST } from "graphql";
import { createYoga, type Plugin, type YogaServerInstance } from "graphql-yoga";
import { type Actor, createServiceContext, type ServiceContext } from "@/server/context";
import { type Db, dbReady } from "@/server/db/client";
import { env } from "@/server/env";
import { type ActionResolver, AppError, isAppError, type Language } from "@/server/errors";
import { authenticateAndCount } from "@/server/gate/rate-limit";
import { readApiKey, renderFailure } from "@/server/http/pipeline";
import { readBoundedBody } from "@/server/kit/body";
import { acceptLanguageOf } from "@/server/kit/language";
import { newId } from "@/server/lib/ids";
import { countSessionRequest } from "@/server/limits/service";
import { createGraphQLContext, type GraphQLContext } from "./context";
import { graphQLErrorOf, markLimitRejection, renderErrors } from "./errors";
import {
  claimForMutation,
  executeIdempotently,
  type FinalAnswer,
  GRAPHQL_PATH,
  graphQLFingerprint,
  idempotencyScopeOf,
  rootMutationOf,
} from "./idempotency";
import { fragmentsOf, GRAPHQL_LIMITS, operationCost, rootFieldCount } from "./limits";
import { actorFromSessionCookie, assertSessionMutationAllowed, type SessionResolver } from "./session";

/**
 * The GraphQL door (docs/graphql.md): graphql-yoga over the Pothos schema, served by app/api/graphql/route.ts at
 * `POST /api/graphql` (and `GET` for queries). Around Yoga's own handling, in request order:
 *
 * 1. authentication, as /v1 (`onRequest`): an API key is looked up and counted in its rate-limit bucket
 *    (`authenticateAndCount`), or the dashboard session cookie names the actor, counted in the account's session
 *    bucket (docs/security.md, "Limits"); none is a 401 in /v1's envelope, an invalid key 401, a cancelled account
 *    403, over a limit 429 with Retry-After (all before anything is parsed);
 * 2. the body (1 MiB, as /v1) and the query text (100 KB) are capped; batched requests are refused;
 * 3. graphql-armor's depth, alias, token and directive limits run with validation, the cost in `onExecute`
 *    (limits.ts): all refuse before any resolver runs;
 * 4. a mutation with the session cookie must come from the dashboard's origin; with `Idempotency-Key` it runs
 *    as idempotency.ts says;
 * 5. every error leaves through the catalogue (errors.ts), and every answer carries `X-Request-Id` and the key's
 *    `X-RateLimit-*` headers.
 */

type RequestState = {
  requestId: string;
  language: Language;
  now: () => Date;
  db: Db | null;
  actor: Actor | null;
  usage?: ServiceContext["usage"];
  /** The rate-limit headers of the counted key. */
  headers: Record<string, string>;
  /** The GraphQL parameters, for an Idempotency-Key's fingerprint. */
  params?: { query?: string; operationName?: string | null; variables?: unknown };
  /** The answer of an idempotent mutation: sent exactly as stored. */
  answer?: FinalAnswer;
};

export type GraphQLYogaOptions = {
  /** The database (tests pass one that counts statements); default the app's. */
  db?: () => Promise<Db>;
  /** Who a session cookie names (default `actorFromSessionCookie`, not wired until the session layer lands). */
  resolveSession?: SessionResolver;
  /** The clock of every request (tests move it). */
  now?: () => Date;
  /** GraphiQL at GET /api/graphql in a browser; default: only when NODE_ENV is not production. */
  graphiql?: boolean;
  /**
   * Where the next actions of a failure answered before GraphQL runs (authentication, limits) point: the /v1
   * routes (server/wiring/graphql.ts passes `restActionFor`).
   */
  resolveAction?: ActionResolver;
  /**
   * Whether the operation a root mutation is named after commits its own writes (`commitsOwnWrites` in the
   * operations table: server/wiring/graphql.ts passes the app's); an idempotent one then never runs inside the
   * transaction a refusal rolls back (idempotency.ts). Default: none does.
   */
  commitsOwnWrites?: (mutation: string) => boolean;
};

/** The GraphQL door over a schema (server/wiring/graphql.ts gives the app's, gathered from every feature). */
export function createGraphQLYoga(
  schema: GraphQLSchema,
  options: GraphQLYogaOptions = {},
): YogaServerInstance<object, GraphQLContext> {
  const states = new WeakMap<Request, RequestState>();
  const stateOf = (request: Request): RequestState => {
    const state = states.get(request);
    if (!state) throw new Error("a GraphQL request without its request state");
    return state;
  };
  const resolveSession = options.resolveSession ?? actorFromSessionCookie;
  const loadDb = options.db ?? dbReady;
  const now = options.now ?? (() => new Date());

  const door: Plugin<GraphQLContext> = {
    async onRequest({ request, endResponse }) {
      const state: RequestState = {
        requestId: newId("req"),
        language: acceptLanguageOf(request),
        now,
        db: null,
        actor: null,
        headers: {},
      };
      states.set(request, state);
      try {
        const db = await loadDb();
        state.db = db;
        const rawKey = readApiKey(request.headers);
        if (rawKey) {
          const counted = await authenticateAndCount(db, rawKey, state.now());
          state.actor = counted.actor;
          state.headers = counted.limits.headers;
          if (counted.limits.remainingDay !== undefined) {
            state.usage = {
              remainingMinute: counted.limits.remaining,
              remainingDay: counted.limits.remainingDay,
            };
          }
          return;
        }
        state.actor = await resolveSession(request, db, state.now());
        if (!state.actor) throw new AppError("missing_authorization");
        // The cookie door has no key to count against: the account's session limit (docs/security.md, "Limits").
        await countSessionRequest(db, state.actor.accountId, state.now());
      } catch (error) {
        endResponse(
          renderFailure(error, { ...state, url: new URL(request.url), resolveAction: options.resolveAction }),
        );
      }
    },

    onRequestParse({ request, requestParser, setRequestParser }) {
      // The body cap of /v1 (1 MiB) without Yoga's own (`maxRequestBodySize`), which pipes every body through a
      // TransformStream: a declared length is checked before reading (HTTP framing holds the body to it); only a
      // body without one (chunked) is read here, through the capped reader, which refuses it as it arrives.
      if (request.method !== "POST" || !request.body || !requestParser) return;
      const declared = request.headers.get("content-length");
      if (declared !== null) {
        if (Number(declared) > GRAPHQL_LIMITS.maxBodyBytes)
          throw graphQLErrorOf(new AppError("payload_too_large"));
        return;
      }
      setRequestParser(async (original) => {
        let body: string;
        try {
          body = await readBoundedBody(original, GRAPHQL_LIMITS.maxBodyBytes);
        } catch (error) {
          throw isAppError(error) ? graphQLErrorOf(error) : error;
        }
        return requestParser(new Request(original.url, { method: "POST", headers: original.headers, body }));
      });
    },

    onParams({ request, params, setResult }) {
      const state = stateOf(request);
      // A UTF-16 code unit is at most 3 bytes of UTF-8: short texts need no counting.
      const query = params.query;
      if (
        typeof query === "string" &&
        query.length * 3 > GRAPHQL_LIMITS.maxQueryBytes &&
        Buffer.byteLength(query) > GRAPHQL_LIMITS.maxQueryBytes
      ) {
        setResult({ errors: [graphQLErrorOf(queryTooLarge())] });
        return;
      }
      state.params = params;
    },

    async onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const context = args.contextValue as GraphQLContext & { request: Request };
      const request = context.request;
      const state = stateOf(request);
      const stop = (error: unknown) => {
        if (!isAppError(error)) throw error;
        setResultAndStopExecution({ errors: [graphQLErrorOf(error)] });
      };
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation || !state.actor || !state.db) return;
      const cost = operationCost(args.schema, args.document, operation, args.variableValues);
      if (cost > GRAPHQL_LIMITS.maxCost) {
        return stop(
          new AppError("query_too_complex", {
            detail: `Query cost limit of ${GRAPHQL_LIMITS.maxCost} exceeded, found ${cost}.`,
          }),
        );
      }
      if (operation.operation !== "mutation") return;
      try {
        assertSessionMutationAllowed(request, state.actor);
      } catch (error) {
        return stop(error);
      }
      const idempotencyKey = request.headers.get("idempotency-key");
      if (idempotencyKey === null) return;
      if (rootFieldCount(operation, fragmentsOf(args.document)) !== 1) {
        return stop(
          new AppError("invalid_request", {
            param: "Idempotency-Key",
            detail: "A request with an Idempotency-Key carries exactly one mutation.",
          }),
        );
      }
      const mutation = rootMutationOf(operation, fragmentsOf(args.document));
      const call = {
        scopeId: idempotencyScopeOf(state.actor),
        idempotencyKey,
        fingerprint: graphQLFingerprint(state.params ?? {}),
        mutation,
        commitsOwnWrites: mutation !== null && (options.commitsOwnWrites?.(mutation) ?? false),
      };
      const db = state.db;
      let claim: Awaited<ReturnType<typeof claimForMutation>>;
      try {
        claim = await claimForMutation(db, call, state.now());
      } catch (error) {
        return stop(error);
      }
      if (claim.kind === "replay") {
        state.answer = claim.answer;
        setResultAndStopExecution({ data: null });
        return;
      }
      const answering = {
        db,
        requestId: state.requestId,
        language: state.language,
        contentType: contentTypeFor(request),
        now: state.now,
      };
      setExecuteFn(async (executionArgs) => {
        const { result, answer } = await executeIdempotently(
          executeFn as (args: ExecutionArgs) => Promise<ExecutionResult>,
          executionArgs as ExecutionArgs,
          call,
          answering,
        );
        if (answer) state.answer = answer;
        return result;
      });
    },

    onExecutionResult({ context }) {
      // Work the services left for after their commit (wake the delivery worker, fetch images).
      (context as Partial<GraphQLContext>).service?.runAfterCommit();
    },

    onResultProcess({ request, result, setResult, setResultProcessor }) {
      const state = states.get(request);
      if (!state) return;
      const answer = state.answer;
      if (answer) {
        const mediaType = answer.headers["content-type"]?.split(";")[0] ?? "application/json";
        setResultProcessor(
          () =>
            new Response(answer.body, {
              status: answer.status,
              headers: { ...answer.headers, ...(answer.isReplay ? { "idempotent-replayed": "true" } : {}) },
            }),
          mediaType,
        );
        return;
      }
      if (Array.isArray(result) || !("errors" in result)) return;
      setResult(renderErrors(result as ExecutionResult, state));
    },

    onResponse({ request, response }) {
      const state = states.get(request);
      if (!state) return;
      for (const [name, value] of Object.entries(state.headers)) response.headers.set(name, value);
      if (!response.headers.has("x-request-id")) response.headers.set("x-request-id", state.requestId);
    },
  };

  return createYoga<object, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    context: ({ request }) => {
      const state = stateOf(request);
      if (!state.db) throw new Error("a GraphQL request without its database");
      return createGraphQLContext(
        createServiceContext({
          db: state.db,
          actor: state.actor,
          requestId: state.requestId,
          language: state.language,
          now: state.now,
          usage: state.usage,
        }),
      );
    },
    graphiql: options.graphiql ?? env().NODE_ENV !== "production",
    landingPage: false,
    cors: false,
    logging: false,
    // errors.ts renders and masks every error through the catalogue, in the caller's language.
    maskedErrors: false,
    multipart: false,
    batching: false,
    // Capped in `onRequestParse` (above), more cheaply.
    maxRequestBodySize: false,
    plugins: [
      EnvelopArmorPlugin({
        maxDepth: { n: GRAPHQL_LIMITS.maxDepth, flattenFragments: true, onReject: [rejectLimit] },
        maxAliases: { n: GRAPHQL_LIMITS.maxAliases, onReject: [rejectLimit] },
        maxTokens: { n: GRAPHQL_LIMITS.maxTokens, onReject: [rejectLimit] },
        maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives, onReject: [rejectLimit] },
        // The cost is limits.ts's (it reads `first` from variables too); suggestions stay (introspection is on).
        costLimit: { enabled: false },
        blockFieldSuggestion: { enabled: false },
      }),
      door,
    ],
  });
}

function rejectLimit(_context: unknown, error: unknown): void {
  markLimitRejection(error);
}

function queryTooLarge(): AppError {
  return new AppError("payload_too_large", {
    message: {
      en: "The GraphQL query text is larger than 100 KB. Send large inputs as variables.",
      es: "El texto de la consulta GraphQL supera 100 KB. Envía las entradas grandes como variables.",
      pt: "O texto da consulta GraphQL é maior que 100 KB. Envie entradas grandes como variáveis.",
    },
    param: "query",
  });
}

/** The media type Yoga answers JSON results with: GraphQL over HTTP's when the client accepts it. */
function contentTypeFor(request: Request): string {
  const accept = request.headers.get("accept") ?? "";
  return accept.includes("application/graphql-response+json")
    ? "application/graphql-response+json; charset=utf-8"
    : "application/json; charset=utf-8";
}
