import { and, eq, isNull } from "drizzle-orm";
import type { Actor } from "@/server/context";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { DEFAULT_RPM, DEVELOPER_KEY_DEFAULT_RPD, USER_KEY_RPD } from "@/server/http/rate-limit";
import { randomBase62, sha256Hex } from "@/server/lib/crypto";
import { newId } from "@/server/lib/ids";
import { accounts, apiKeys } from "./tables";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export type KeyDto = { id: string; name: string | null; prefix: string; scopes: string[]; createdAt: string };

export function toKeyDto(row: ApiKeyRow): KeyDto {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    createdAt: row.createdAt.toISOString(),
  };
}

export type IssueKeyInput = {
  accountId: string;
  kind: "developer" | "user";
  name?: string | null;
  scopes: string[];
  dailyLimit?: number | null;
  rpm?: number;
  source: ApiKeyRow["source"];
  now: Date;
};

/** Makes a key: `mk_dev_`/`mk_user_` + 43 base62 characters (~256 bits). Stores only its SHA-256 and a prefix. */
export async function issueKey(db: Db, input: IssueKeyInput): Promise<{ row: ApiKeyRow; rawKey: string }> {
  const rawKey = `${input.kind === "developer" ? "mk_dev_" : "mk_user_"}${randomBase62(43)}`;
  const [row] = await db
    .insert(apiKeys)
    .values({
      id: newId("key"),
      accountId: input.accountId,
      kind: input.kind,
      name: input.name ?? null,
      prefix: `${rawKey.slice(0, rawKey.indexOf("_", 3) + 5)}…`,
      hash: sha256Hex(rawKey),
      scopes: input.scopes,
      dailyLimit: input.dailyLimit ?? (input.kind === "developer" ? DEVELOPER_KEY_DEFAULT_RPD : null),
      rpm: input.rpm ?? DEFAULT_RPM,
      source: input.source,
      createdAt: input.now,
    })
    .returning();
  if (!row) throw new Error("key insert returned no row");
  return { row, rawKey };
}

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

/** Unknown -> `invalid_api_key`, revoked -> `api_key_revoked`, cancelled account -> `account_cancelled`. */
export function actorFromKeyRow(found: KeyAuthRow | undefined): Actor {
  if (!found) throw new AppError("invalid_api_key");
  if (found.revokedAt) throw new AppError("api_key_revoked");
  if (found.accountStatus === "cancelled") throw new AppError("account_cancelled");
  return {
    keyId: found.id,
    keyName: found.name,
    kind: found.kind,
    accountId: found.accountId,
    accountEmail: found.accountEmail,
    accountStatus: found.accountStatus,
    plan: found.plan,
    tosAcceptedVersion: found.tosAcceptedVersion,
    scopes: found.scopes,
    rpm: found.rpm,
    rpd: found.dailyLimit ?? (found.kind === "developer" ? DEVELOPER_KEY_DEFAULT_RPD : USER_KEY_RPD),
  };
}

/**
 * Resolves a raw key to its actor by its SHA-256 (the hash is the index, so the secret itself is never
 * compared). Used where no request is counted (dashboard, fallback when the counter store fails).
 */
export async function authenticateKey(db: Db, rawKey: string): Promise<Actor> {
  if (!KEY_PATTERN.test(rawKey)) throw new AppError("invalid_api_key");
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
    .where(eq(apiKeys.hash, sha256Hex(rawKey)))
    .limit(1);
  return actorFromKeyRow(found);
}

/** Marks a key revoked; it stops authenticating at once. Returns the row, or null when unknown or already revoked. */
export async function revokeKeyRow(
  db: Db,
  keyId: string,
  kind: ApiKeyRow["kind"],
  now: Date,
): Promise<ApiKeyRow | null> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.kind, kind), isNull(apiKeys.revokedAt)))
    .returning();
  return row ?? null;
}
