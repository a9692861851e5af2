import { type SQLWrapper, sql } from "drizzle-orm";
import type { Db } from "@/server/db/client";
import { idempotencyKeys } from "@/server/db/tables";
import { encryptSecret } from "@/server/lib/secrets";

/**
 * The one-statement idempotency record (docs/operations.md, "Database round trips"): for a write that is ONE
 * statement, the /v1 pipeline's Idempotency-Key record travels in that same statement, so the write and its
 * record commit together without a transaction. Services that offer such a write (product create) take an
 * `IdempotencyRecord` and add `idempotencyRecordCte` to their statement; they know nothing else of HTTP.
 */

/** A stored answer: status, body and headers, replayed as they were. */
export type StoredResponse = { status: number; body: string; headers: Record<string, string> };

/**
 * A success to store in the same statement as its write (see `idempotencyRecordCte`). With `claim`, the key
 * was not claimed beforehand: the statement inserts the finished record itself (the fast path for a fresh
 * key); without it, the statement finishes the claim this request already holds.
 */
export type IdempotencyRecord = {
  keyId: string;
  idempotencyKey: string;
  response: StoredResponse;
  claim?: { fingerprint: string; now: Date };
};

/**
 * The stored response as a CTE of the write's OWN statement, for operations whose whole write is one statement
 * (product create): it stores the response only when `written`, a CTE of the same statement, has a row. One
 * statement is atomic, so the write and its record commit together or not at all, with no transaction and one
 * round trip. Its values are placeholders (filled by `idempotencyRecordValues`), so the statement can be built
 * once and prepared. Values go in as text and are cast in SQL: a prepared `$n::jsonb` would make postgres.js
 * encode the already-encoded headers a second time.
 *
 * `claims`: the CTE INSERTS the finished record instead of updating a claimed one, so a fresh key costs no
 * claim round trip. A key that already has a record (a retry, a concurrent twin, an expired record) makes the
 * insert, and with it the whole statement, fail with a unique violation: nothing is written, and the caller
 * falls back to the claim (`isIdempotencyKeyTaken`).
 */
export function idempotencyRecordCte(db: Db, written: SQLWrapper, claims: boolean) {
  const status = sql`${sql.placeholder("recordStatus")}::text::int`;
  const body = sql`${sql.placeholder("recordBody")}::text`;
  const headers = sql`${sql.placeholder("recordHeaders")}::text::jsonb`;
  const keyId = sql`${sql.placeholder("recordKeyId")}::text`;
  const idempotencyKey = sql`${sql.placeholder("recordIdempotencyKey")}::text`;
  if (claims) {
    const now = sql`${sql.placeholder("recordNow")}::text::timestamptz`;
    return db.$with("idempotency_record", {}).as(
      sql`insert into ${idempotencyKeys} (key_id, idempotency_key, fingerprint, state, response_status,
            response_body, response_headers, locked_until, created_at)
          select ${keyId}, ${idempotencyKey}, ${sql.placeholder("recordFingerprint")}::text, 'done', ${status},
            ${body}, ${headers}, ${now}, ${now}
          where exists (select 1 from ${written})
          returning 1`,
    );
  }
  return db.$with("idempotency_record", {}).as(
    sql`update ${idempotencyKeys} set state = 'done', response_status = ${status}, response_body = ${body},
          response_headers = ${headers}
        where key_id = ${keyId} and idempotency_key = ${idempotencyKey} and exists (select 1 from ${written})
        returning 1`,
  );
}

export function idempotencyRecordValues(record: IdempotencyRecord): Record<string, string> {
  return {
    recordStatus: String(record.response.status),
    // Encrypted, as in completeIdempotencyKey.
    recordBody: encryptSecret(record.response.body),
    recordHeaders: JSON.stringify(record.response.headers),
    recordKeyId: record.keyId,
    recordIdempotencyKey: record.idempotencyKey,
    ...(record.claim
      ? { recordFingerprint: record.claim.fingerprint, recordNow: record.claim.now.toISOString() }
      : {}),
  };
}
