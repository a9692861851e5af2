import type { ExecutionArgs, ExecutionResult, GraphQLError } from "graphql";
import { type Actor, actorKey, createServiceContext, type ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  fingerprintOf,
  releaseIdempotencyKey,
  type StoredResponse,
  validateIdempotencyKey,
} from "@/server/http/idempotency";
import { log } from "@/server/lib/log";
import type { GraphQLContext } from "./context";
import { isServerFailure, renderErrors } from "./errors";
import { isInputRejection } from "./input";

/**
 * `Idempotency-Key` on a mutation (docs/graphql.md, "Idempotency"), with /v1's store and rules
 * (server/http/idempotency.ts): the key is scoped to the caller's API key (a dashboard session, which has no
 * key, to its session), kept 24 hours, fingerprinted by the query, operation name and variables. The first
 * request's answer is stored and replayed byte for byte, with `Idempotent-Replayed: true`:
 *
 * - success: the mutation runs in a transaction that also stores its answer (one commit);
 * - the operation refused (a 4xx catalogue error): everything it wrote is rolled back, and the refusal is stored,
 *   so a retry gets the same error;
 * - input validation refused it, or a 5xx: nothing is stored, and a corrected retry with the key runs.
 */

export const GRAPHQL_PATH = "/api/graphql";

export type IdempotentCall = { scopeId: string; idempotencyKey: string; fingerprint: string };

/** What the door answers for an idempotent mutation: the stored response, fresh or replayed. */
export type FinalAnswer = StoredResponse & { isReplay: boolean };

/** Whose key it is: the API key's id, as on /v1, or the dashboard session's id. */
export function idempotencyScopeOf(actor: Actor): string {
  const key = actorKey(actor);
  if (key) return key.keyId;
  return actor.via.type === "session" ? actor.via.sessionId : actor.accountId;
}

export function graphQLFingerprint(params: {
  query?: string;
  operationName?: string | null;
  variables?: unknown;
}): string {
  return fingerprintOf(
    "POST",
    GRAPHQL_PATH,
    JSON.stringify([params.query ?? null, params.operationName ?? null, params.variables ?? null]),
  );
}

/** Claims the key (`validateIdempotencyKey`, then /v1's claim): a replay answers the stored response. */
export async function claimForMutation(
  db: Db,
  call: IdempotentCall,
  now: Date,
): Promise<{ kind: "claimed" } | { kind: "replay"; answer: FinalAnswer }> {
  validateIdempotencyKey(call.idempotencyKey);
  const claim = await claimIdempotencyKey(db, call.scopeId, call.idempotencyKey, call.fingerprint, now);
  return claim.kind === "replay" ? { kind: "replay", answer: { ...claim.response, isReplay: true } } : claim;
}

type Answering = {
  db: Db;
  requestId: string;
  language: ServiceContext["language"];
  /** `content-type` of the answer (the media type Yoga would pick for the request). */
  contentType: string;
};

/**
 * Runs the claimed mutation as described above and answers its `FinalAnswer` (the door sends exactly that) with
 * the execution result; a 5xx or an input refusal answers `answer: null` and releases the claim.
 */
export async function executeIdempotently(
  execute: (args: ExecutionArgs) => Promise<ExecutionResult>,
  args: ExecutionArgs,
  call: IdempotentCall,
  answering: Answering,
): Promise<{ result: ExecutionResult; answer: FinalAnswer | null }> {
  const context = args.contextValue as GraphQLContext;
  const outer = context.service;
  try {
    let refused: ExecutionResult | null = null;
    const answered = await inTransaction(answering.db, async (tx) => {
      // Its own after-commit tasks: they run only when this transaction commits.
      const service = createServiceContext({ ...outer, db: tx });
      context.service = service;
      const result = await execute(args);
      if (result.errors?.length) {
        refused = result;
        throw ROLLBACK;
      }
      const answer = answerOf(result, answering);
      await completeIdempotencyKey(tx, call.scopeId, call.idempotencyKey, answer);
      return { result, answer, service };
    }).catch((error: unknown) => {
      if (error === ROLLBACK) return null;
      throw error;
    });
    if (answered) {
      answered.service.runAfterCommit();
      return { result: answered.result, answer: { ...answered.answer, isReplay: false } };
    }
    const result = refused as unknown as ExecutionResult;
    if (isStorable(result.errors ?? [])) {
      const answer = answerOf(renderErrors(result, answering), answering);
      await completeIdempotencyKey(answering.db, call.scopeId, call.idempotencyKey, answer);
      return { result, answer: { ...answer, isReplay: false } };
    }
    await release(answering, call);
    return { result, answer: null };
  } catch (error) {
    await release(answering, call);
    throw error;
  } finally {
    context.service = outer;
  }
}

/** Thrown inside the transaction to roll a refused mutation back. */
const ROLLBACK = Symbol("rollback");

/** A refusal by the operation itself is stored; input validation and server failures are not (see above). */
function isStorable(errors: ReadonlyArray<GraphQLError>): boolean {
  const inputOnly = errors.every((error) => isInputRejection(error.originalError));
  return !inputOnly && !errors.some(isServerFailure);
}

function answerOf(result: ExecutionResult, answering: Answering): StoredResponse {
  return {
    status: 200,
    body: JSON.stringify(result),
    headers: { "content-type": answering.contentType, "x-request-id": answering.requestId },
  };
}

async function release(answering: Answering, call: IdempotentCall): Promise<void> {
  await releaseIdempotencyKey(answering.db, call.scopeId, call.idempotencyKey).catch((error: unknown) => {
    log("error", "could not release idempotency claim", { requestId: answering.requestId, error });
  });
}
