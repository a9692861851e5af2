import { type Actor, requireActor, type ServiceContext } from "@/server/context";
import { AppError, type Messages } from "@/server/errors";
import type { OperationDefinition, OperationTable } from "@/server/operations";
import { assertTermsAcceptedForWrite } from "./terms";

/**
 * THE authorization of every operation, for every door (REST, tRPC, GraphQL, MCP, pages): an authenticated
 * actor of a live account, reaching the operation through a door it allows, holding one of its scopes, and,
 * for writes, the current terms of service accepted (docs/architecture.md, "Operations"). Services call it
 * first; adapters may call it earlier (the /v1 pipeline does, before idempotency) with the same result.
 *
 * Each feature makes its own from its table (`export const authorize = authorizerFor(STOREFRONT_OPERATIONS)` in
 * its operations.ts), so that this file names no feature's operations and a service can name only its own.
 */
export function authorizerFor<T extends OperationTable>(
  table: T,
): (ctx: ServiceContext, operation: keyof T & string) => Actor {
  return (ctx, operation) =>
    authorizeActor(requireActor(ctx), operation, table[operation] as OperationDefinition);
}

/**
 * THE authorization of an operator operation (marked `operator` in the table: docs/architecture.md, "Actors"):
 * only the operator's context (`operatorContext`, made by the CLI and its admin endpoint) runs it. Any other
 * context, with an actor of any kind or none (a public caller), is 403 `insufficient_scope`, before anything is
 * read.
 */
export function authorizeOperator(
  ctx: ServiceContext,
  operation: string,
  definition: OperationDefinition,
): void {
  if (definition.operator !== true) throw new Error(`${operation} is not an operator operation`);
  if (ctx.operator === true && ctx.actor === null) return;
  throw new AppError("insufficient_scope", {
    detail: {
      en: `${operation} is the operator's: only the command line runs it.`,
      es: `${operation} es del operador: solo la línea de comandos lo ejecuta.`,
      pt: `${operation} é do operador: só a linha de comando o executa.`,
    },
    requiredScopes: [],
    heldScopes: ctx.actor?.scopes ?? [],
  });
}

/**
 * Whether the operation is open to this caller at all, whatever its scopes: its door (`via`) and its kind
 * (`kinds`: developer keys only, for the partner API); never an operator operation (`authorizeOperator`). The MCP
 * door lists only the tools open to the caller.
 */
export function isAvailableTo(actor: Actor, definition: OperationDefinition): boolean {
  if (definition.operator) return false;
  if (definition.via && !definition.via.includes(actor.via.type)) return false;
  return !definition.kinds || definition.kinds.includes(actor.kind);
}

/** The refusal of an operation not open to the caller (`isAvailableTo`): insufficient_scope, saying to whom. */
export function assertAvailableTo(actor: Actor, operation: string, definition: OperationDefinition): void {
  if (isAvailableTo(actor, definition)) return;
  throw new AppError("insufficient_scope", {
    detail: notAvailableTo(operation, actor),
    requiredScopes: [...definition.scopes],
    heldScopes: actor.scopes,
  });
}

export function authorizeActor(actor: Actor, operation: string, definition: OperationDefinition): Actor {
  if (actor.accountStatus === "cancelled") throw new AppError("account_cancelled");
  assertAvailableTo(actor, operation, definition);
  const scopes: readonly string[] = definition.scopes;
  if (scopes.length > 0 && !scopes.some((scope) => actor.scopes.includes(scope))) {
    throw new AppError("insufficient_scope", { requiredScopes: [...scopes], heldScopes: actor.scopes });
  }
  if (definition.access === "write" && definition.termsGate !== false) assertTermsAcceptedForWrite(actor);
  return actor;
}

function notAvailableTo(operation: string, actor: Actor): Messages {
  const who =
    actor.via.type === "session"
      ? { en: "a dashboard session", es: "una sesión del panel", pt: "uma sessão do painel" }
      : actor.via.type === "oauth"
        ? {
            en: "an OAuth-connected app",
            es: "una app conectada por OAuth",
            pt: "um app conectado por OAuth",
          }
        : actor.kind === "developer"
          ? { en: "a developer key", es: "una clave de desarrollador", pt: "uma chave de desenvolvedor" }
          : { en: "a user key", es: "una clave de usuario", pt: "uma chave de usuário" };
  return {
    en: `${operation} is not available to ${who.en}.`,
    es: `${operation} no está disponible para ${who.es}.`,
    pt: `${operation} não está disponível para ${who.pt}.`,
  };
}
