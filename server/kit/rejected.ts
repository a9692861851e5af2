import {
  type ActionResolver,
  AppError,
  type ErrorObject,
  errorBody,
  type Language,
  type RejectedProduct,
} from "@/server/errors";

/**
 * Products a plan kept out of a partial success, each with the catalogue's error object, for every door (REST's
 * 207 and tRPC, GraphQL payloads, MCP results; docs/api.md, "Plan limits"). `argument` renames the list in
 * `param` when the door's argument has another name than /v1's body field (GraphQL's `inputs[3]`).
 */
export function renderRejected(
  rejected: RejectedProduct[] | undefined,
  answer: { requestId: string; language: Language; resolveAction?: ActionResolver; argument?: string },
): Array<{ index: number; error: ErrorObject }> | undefined {
  return rejected?.map(({ index, code, ...options }) => {
    const param = answer.argument ? `${answer.argument}[${index}]` : options.param;
    const error = new AppError(code, { ...options, param });
    return { index, error: errorBody(error, answer.requestId, answer.language, answer.resolveAction).error };
  });
}
