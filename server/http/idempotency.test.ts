import { count, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDeveloper, uniqueEmail } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { ErrorEnvelope } from "@/server/errors";
import { accounts } from "@/server/gate/tables";
import { call } from "@/server/testing/api";

async function accountsWithEmail(email: string): Promise<number> {
  const db = await dbReady();
  const [row] = await db.select({ n: count() }).from(accounts).where(eq(accounts.email, email));
  return row?.n ?? 0;
}

// docs/api.md, "Idempotency".
describe("idempotency", () => {
  it("a retried 201 is replayed: same status, body and request id, Idempotent-Replayed, written once", async () => {
    const dev = await createDeveloper();
    const email = uniqueEmail();
    const headers = { "idempotency-key": "create-user-1" };
    const first = await call("POST", "/v1/users", { key: dev.key, body: { email }, headers });
    const second = await call("POST", "/v1/users", { key: dev.key, body: { email }, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(second.headers.get("x-request-id")).toBe(first.headers.get("x-request-id"));
    expect(await accountsWithEmail(email)).toBe(1);
  });

  it("the record is part of the write's commit: when storing it fails, nothing is written and a retry runs again", async () => {
    // The record travels with COMMIT un-awaited (server/db/round-trips.ts); a failure there must not be lost.
    const db = await dbReady();
    await db.execute(sql`create function marea_test_fail_record() returns trigger language plpgsql as $$
      begin if new.state = 'done' then raise exception 'record store failed'; end if; return new; end $$`);
    await db.execute(sql`create trigger marea_test_fail_record before insert or update on idempotency_keys
      for each row execute function marea_test_fail_record()`);
    const dev = await createDeveloper();
    const email = uniqueEmail();
    const headers = { "idempotency-key": "record-fails" };
    try {
      const failed = await call("POST", "/v1/users", { key: dev.key, body: { email }, headers });
      expect(failed.status).toBe(500);
      expect(ErrorEnvelope.parse(failed.body).error.code).toBe("internal_error");
      expect(await accountsWithEmail(email)).toBe(0);
    } finally {
      await db.execute(sql`drop trigger marea_test_fail_record on idempotency_keys`);
      await db.execute(sql`drop function marea_test_fail_record()`);
    }
    const retried = await call("POST", "/v1/users", { key: dev.key, body: { email }, headers });
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(await accountsWithEmail(email)).toBe(1);
  });

  it("concurrent requests with different keys are each claimed once, then each replayed (claims share statements)", async () => {
    const dev = await createDeveloper();
    const requests = Array.from({ length: 20 }, (_, i) => ({
      email: uniqueEmail(),
      headers: { "idempotency-key": `batch-${i}` },
    }));
    const send = () =>
      Promise.all(
        requests.map(({ email, headers }) =>
          call("POST", "/v1/users", { key: dev.key, body: { email }, headers }),
        ),
      );
    const first = await send();
    expect(first.map((r) => r.status)).toEqual(requests.map(() => 201));
    expect(first.every((r) => r.headers.get("idempotent-replayed") === null)).toBe(true);
    const again = await send();
    expect(again.map((r) => r.headers.get("idempotent-replayed"))).toEqual(requests.map(() => "true"));
    expect(again.map((r) => r.text)).toEqual(first.map((r) => r.text));
    for (const { email } of requests) expect(await accountsWithEmail(email)).toBe(1);
  });

  it("a retried failed write returns the original error, not a 200", async () => {
    const dev = await createDeveloper();
    const email = uniqueEmail();
    expect((await call("POST", "/v1/users", { key: dev.key, body: { email } })).status).toBe(201);
    const headers = { "idempotency-key": "dup-email" };
    const first = await call("POST", "/v1/users", { key: dev.key, body: { email }, headers });
    expect(first.status).toBe(409);
    expect(ErrorEnvelope.parse(first.body).error.code).toBe("email_taken");
    const replay = await call("POST", "/v1/users", { key: dev.key, body: { email }, headers });
    expect(replay.status).toBe(409);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  it("the same key with a different body: 409 idempotency_conflict / idempotency_key_reused", async () => {
    const dev = await createDeveloper();
    const headers = { "idempotency-key": "reuse-me" };
    expect(
      (await call("POST", "/v1/users", { key: dev.key, body: { email: uniqueEmail() }, headers })).status,
    ).toBe(201);
    const res = await call("POST", "/v1/users", { key: dev.key, body: { email: uniqueEmail() }, headers });
    expect(res.status).toBe(409);
    expect(ErrorEnvelope.parse(res.body).error).toMatchObject({
      type: "idempotency_conflict",
      code: "idempotency_key_reused",
      recoverable: false,
    });
  });

  it("keys are scoped per API key: another key may use the same Idempotency-Key", async () => {
    const a = await createDeveloper();
    const b = await createDeveloper();
    const headers = { "idempotency-key": "shared-name" };
    expect(
      (await call("POST", "/v1/users", { key: a.key, body: { email: uniqueEmail() }, headers })).status,
    ).toBe(201);
    expect(
      (await call("POST", "/v1/users", { key: b.key, body: { email: uniqueEmail() }, headers })).status,
    ).toBe(201);
  });

  it("50 concurrent requests with the same key write exactly once; the others replay or see in-progress 409", async () => {
    const dev = await createDeveloper();
    const email = uniqueEmail();
    const headers = { "idempotency-key": "burst" };
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call("POST", "/v1/users", { key: dev.key, body: { email }, headers })),
    );
    expect(await accountsWithEmail(email)).toBe(1);
    const created = results.filter((r) => r.status === 201);
    const inProgress = results.filter((r) => r.status === 409);
    expect(created.length + inProgress.length).toBe(50);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const userKeys = new Set(created.map((r) => (r.body as { userKey: string }).userKey));
    expect(userKeys.size).toBe(1);
    for (const r of inProgress) {
      expect(ErrorEnvelope.parse(r.body).error).toMatchObject({
        type: "idempotency_conflict",
        code: "idempotency_request_in_progress",
        recoverable: true,
      });
    }
  });

  it("an Idempotency-Key over 255 characters is rejected with param Idempotency-Key", async () => {
    const dev = await createDeveloper();
    const res = await call("POST", "/v1/users", {
      key: dev.key,
      body: { email: uniqueEmail() },
      headers: { "idempotency-key": "k".repeat(256) },
    });
    expect(res.status).toBe(400);
    expect(ErrorEnvelope.parse(res.body).error).toMatchObject({
      code: "invalid_request",
      param: "Idempotency-Key",
    });
  });
});

describe("idempotency store at rest", () => {
  it("keeps stored responses encrypted: a raw user key never sits in the database in clear", async () => {
    const dev = await createDeveloper();
    const res = await call<{ userKey: string }>("POST", "/v1/users", {
      key: dev.key,
      body: { email: uniqueEmail() },
      headers: { "idempotency-key": "secret-at-rest" },
    });
    expect(res.status).toBe(201);
    const db = await dbReady();
    const { idempotencyKeys } = await import("@/server/db/tables");
    const [row] = await db.select().from(idempotencyKeys).where(eq(idempotencyKeys.keyId, dev.keyId));
    expect(row?.responseBody).toMatch(/^v1:/);
    expect(row?.responseBody).not.toContain(res.body.userKey);
    // The replay (decrypted) is byte-identical: see "a retried 201 is replayed".
  });
});
