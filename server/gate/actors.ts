import { eq, sql } from "drizzle-orm";
import type { Actor, ActorVia } from "@/server/context";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { sha256Hex } from "@/server/lib/crypto";
import { DEVELOPER_KEY_DEFAULT_RPD, USER_KEY_RPD } from "./key-limits";
import { DEVELOPER_KEY_SCOPES, type Scope, userScopesFor } from "./scopes";
import { accounts, apiKeys } from "./tables";

/**
 * Actors for every door (docs/architecture.md, "Actors"): an API key resolves to the key's scopes and budget;
 * a dashboard session acts as the account's owner.
 */

export const KEY_PATTERN = /^mk_(dev|user)_[0-9A-Za-z]{16,128}$/;

/** The columns authentication reads, as one row (raw SQL and the query builder both produce it). */
export type KeyAuthRow = {
  id: string;
  name: string | null;
  kind: "developer" | "user";
  accountId: string;
  scopes: string[];
  rpm: number;
  dailyLimit: number | null;
  revokedAt: Date | string | null;
  accountEmail: string;
  accountStatus: "unverified" | "verified" | "cancelled";
  plan: "FREE_NEW" | "FREE_OLD" | "PRO";
  tosAcceptedVersion: string | null;
};

/**
 * Unknown -> `invalid_api_key`, revoked -> `api_key_revoked`, cancelled account -> `account_cancelled`.
 * `oauth` names the grant when the key stands for an OAuth-connected app (its per-user key).
 */
export function actorFromKeyRow(
  found: KeyAuthRow | undefined,
  oauth?: { clientId: string; tokenId: string },
): Actor {
  if (!found) throw new AppError("invalid_api_key");
  if (found.revokedAt) throw new AppError("api_key_revoked");
  if (found.accountStatus === "cancelled") throw new AppError("account_cancelled");
  const key = {
    keyId: found.id,
    keyName: found.name,
    rpm: found.rpm,
    rpd: found.dailyLimit ?? (found.kind === "developer" ? DEVELOPER_KEY_DEFAULT_RPD : USER_KEY_RPD),
  };
  const via: ActorVia = oauth ? { type: "oauth", ...oauth, key } : { type: "api_key", key };
  return {
    accountId: found.accountId,
    accountEmail: found.accountEmail,
    kind: found.kind,
    accountStatus: found.accountStatus,
    plan: found.plan,
    tosAcceptedVersion: found.tosAcceptedVersion,
    scopes: found.scopes,
    via,
  };
}

/** The row `actorFromKeyRow` reads, by the key's id. */
export async function readKeyAuthRow(db: Db, where: { hash: string } | { keyId: string }) {
  const [found] = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      kind: apiKeys.kind,
      accountId: apiKeys.accountId,
      scopes: apiKeys.scopes,
      rpm: apiKeys.rpm,
      dailyLimit: apiKeys.dailyLimit,
      revokedAt: apiKeys.revokedAt,
      accountEmail: accounts.email,
      accountStatus: accounts.status,
      plan: accounts.plan,
      tosAcceptedVersion: accounts.tosAcceptedVersion,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where("hash" in where ? eq(apiKeys.hash, where.hash) : eq(apiKeys.id, where.keyId))
    .limit(1);
  return found;
}

/**
 * Resolves a raw key to its actor by its SHA-256 (the hash is the index, so the secret itself is never
 * compared). For doors that do not count requests, and the /v1 fallback when the counter store fails.
 */
export async function authenticateKey(db: Db, rawKey: string): Promise<Actor> {
  if (!KEY_PATTERN.test(rawKey)) throw new AppError("invalid_api_key");
  return actorFromKeyRow(await readKeyAuthRow(db, { hash: sha256Hex(rawKey) }));
}

/**
 * What a signed-in person may do in the dashboard: what a user key of the account would hold (the post-verify
 * set once verified), plus the developer scopes while the account holds a live developer key.
 */
export function sessionScopes(
  status: "unverified" | "verified" | "cancelled",
  holdsDeveloperKeys: boolean,
): Scope[] {
  return [...userScopesFor(status), ...(holdsDeveloperKeys ? DEVELOPER_KEY_SCOPES : [])];
}

/**
 * Whether the `accounts` row of the query holds a live developer key, as a column of a select on `accounts`. Raw
 * names: inside a subquery drizzle would render the outer column unqualified.
 */
export function holdsLiveDeveloperKeys() {
  return sql<boolean>`exists (select 1 from api_keys k where k.account_id = accounts.id
    and k.kind = 'developer' and k.revoked_at is null)`;
}

/**
 * The same actor from an account already read for this request (the dashboard's sign-in gate reads it), so a
 * page does not read it twice.
 */
export function sessionActorOf(
  account: {
    accountId: string;
    email: string;
    status: "unverified" | "verified" | "cancelled";
    plan: Actor["plan"];
    tosAcceptedVersion: string | null;
    holdsDeveloperKeys: boolean;
  },
  sessionId: string,
): Actor {
  if (account.status === "cancelled") throw new AppError("account_cancelled");
  return {
    accountId: account.accountId,
    accountEmail: account.email,
    kind: "user",
    accountStatus: account.status,
    plan: account.plan,
    tosAcceptedVersion: account.tosAcceptedVersion,
    scopes: sessionScopes(account.status, account.holdsDeveloperKeys),
    via: { type: "session", sessionId },
  };
}
