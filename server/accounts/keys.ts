import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "@/server/db/client";
import { DEFAULT_RPM, DEVELOPER_KEY_DEFAULT_RPD } from "@/server/gate/key-limits";
import { apiKeys } from "@/server/gate/tables";
import { randomBase62, sha256Hex } from "@/server/lib/crypto";
import { newId } from "@/server/lib/ids";
import type { ApiKeyRow } from "./dto";

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
