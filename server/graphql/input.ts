import { z } from "zod";
import { AppError, isAppError } from "@/server/errors";
import { id, parseInput } from "@/server/validation";
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
  // The detail starts with the field's path in every language: name the argument there too.
  const rename = (text: string) =>
    param && text.startsWith(param) ? `${named}${text.slice(param.length)}` : text;
  const original = error.options.detail;
  const detail =
    original === undefined
      ? undefined
      : typeof original === "string"
        ? rename(original)
        : Object.fromEntries(
            Object.entries(original).map(([lang, text]) => [lang, text ? rename(text) : text]),
          );
  return new AppError(error.code, { ...error.options, param: named, detail });
}

/** An `ID` argument: the id rule of every door (`id()`, server/validation.ts). */
export const Id = id();

/**
 * An `ID` argument, refused before it reaches a service when it cannot be an id (400 `invalid_request`, `param`
 * naming the argument); any other string is looked up and answers the type's not-found error, as on /v1. (Pothos
 * builds GraphQL's own `ID` scalar, so the check is here rather than in the scalar.)
 */
export function parseId(value: string, ctx: GraphQLContext, argument = "id"): string {
  return parseArg(z.object({ [argument]: Id }), { [argument]: value }, ctx)[argument] as string;
}
