import { and, eq, lt, sql } from "drizzle-orm";
import { type Db, queryRows } from "@/server/db/client";
import { GroupCommit } from "@/server/db/group-commit";
import type { StoredResponse } from "@/server/db/idempotency-record";
import { isUniqueViolationOn } from "@/server/db/transaction";
import { AppError, type Language, type Messages } from "@/server/errors";
import { sha256Hex } from "@/server/lib/crypto";
import { decryptSecret, encryptSecret } from "@/server/lib/secrets";
import { isCleanText, NOT_TEXT_MESSAGES } from "@/server/validation";
import { idempotencyKeys } from "./tables";

/** docs/api.md, "Idempotency": kept 24 hours; keys up to 255 characters. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** An in-progress claim whose process died is taken over after this long. */
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

type ClaimRequest = { keyId: string; idempotencyKey: string; fingerprint: string; now: Date };

/** Concurrent claims share one insert (server/db/group-commit.ts); the same key twice waits for the next one. */
const claims = new GroupCommit<ClaimRequest, boolean>(
  (db, batch) => claimBatch(db, batch),
  (batch, item) =>
    !batch.some((other) => other.keyId === item.keyId && other.idempotencyKey === item.idempotencyKey),
);

/**
 * Claims (key, Idempotency-Key) with one atomic insert. A row older than 24 h, or an in-progress claim whose
 * lease expired, is taken over. Otherwise: same fingerprint and done -> replay; different fingerprint -> 409
 * `idempotency_key_reused`; still running -> 409 `idempotency_request_in_progress`.
 */
export async function claimIdempotencyKey(
  db: Db,
  keyId: string,
  idempotencyKey: string,
  fingerprint: string,
  now: Date,
): Promise<IdempotencyClaim> {
  const claimed = await claims.submit(db, { keyId, idempotencyKey, fingerprint, now });
  if (claimed) return { kind: "claimed" };

  const [existing] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.keyId, keyId), eq(idempotencyKeys.idempotencyKey, idempotencyKey)));
  if (!existing) return claimIdempotencyKey(db, keyId, idempotencyKey, fingerprint, now);
  if (existing.fingerprint !== fingerprint)
    throw new AppError("idempotency_key_reused", { param: "Idempotency-Key" });
  if (existing.state === "in_progress") {
    throw new AppError("idempotency_request_in_progress", {
      param: "Idempotency-Key",
      retryAfterMs: 1000,
      nextActions: [
        { label: "Retry the same request with the same Idempotency-Key shortly", operation: null },
      ],
    });
  }
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

/**
 * ONE insert for a batch of claims (distinct keys), timed by the batch's first request. Answers, per claim,
 * whether it was taken: a new row, or a row taken over because it expired or its lease ran out.
 */
async function claimBatch(db: Db, batch: ClaimRequest[]): Promise<boolean[]> {
  const now = batch[0]?.now ?? new Date();
  const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_TTL_MS);
  const lockedUntil = new Date(now.getTime() + CLAIM_LEASE_MS);
  const batchJson = JSON.stringify(
    batch.map((claim) => ({ k: claim.keyId, i: claim.idempotencyKey, f: claim.fingerprint })),
  );
  const rows = await queryRows<{ key_id: string; idempotency_key: string }>(
    db,
    sql`insert into idempotency_keys (key_id, idempotency_key, fingerprint, state, locked_until, created_at)
        select c.k, c.i, c.f, 'in_progress', ${lockedUntil.toISOString()}, ${now.toISOString()}
        from jsonb_to_recordset(${batchJson}::jsonb) as c(k text, i text, f text)
        on conflict (key_id, idempotency_key) do update set
          fingerprint = excluded.fingerprint, state = 'in_progress', locked_until = excluded.locked_until,
          created_at = excluded.created_at, response_status = null, response_body = null, response_headers = null
        where idempotency_keys.created_at < ${expiredBefore.toISOString()}
           or (idempotency_keys.state = 'in_progress' and idempotency_keys.locked_until < ${now.toISOString()})
        returning key_id, idempotency_key`,
  );
  const taken = new Set(rows.map((row) => `${row.key_id}\n${row.idempotency_key}`));
  return batch.map((claim) => taken.has(`${claim.keyId}\n${claim.idempotencyKey}`));
}

/** Stores the final response; called inside the write's transaction for successes (same commit as the write). */
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

/** Releases a claim whose request failed with a 5xx: nothing was written, so a retry must run again. */
export async function releaseIdempotencyKey(db: Db, keyId: string, idempotencyKey: string): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.keyId, keyId),
        eq(idempotencyKeys.idempotencyKey, idempotencyKey),
        eq(idempotencyKeys.state, "in_progress"),
      ),
    );
}

export async function purgeIdempotencyKeys(db: Db, now: Date): Promise<number> {
  const deleted = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_TTL_MS)))
    .returning({ keyId: idempotencyKeys.keyId });
  return deleted.length;
}
