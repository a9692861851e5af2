import {
  type ExecutionArgs,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLError,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import { type Actor, actorKey, createServiceContext, type ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { isAppError } from "@/server/errors";
import {
  checkInTransaction,
  claimIdempotencyKey,
  completeIdempotencyKey,
  fingerprintOf,
  recordInTransaction,
  recordRefusal,
  releaseIdempotencyKey,
  type StoredResponse,
  storedResponseFor,
  validateIdempotencyKey,
} from "@/server/gate/idempotency";
import { log } from "@/server/lib/log";
import type { GraphQLContext } from "./context";
import { graphQLErrorOf, isServerFailure, renderErrors } from "./errors";
import { isInputRejection } from "./input";

/**
 * `Idempotency-Key` on a mutation (docs/graphql.md, "Idempotency"), with /v1's store and rules
 * (server/gate/idempotency.ts): the key is scoped to the caller's API key (a dashboard session, which has no
 * key, to its session), kept 24 hours, fingerprinted by the query, operation name and variables. The first
 * request's answer is stored and replayed byte for byte, with `Idempotent-Replayed: true`:
 *
 * - success: the mutation runs in a transaction that also stores its answer (one commit);
 * - the operation refused (a 4xx catalogue error): everything it wrote is rolled back, and the refusal is stored,
 *   so a retry gets the same error;
 * - input validation refused it, or a 5xx: nothing is stored, and a corrected retry with the key runs.
 *
 * A mutation whose operation commits its own writes (`commitsOwnWrites` in the operations table: verifyEmail keeps
 * a wrong code counted) never runs in that transaction, which its refusal would roll back: as on /v1, the key is
 * claimed first under a lease, the mutation runs outside, and its answer (or its refusal) completes the claim.
 */

export const GRAPHQL_PATH = "/api/graphql";

export type IdempotentCall = {
  scopeId: string;
  idempotencyKey: string;
  fingerprint: string;
  /** The request's one root mutation field, named as its operation (`rootMutationOf`); null when unknown. */
  mutation: string | null;
  /** The mutation's operation commits its own writes (`commitsOwnWrites` in the operations table). */
  commitsOwnWrites: boolean;
};

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

/** The name of the first root field of a mutation (the door lets exactly one through with a key). */
export function rootMutationOf(
  operation: OperationDefinitionNode,
  fragments: Map<string, FragmentDefinitionNode>,
): string | null {
  const find = (set: SelectionSetNode, seen: Set<string>): string | null => {
    for (const selection of set.selections) {
      let found: string | null = null;
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value !== "__typename") found = selection.name.value;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        found = find(selection.selectionSet, seen);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (fragment && !seen.has(fragment.name.value)) {
          found = find(fragment.selectionSet, new Set([...seen, fragment.name.value]));
        }
      }
      if (found) return found;
    }
    return null;
  };
  return find(operation.selectionSet, new Set());
}

/**
 * Checks the key before the mutation runs (`validateIdempotencyKey`, then a read of its record): a finished
 * request replays its stored response, another request under the key is 409 `idempotency_key_reused`. The
 * authoritative check runs again inside the mutation's transaction (`executeIdempotently`).
 */
export async function claimForMutation(
  db: Db,
  call: IdempotentCall,
  now: Date,
): Promise<{ kind: "claimed" } | { kind: "replay"; answer: FinalAnswer }> {
  validateIdempotencyKey(call.idempotencyKey);
  const stored = await storedResponseFor(db, call.scopeId, call.idempotencyKey, call.fingerprint, now);
  return stored ? { kind: "replay", answer: { ...stored, isReplay: true } } : { kind: "claimed" };
}

type Answering = {
  db: Db;
  requestId: string;
  language: ServiceContext["language"];
  /** `content-type` of the answer (the media type Yoga would pick for the request). */
  contentType: string;
  now: () => Date;
};

/**
 * Runs the mutation as described above and answers its `FinalAnswer` (the door sends exactly that) with the
 * execution result. The key is checked and the answer recorded inside the mutation's own transaction (/v1's
 * `checkInTransaction`): a 5xx or a lost connection leaves nothing behind. An input refusal or a 5xx answers
 * `answer: null` (nothing stored).
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
    if (call.commitsOwnWrites) return await executeClaimed(execute, args, call, answering);
    let refused: ExecutionResult | null = null;
    const answered = await inTransaction(answering.db, async (tx) => {
      const check = await checkInTransaction(
        tx,
        call.scopeId,
        call.idempotencyKey,
        call.fingerprint,
        answering.now(),
      );
      if (check.kind === "replay") return { kind: "replay" as const, stored: check.response };
      // Its own after-commit tasks: they run only when this transaction commits.
      const service = createServiceContext({ ...outer, db: tx });
      context.service = service;
      const result = await execute(args);
      if (result.errors?.length) {
        refused = result;
        throw ROLLBACK;
      }
      const answer = answerOf(result, answering);
      await recordInTransaction(
        tx,
        call.scopeId,
        call.idempotencyKey,
        call.fingerprint,
        answer,
        answering.now(),
      );
      return { kind: "done" as const, result, answer, service };
    }).catch((error: unknown) => {
      if (error === ROLLBACK) return null;
      throw error;
    });
    if (answered?.kind === "replay") {
      return { result: { data: null }, answer: { ...answered.stored, isReplay: true } };
    }
    if (answered) {
      answered.service.runAfterCommit();
      return { result: answered.result, answer: { ...answered.answer, isReplay: false } };
    }
    const result = refused as unknown as ExecutionResult;
    if (isStorable(result.errors ?? [])) {
      const answer = answerOf(renderErrors(result, answering), answering);
      const recorded = await recordRefusal(
        answering.db,
        call.scopeId,
        call.idempotencyKey,
        call.fingerprint,
        answer,
        answering.now(),
      );
      if (recorded.kind === "replay") return { result, answer: { ...recorded.response, isReplay: true } };
      return { result, answer: { ...answer, isReplay: false } };
    }
    return { result, answer: null };
  } catch (error) {
    // The key is still running elsewhere, or taken by another request: answered, never stored.
    if (isAppError(error) && error.status === 409)
      return { result: { errors: [graphQLErrorOf(error)] }, answer: null };
    throw error;
  } finally {
    context.service = outer;
  }
}

/**
 * A mutation whose operation commits its own writes: the key is claimed first (a lease, /v1's
 * `claimIdempotencyKey`), the mutation runs on the request's own context, outside any transaction of the door,
 * then its answer or its refusal completes the claim. An input refusal or a 5xx releases the key (nothing stored).
 */
async function executeClaimed(
  execute: (args: ExecutionArgs) => Promise<ExecutionResult>,
  args: ExecutionArgs,
  call: IdempotentCall,
  answering: Answering,
): Promise<{ result: ExecutionResult; answer: FinalAnswer | null }> {
  const { db } = answering;
  const claim = await claimIdempotencyKey(
    db,
    call.scopeId,
    call.idempotencyKey,
    call.fingerprint,
    answering.now(),
  );
  if (claim.kind === "replay")
    return { result: { data: null }, answer: { ...claim.response, isReplay: true } };
  const release = () =>
    releaseIdempotencyKey(db, call.scopeId, call.idempotencyKey).catch((error: unknown) => {
      log("error", "could not release idempotency claim", { requestId: answering.requestId, error });
    });
  let result: ExecutionResult;
  try {
    result = await execute(args);
  } catch (error) {
    await release();
    throw error;
  }
  const errors = result.errors ?? [];
  if (errors.length > 0 && !isStorable(errors)) {
    await release();
    return { result, answer: null };
  }
  const answer = answerOf(errors.length > 0 ? renderErrors(result, answering) : result, answering);
  await completeIdempotencyKey(db, call.scopeId, call.idempotencyKey, answer);
  return { result, answer: { ...answer, isReplay: false } };
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
