import { TRPCError } from "@trpc/server";
import { notFound } from "next/navigation";
import { isAppError } from "@/server/errors";

/**
 * Runs a server component's reads; a storefront, product or order that is not the account's (404) or was deleted
 * (410) shows the not-found page, as /v1 answers it. Anything else is thrown to the error page.
 */
export async function orNotFound<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    const cause = error instanceof TRPCError ? error.cause : error;
    if (isAppError(cause) && (cause.status === 404 || cause.status === 410)) notFound();
    throw error;
  }
}

/** One string query parameter (the first when repeated), or undefined. */
export function queryParam(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first ? first : undefined;
}
