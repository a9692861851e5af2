import { and, eq, isNull } from "drizzle-orm";
import {
  type Actor,
  createServiceContext,
  operatorContext as makeOperatorContext,
  type ServiceContext,
} from "@/server/context";
import { type Db, dbReady } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { authenticateKey, holdsLiveDeveloperKeys, sessionActorOf } from "@/server/gate/actors";
import { accounts } from "@/server/gate/tables";
import { newId } from "@/server/lib/ids";

/** A service context acting as the owner of `rawKey` (an API key actor), as an adapter would build it. */
export async function serviceContextFor(
  rawKey: string,
  now: () => Date = () => new Date(),
): Promise<ServiceContext> {
  const db = await dbReady();
  return createServiceContext({ db, actor: await authenticateKey(db, rawKey), requestId: newId("req"), now });
}

/** A service context acting as a signed-in dashboard session of `accountId`. */
export async function sessionContextFor(
  accountId: string,
  now: () => Date = () => new Date(),
): Promise<ServiceContext> {
  const db = await dbReady();
  return createServiceContext({
    db,
    actor: await sessionActor(db, accountId, `ses_${newId("req").slice(4)}`),
    requestId: newId("req"),
    now,
  });
}

/** A service context for an arbitrary actor (e.g. an OAuth grant), or none (public and operator calls). */
export async function contextWith(
  actor: Actor | null,
  now: () => Date = () => new Date(),
): Promise<ServiceContext> {
  return createServiceContext({ db: await dbReady(), actor, requestId: newId("req"), now });
}

/** Calls a service as an adapter does: the call, then the work it left for after its commit. */
export async function asAdapter<T>(
  ctx: ServiceContext,
  call: (ctx: ServiceContext) => Promise<T>,
): Promise<T> {
  const result = await call(ctx);
  ctx.runAfterCommit();
  return result;
}

/** The operator's context, as the CLI makes it (`operatorContext` in server/context.ts): no actor. */
export async function operatorContext(now: () => Date = () => new Date()): Promise<ServiceContext> {
  return makeOperatorContext({ db: await dbReady(), now });
}

/** A service context acting as an OAuth-connected app whose consent made the per-user key `rawKey`. */
export async function oauthContextFor(
  rawKey: string,
  now: () => Date = () => new Date(),
): Promise<ServiceContext> {
  const db = await dbReady();
  const { actorFromKeyRow, readKeyAuthRow } = await import("@/server/gate/actors");
  const { sha256Hex } = await import("@/server/lib/crypto");
  const actor = actorFromKeyRow(await readKeyAuthRow(db, { hash: sha256Hex(rawKey) }), {
    clientId: "https://client.example.com/oauth/metadata.json",
    tokenId: `tok_${newId("req").slice(4)}`,
  });
  return createServiceContext({ db, actor, requestId: newId("req"), now });
}

/**
 * The actor of a dashboard session for `accountId` without a session row (tests only; requests resolve theirs with
 * `resolveSignedInSession`); a cancelled or unknown account is `account_cancelled`.
 */
export async function sessionActor(db: Db, accountId: string, sessionId: string): Promise<Actor> {
  const [row] = await db
    .select({
      email: accounts.email,
      status: accounts.status,
      plan: accounts.plan,
      tosAcceptedVersion: accounts.tosAcceptedVersion,
      holdsDeveloperKeys: holdsLiveDeveloperKeys(),
    })
    .from(accounts)
    .where(and(eq(accounts.id, accountId), isNull(accounts.cancelledAt)))
    .limit(1);
  if (!row || row.status === "cancelled") throw new AppError("account_cancelled");
  return sessionActorOf(
    { accountId, ...row, holdsDeveloperKeys: Boolean(row.holdsDeveloperKeys) },
    sessionId,
  );
}
