import { and, eq, lt, sql } from "drizzle-orm";
import { type Db, isDatabaseUnavailable, queryRows } from "@/server/db/client";
import type { StoredResponse } from "@/server/db/idempotency-record";
import { idempotencyKeys } from "@/server/db/tables";
import { isUniqueViolationOn } from "@/server/db/transaction";
import { AppError, type Language, type Messages } from "@/server/errors";
import { sha256Hex } from "@/server/lib/crypto";
import { log } from "@/server/lib/log";
import { decryptSecret, encryptSecret } from "@/server/lib/secrets";
import { isCleanText, NOT_TEXT_MESSAGES } from "@/server/validation";

/** docs/api.md, "Idempotency": kept 24 hours; keys up to 255 characters. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** A claim outside a transaction (`claimIdempotencyKey`) whose process died is taken over after this long. */
const CLAIM_LEASE_MS = 60_000;

export type { StoredResponse };

export type IdempotencyClaim = { kind: "claimed" } | { kind: "replay"; response: StoredResponse };

export function fingerprintOf(method: string, pathAndQuery: string, rawBody: string): string {
  return sha256Hex(`${method}\n${pathAndQuery}\n${sha256Hex(rawBody)}`);
}

export function validateIdempotencyKey(value: string): void {
  if (value.length === 0 || value.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    throw new AppError("invalid_request", {
      param: "Idempotency-Key",
      detail: {
        en: `Idempotency-Key must be 1-${IDEMPOTENCY_KEY_MAX_LENGTH} characters.`,
        es: `Idempotency-Key debe tener de 1 a ${IDEMPOTENCY_KEY_MAX_LENGTH} caracteres.`,
        pt: `Idempotency-Key deve ter de 1 a ${IDEMPOTENCY_KEY_MAX_LENGTH} caracteres.`,
      },
    });
  }
  if (!isCleanText(value)) {
    const detail: Partial<Messages> = {};
    for (const [language, message] of Object.entries(NOT_TEXT_MESSAGES)) {
      detail[language as Language] = `Idempotency-Key: ${message}`;
    }
    throw new AppError("invalid_request", { param: "Idempotency-Key", detail });
  }
}

/**
 * The check that opens an idempotent write, as the FIRST statement of the write's own transaction
 * (docs/api.md, "Idempotency"): it takes the key's transaction-scoped advisory lock and reads its record.
 *
 * - The lock is the "still running" marker: a twin that cannot take it answers 409
 *   `idempotency_request_in_progress`. PostgreSQL drops the lock with the transaction, whatever ends it
 *   (commit, rollback, a lost connection, a killed process), so a request that failed strands nothing and its
 *   retry runs at once (docs/operations.md, "Database outages").
 * - A finished record replays (same fingerprint) or is 409 `idempotency_key_reused` (another request).
 * - No record, or one past its 24 hours (or an abandoned lease of a write outside a transaction): the write runs,
 *   and `recordInTransaction` stores its answer in the same commit.
 */
export async function checkInTransaction(
  tx: Db,
  keyId: string,
  idempotencyKey: string,
  fingerprint: string,
  now: Date,
): Promise<IdempotencyClaim> {
  const [row] = await queryRows<{
    locked: boolean;
    fingerprint: string | null;
    state: "in_progress" | "done" | null;
    response_status: number | null;
    response_body: string | null;
    response_headers: Record<string, string> | null;
    created_at: string | Date | null;
    locked_until: string | Date | null;
  }>(
    tx,
    sql`select pg_try_advisory_xact_lock(hashtextextended(${keyId} || chr(10) || ${idempotencyKey}, 0)) as locked,
          k.fingerprint, k.state, k.response_status, k.response_body, k.response_headers, k.created_at,
          k.locked_until
        from (select 1) as one
        left join idempotency_keys k on k.key_id = ${keyId} and k.idempotency_key = ${idempotencyKey}`,
  );
  if (!row?.locked) throw inProgress();
  if (row.fingerprint === null || row.created_at === null) return { kind: "claimed" };
  const isExpired = new Date(row.created_at).getTime() < now.getTime() - IDEMPOTENCY_TTL_MS;
  const isAbandoned =
    row.state === "in_progress" &&
    row.locked_until !== null &&
    new Date(row.locked_until).getTime() < now.getTime();
  if (isExpired || isAbandoned) {
    // Taken over: gone in this transaction, so the write's own insert of its record finds no row.
    await tx
      .delete(idempotencyKeys)
      .where(and(eq(idempotencyKeys.keyId, keyId), eq(idempotencyKeys.idempotencyKey, idempotencyKey)));
    return { kind: "claimed" };
  }
  if (row.fingerprint !== fingerprint)
    throw new AppError("idempotency_key_reused", { param: "Idempotency-Key" });
  if (row.state === "in_progress") throw inProgress();
  return {
    kind: "replay",
    response: {
      status: row.response_status ?? 200,
      body: row.response_body ? decryptSecret(row.response_body) : "",
      headers: row.response_headers ?? {},
    },
  };
}

/** The finished record, stored by the write's own transaction after `checkInTransaction` (one commit). */
export async function recordInTransaction(
  tx: Db,
  keyId: string,
  idempotencyKey: string,
  fingerprint: string,
  response: StoredResponse,
  now: Date,
): Promise<void> {
  await tx.insert(idempotencyKeys).values(doneRecord(keyId, idempotencyKey, fingerprint, response, now));
}

/**
 * Stores a refusal of the operation (a 4xx) after its transaction rolled back, so a retry gets the same error.
 * A twin that finished meanwhile wins: its record is answered instead (same key, one answer).
 */
export async function recordRefusal(
  db: Db,
  keyId: string,
  idempotencyKey: string,
  fingerprint: string,
  response: StoredResponse,
  now: Date,
): Promise<IdempotencyClaim> {
  const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_TTL_MS);
  const inserted = await db
    .insert(idempotencyKeys)
    .values(doneRecord(keyId, idempotencyKey, fingerprint, response, now))
    .onConflictDoUpdate({
      target: [idempotencyKeys.keyId, idempotencyKeys.idempotencyKey],
      set: {
        fingerprint,
        state: "done",
        responseStatus: response.status,
        responseBody: sql`excluded.response_body`,
        responseHeaders: response.headers,
        lockedUntil: now,
        createdAt: now,
      },
      setWhere: sql`${idempotencyKeys.createdAt} < ${expiredBefore.toISOString()}`,
    })
    .returning({ keyId: idempotencyKeys.keyId });
  if (inserted.length > 0) return { kind: "claimed" };
  const stored = await storedResponseFor(db, keyId, idempotencyKey, fingerprint, now);
  return stored ? { kind: "replay", response: stored } : { kind: "claimed" };
}

function doneRecord(
  keyId: string,
  idempotencyKey: string,
  fingerprint: string,
  response: StoredResponse,
  now: Date,
) {
  return {
    keyId,
    idempotencyKey,
    fingerprint,
    state: "done" as const,
    responseStatus: response.status,
    // Encrypted: a stored response can hold a raw key or signing secret (bootstrap, create, rotate).
    responseBody: encryptSecret(response.body),
    responseHeaders: response.headers,
    lockedUntil: now,
    createdAt: now,
  };
}

function inProgress(): AppError {
  return new AppError("idempotency_request_in_progress", {
    param: "Idempotency-Key",
    retryAfterMs: 1000,
    nextActions: [{ label: "Retry the same request with the same Idempotency-Key shortly", operation: null }],
  });
}

/**
 * Claims (key, Idempotency-Key) for a write that runs outside a transaction (its effects must stand even when
 * it answers an error: `verifyEmail` counts a wrong code). The claim is committed at once, with a lease: a row
 * older than 24 h, or an in-progress claim whose lease expired, is taken over. Otherwise: same fingerprint and
 * done -> replay; different fingerprint -> 409 `idempotency_key_reused`; still running -> 409
 * `idempotency_request_in_progress`. The claim ends with `completeIdempotencyKey` or `releaseIdempotencyKey`.
 */
export async function claimIdempotencyKey(
  db: Db,
  keyId: string,
  idempotencyKey: string,
  fingerprint: string,
  now: Date,
): Promise<IdempotencyClaim> {
  const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_TTL_MS);
  const lockedUntil = new Date(now.getTime() + CLAIM_LEASE_MS);
  const claimed = await db
    .insert(idempotencyKeys)
    .values({ keyId, idempotencyKey, fingerprint, state: "in_progress", lockedUntil, createdAt: now })
    .onConflictDoUpdate({
      target: [idempotencyKeys.keyId, idempotencyKeys.idempotencyKey],
      set: {
        fingerprint,
        state: "in_progress",
        lockedUntil,
        createdAt: now,
        responseStatus: null,
        responseBody: null,
        responseHeaders: null,
      },
      setWhere: sql`${idempotencyKeys.createdAt} < ${expiredBefore.toISOString()}
        or (${idempotencyKeys.state} = 'in_progress' and ${idempotencyKeys.lockedUntil} < ${now.toISOString()})`,
    })
    .returning({ keyId: idempotencyKeys.keyId });
  if (claimed.length > 0) return { kind: "claimed" };

  const [existing] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.keyId, keyId), eq(idempotencyKeys.idempotencyKey, idempotencyKey)));
  if (!existing) return claimIdempotencyKey(db, keyId, idempotencyKey, fingerprint, now);
  if (existing.fingerprint !== fingerprint)
    throw new AppError("idempotency_key_reused", { param: "Idempotency-Key" });
  if (existing.state === "in_progress") throw inProgress();
  return {
    kind: "replay",
    response: {
      status: existing.responseStatus ?? 200,
      body: existing.responseBody ? decryptSecret(existing.responseBody) : "",
      headers: existing.responseHeaders ?? {},
    },
  };
}

/**
 * The live record of (key, Idempotency-Key) without claiming it, for a request refused before its operation
 * ran: null when there is none, or when a claim would take it over (older than 24 h, or an in-progress claim
 * whose lease ran out). A different fingerprint is 409 `idempotency_key_reused`, as in `claimIdempotencyKey`;
 * the same one answers the stored response when the first request finished (else null).
 */
export async function storedResponseFor(
  db: Db,
  keyId: string,
  idempotencyKey: string,
  fingerprint: string,
  now: Date,
): Promise<StoredResponse | null> {
  const [existing] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.keyId, keyId), eq(idempotencyKeys.idempotencyKey, idempotencyKey)));
  if (!existing || existing.createdAt.getTime() < now.getTime() - IDEMPOTENCY_TTL_MS) return null;
  if (existing.state === "in_progress" && existing.lockedUntil.getTime() < now.getTime()) return null;
  if (existing.fingerprint !== fingerprint)
    throw new AppError("idempotency_key_reused", { param: "Idempotency-Key" });
  if (existing.state !== "done") return null;
  return {
    status: existing.responseStatus ?? 200,
    body: existing.responseBody ? decryptSecret(existing.responseBody) : "",
    headers: existing.responseHeaders ?? {},
  };
}

/** Finishes a claim of `claimIdempotencyKey` with the final response. */
export async function completeIdempotencyKey(
  db: Db,
  keyId: string,
  idempotencyKey: string,
  response: StoredResponse,
): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({
      state: "done",
      responseStatus: response.status,
      // Encrypted: a stored response can hold a raw key or signing secret (bootstrap, create, rotate).
      responseBody: encryptSecret(response.body),
      responseHeaders: response.headers,
    })
    .where(and(eq(idempotencyKeys.keyId, keyId), eq(idempotencyKeys.idempotencyKey, idempotencyKey)));
}

/** True when a statement failed because its Idempotency-Key already has a record (see `idempotencyRecordCte`). */
export function isIdempotencyKeyTaken(error: unknown): boolean {
  return isUniqueViolationOn(error, "idempotency_keys");
}

/**
 * Releases a claim of `claimIdempotencyKey` whose request failed with a 5xx: nothing was recorded, so a retry
 * must run again. When the database itself is what failed, the release is tried again (every half second, for
 * as long as the lease lasts) so the key is free as soon as the database is back, not when the lease runs out.
 */
export async function releaseIdempotencyKey(db: Db, keyId: string, idempotencyKey: string): Promise<void> {
  const release = () =>
    db
      .delete(idempotencyKeys)
      .where(
        and(
          eq(idempotencyKeys.keyId, keyId),
          eq(idempotencyKeys.idempotencyKey, idempotencyKey),
          eq(idempotencyKeys.state, "in_progress"),
        ),
      );
  try {
    await release();
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    const giveUpAt = Date.now() + CLAIM_LEASE_MS;
    const retry = () => {
      release().then(
        () => log("info", "idempotency claim released after the database came back", { keyId }),
        (next: unknown) => {
          if (Date.now() < giveUpAt && isDatabaseUnavailable(next)) setTimeout(retry, 500).unref();
          else log("error", "could not release idempotency claim", { keyId, error: next });
        },
      );
    };
    setTimeout(retry, 500).unref();
  }
}

export async function purgeIdempotencyKeys(db: Db, now: Date): Promise<number> {
  const deleted = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_TTL_MS)))
    .returning({ keyId: idempotencyKeys.keyId });
  return deleted.length;
}
