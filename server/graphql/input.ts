import type { z } from "zod";
import { AppError, isAppError } from "@/server/errors";
import { parseInput } from "@/server/validation";
import type { GraphQLContext } from "./context";

/** Errors of input validation (the zod schemas), which an Idempotency-Key never stores (idempotency.ts). */
const INPUT_REJECTIONS = new WeakSet<Error>();

export function isInputRejection(error: unknown): boolean {
  return error instanceof Error && INPUT_REJECTIONS.has(error);
}

/**
 * An argument validated by the feature's zod schema, exactly as /v1 validates the body (`parseInput`): the same
 * 400 `invalid_request` with the JSON path of the first offending field in `param`. The path is relative to the
 * argument that carries the /v1 body (`input`: `delivery.ranges[1].fromKm`); `argument` names any other one
 * (`inputs[3].price`).
 */
export function parseArg<S extends z.ZodType>(
  schema: S,
  value: unknown,
  ctx: GraphQLContext,
  argument?: string,
): z.output<S> {
  try {
    return parseInput(schema, value, ctx.service.language);
  } catch (error) {
    const rejection = isAppError(error) && argument ? underArgument(error, argument) : error;
    if (rejection instanceof Error) INPUT_REJECTIONS.add(rejection);
    throw rejection;
  }
}

function underArgument(error: AppError, argument: string): AppError {
  const param = error.options.param;
  const named = !param ? argument : param.startsWith("[") ? `${argument}${param}` : `${argument}.${param}`;
  const detail =
    param && error.options.detail?.startsWith(param)
      ? `${named}${error.options.detail.slice(param.length)}`
      : error.options.detail;
  return new AppError(error.code, { ...error.options, param: named, detail });
}
