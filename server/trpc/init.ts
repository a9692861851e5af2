import { AsyncLocalStorage } from "node:async_hooks";
import { initTRPC, TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import type { z } from "zod";
import type { ServiceContext } from "@/server/context";
import { AppError, type ErrorObject, errorBody, isAppError, type Language } from "@/server/errors";
import { toAppError } from "@/server/kit/errors";
import { parseInput } from "@/server/validation";

/**
 * tRPC for the dashboard (docs/ui.md, "tRPC"). Every procedure is one line over a service function: the service
 * authorizes the session's actor (server/gate/authorize.ts) exactly as for /v1, so no rule lives here. What
 * lives here is the door itself: CSRF for mutations, the catalogue error shape, and after-commit tasks.
 */
export type TrpcContext = {
  service: ServiceContext;
  /** The request passed the Origin check (server/gate/origin.ts); false refuses every mutation. */
  sameOrigin: boolean;
  /** Set when the request is over the account's session limit (docs/security.md, "Limits"): every call refused. */
  refusal?: AppError;
};

/** What a failed call carries in `error.data.error`: the catalogue error, as `/v1` sends it in its envelope. */
export type TrpcErrorData = { error: ErrorObject | null };

const STATUS_TO_TRPC: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  402: "PAYMENT_REQUIRED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  410: "NOT_FOUND",
  412: "PRECONDITION_FAILED",
  413: "PAYLOAD_TOO_LARGE",
  422: "UNPROCESSABLE_CONTENT",
  428: "PRECONDITION_REQUIRED",
  429: "TOO_MANY_REQUESTS",
  503: "SERVICE_UNAVAILABLE",
};

function trpcCodeFor(error: AppError): TRPC_ERROR_CODE_KEY {
  return STATUS_TO_TRPC[error.status] ?? "INTERNAL_SERVER_ERROR";
}

/**
 * The catalogue error behind a failed call: an AppError as thrown; anything unexpected through the kit
 * (server/kit/errors.ts: logged with the request id, answered as `internal_error`, a lost database as
 * `service_unavailable`); null for tRPC's own refusals (an unknown procedure, a body that is not JSON).
 */
function appErrorOf(error: TRPCError, where: { requestId: string; path?: string }): AppError | null {
  if (isAppError(error.cause)) return error.cause;
  if (error.code === "INTERNAL_SERVER_ERROR")
    return toAppError(error.cause ?? error, { ...where, door: "trpc" });
  return null;
}

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error, ctx }) {
    const language: Language = ctx?.service.language ?? "en";
    const requestId = ctx?.service.requestId ?? "req_internal";
    // The caller gets the catalogue's message, never the raw one.
    const appError = appErrorOf(error, { requestId, path: shape.data.path });
    const body = appError ? errorBody(appError, requestId, language).error : null;
    return {
      code: shape.code,
      message: body?.message ?? shape.message,
      data: { code: shape.data.code, httpStatus: shape.data.httpStatus, path: shape.data.path, error: body },
    };
  },
});

/** The language of the call in progress, for input parsing (tRPC parses input without the context). */
const callLanguage = new AsyncLocalStorage<Language>();

/**
 * A procedure's input: parsed with the feature's own zod schema (the one /v1 uses) through `parseInput`, so a bad
 * field is the catalogue's `invalid_request` with its `param`, in the caller's language.
 */
export function input<S extends z.ZodType>(schema: S): TypedParser<z.input<S>, z.output<S>> {
  return {
    // Types only (tRPC's "zod-esque" parser shape): what the client sends and what the procedure receives.
    _input: undefined as unknown as z.input<S>,
    _output: undefined as unknown as z.output<S>,
    parse: (raw) => parseInput(schema, raw, callLanguage.getStore() ?? "en"),
  };
}

type TypedParser<In, Out> = { _input: In; _output: Out; parse: (raw: unknown) => Out };

/**
 * Service errors become tRPC errors carrying the AppError (unexpected ones through the kit, so a lost database
 * is a 503); after-commit tasks run once the call succeeded.
 */
const serviceCall = t.middleware(async ({ ctx, path, next }) => {
  const result = await callLanguage.run(ctx.service.language, () => next());
  if (result.ok) {
    ctx.service.runAfterCommit();
    return result;
  }
  const cause = appErrorOf(result.error, { requestId: ctx.service.requestId, path });
  if (cause && (result.error.cause !== cause || result.error.code !== trpcCodeFor(cause))) {
    throw new TRPCError({ code: trpcCodeFor(cause), message: cause.message, cause });
  }
  return result;
});

/**
 * Refuses a call without a live session (401), over the account's session limit (429), and a mutation from another
 * origin (403), before any work.
 */
const signedIn = t.middleware(({ ctx, type, next }) => {
  if (!ctx.service.actor) {
    const cause = new AppError("missing_authorization");
    throw new TRPCError({ code: "UNAUTHORIZED", message: cause.message, cause });
  }
  if (ctx.refusal)
    throw new TRPCError({ code: trpcCodeFor(ctx.refusal), message: ctx.refusal.message, cause: ctx.refusal });
  if (type === "mutation" && !ctx.sameOrigin) {
    const cause = new AppError("cross_site_request", {
      detail:
        "A dashboard session authorizes changes only from the dashboard's own origin (the Origin header).",
    });
    throw new TRPCError({ code: "FORBIDDEN", message: cause.message, cause });
  }
  return next();
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
/** For procedures a signed-out person may call (none yet; sign-in is plain forms). */
export const publicProcedure = t.procedure.use(serviceCall);
/** Every dashboard procedure: a live session, and the same origin for mutations. */
export const sessionProcedure = publicProcedure.use(signedIn);
