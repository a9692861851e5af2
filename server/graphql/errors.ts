import { GraphQLError } from "graphql";
import { AppError, errorBody, isAppError, type Language } from "@/server/errors";
import { toAppError } from "@/server/kit/errors";

/**
 * GraphQL errors through the ONE catalogue (server/errors.ts; docs/graphql.md, "Errors"). Every entry of
 * `errors[]` leaves with the catalogue's fields in `extensions` and its message in the caller's language:
 *
 * - a service's `AppError` keeps its code, param, upgrade, scopes;
 * - a limit (depth, cost, aliases, tokens, directives) is `query_too_complex`;
 * - a request GraphQL itself refuses (syntax, validation, a variable of the wrong type, a body too large) is
 *   `invalid_request` (`invalid_json`, `payload_too_large`, `method_not_allowed`), with the variable's path in
 *   `param` when GraphQL names one;
 * - a lost database is `service_unavailable`;
 * - anything else is masked: `internal_error` with the request id, and logged with it.
 *
 * This replaces Yoga's own masking (`maskedErrors: false` in yoga.ts), which cannot know the caller's language.
 */
export type CatalogueExtensions = {
  code: string;
  type: string;
  param: string | null;
  requestId: string;
  recoverable: boolean;
  retryAfterMs: number | null;
  upgrade: unknown;
  requiredScopes: string[] | null;
  heldScopes: string[] | null;
  doc: string;
};

type RequestLike = { requestId: string; language: Language };

/** Errors graphql-armor raised for a limit (yoga.ts marks them in `onReject`). */
const LIMIT_REJECTIONS = new WeakSet<object>();

export function markLimitRejection(error: unknown): void {
  if (typeof error === "object" && error !== null) LIMIT_REJECTIONS.add(error);
}

/** An error to hand Yoga from a hook (`setResult`): rendered through the catalogue like any other. */
export function graphQLErrorOf(error: AppError): GraphQLError {
  return new GraphQLError(error.message, { originalError: error });
}

/**
 * The AppError an error stands for (see above); an unexpected error is logged, with the request id and the
 * field's path, as it is masked (server/kit/errors.ts).
 */
export function appErrorOf(error: GraphQLError, request: RequestLike): AppError {
  const known = knownErrorOf(error);
  if (known.appError) return known.appError;
  return toAppError(known.unexpected, {
    requestId: request.requestId,
    door: "graphql",
    path: error.path?.join("."),
  });
}

/** True when the error is the server's failure (a 5xx), not a refusal of the request. */
export function isServerFailure(error: GraphQLError): boolean {
  const known = knownErrorOf(error);
  return !known.appError || known.appError.status >= 500;
}

/** The AppError an error stands for, or the unexpected error behind it (to mask through the kit). */
function knownErrorOf(
  error: GraphQLError,
): { appError: AppError; unexpected?: never } | { appError?: never; unexpected: unknown } {
  const chain: GraphQLError[] = [error];
  let original: unknown = error.originalError;
  while (original instanceof GraphQLError) {
    chain.push(original);
    original = original.originalError;
  }
  if (isAppError(original)) return { appError: original };
  const limit = chain.find((item) => LIMIT_REJECTIONS.has(item));
  if (limit) {
    return {
      appError: new AppError("query_too_complex", { detail: limit.message.replace(/^Syntax Error: /, "") }),
    };
  }
  // The outermost error says the most (graphql-js wraps a scalar's refusal with the variable's path).
  if (original === undefined || original === null) return { appError: requestErrorOf(chain) };
  return { unexpected: original };
}

/** A request GraphQL or Yoga refused before running it (`chain`: the error, then the errors it wraps). */
function requestErrorOf(chain: GraphQLError[]): AppError {
  const [error] = chain;
  const status = chain
    .map((item) => (item.extensions?.http as { status?: number } | undefined)?.status)
    .find((value) => value !== undefined);
  const message = error?.message ?? "";
  if (status === 413) return new AppError("payload_too_large");
  if (status === 405) return new AppError("method_not_allowed", { detail: message });
  if (message === "POST body sent invalid JSON.") return new AppError("invalid_json");
  return new AppError("invalid_request", { param: paramOf(message), detail: message });
}

/**
 * The field a variable error names, as a JSON path inside the variable (`delivery.ranges[1].fromKm` for
 * `$input`), or the variable's name when the error is about the whole value. graphql-js prints the path as
 * `at "input.delivery.ranges[1].fromKm"` and names a missing or unknown field in the message.
 */
export function paramOf(message: string): string | null {
  const variable = /^Variable "\$([_A-Za-z][_0-9A-Za-z]*)"/.exec(message)?.[1];
  if (!variable) return null;
  const at = new RegExp(` at "${variable}((?:\\.[_A-Za-z][_0-9A-Za-z]*|\\[\\d+\\])*)"; `).exec(message);
  let path = at?.[1] ?? "";
  const field = /; Field "([_A-Za-z][_0-9A-Za-z]*)" (?:is not defined by type|of required type)/.exec(
    message,
  );
  if (field?.[1]) path += `.${field[1]}`;
  path = path.replace(/^\./, "");
  return path === "" ? variable : path;
}

/**
 * The error as GraphQL answers it: its message in the caller's language and the catalogue's fields in
 * `extensions`. `isRequestError` (the operation did not run: no `data`) also sets the HTTP status Yoga answers
 * under `application/graphql-response+json` (a 4xx is a 200 under plain `application/json`, as GraphQL over HTTP
 * says).
 */
function toCatalogueError(error: GraphQLError, request: RequestLike, isRequestError: boolean): GraphQLError {
  const appError = appErrorOf(error, request);
  const body = errorBody(appError, request.requestId, request.language).error;
  const extensions: CatalogueExtensions & { http?: { status: number; spec: boolean } } = {
    code: body.code,
    type: body.type,
    param: body.param,
    requestId: body.requestId,
    recoverable: body.recoverable,
    retryAfterMs: body.retryAfterMs,
    upgrade: body.upgrade,
    requiredScopes: body.requiredScopes ?? null,
    heldScopes: body.heldScopes ?? null,
    doc: body.doc,
  };
  if (isRequestError) extensions.http = { status: appError.status, spec: appError.status < 500 };
  return new GraphQLError(body.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions,
  });
}

/** Every error of a result through the catalogue (errors already rendered pass unchanged). */
export function renderErrors<R extends { data?: unknown; errors?: ReadonlyArray<GraphQLError> }>(
  result: R,
  request: RequestLike,
): R {
  if (!result.errors?.length) return result;
  const isRequestError = !("data" in result) || result.data === undefined;
  return {
    ...result,
    errors: result.errors.map((error) =>
      RENDERED.has(error) ? error : rendered(toCatalogueError(error, request, isRequestError)),
    ),
  };
}

const RENDERED = new WeakSet<GraphQLError>();

function rendered(error: GraphQLError): GraphQLError {
  RENDERED.add(error);
  return error;
}
