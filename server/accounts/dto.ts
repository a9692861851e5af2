import { DEVELOPER_KEY_DEFAULT_RPD, USER_KEY_RPD } from "@/server/gate/key-limits";
import type { AccountKeyDto, KeyDto, UserDto } from "./schema";

export type { KeyDto };

import type { accounts, apiKeys } from "@/server/gate/tables";

/** The one mapping from each accounts row to what callers see. */

export type AccountRow = typeof accounts.$inferSelect;

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export function toUserDto(row: AccountRow): UserDto {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    language: row.language as UserDto["language"],
    status: row.status,
    plan: row.plan,
    developerKeyId: row.developerKeyId,
    createdAt: row.createdAt.toISOString(),
    verifiedAt: row.verifiedAt ? row.verifiedAt.toISOString() : null,
  };
}

export function toKeyDto(row: ApiKeyRow): KeyDto {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    createdAt: row.createdAt.toISOString(),
  };
}

/** A key as the dashboard's keys page lists it: never its hash. */
export function toAccountKeyDto(row: ApiKeyRow): AccountKeyDto {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    kind: row.kind,
    scopes: row.scopes,
    source: row.source,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
    dailyLimit: row.dailyLimit ?? (row.kind === "developer" ? DEVELOPER_KEY_DEFAULT_RPD : USER_KEY_RPD),
  };
}
