import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { ErrorEnvelope } from "@/server/errors";
import { awayFromMinuteEdge, call } from "@/server/testing/api";
import { dayWindowStart, minuteWindowStart } from "./key-limits";

async function counters(keyId: string) {
  const db = await dbReady();
  const now = new Date();
  const rows = (await db.execute(
    sql`select bucket, count from rate_limit_counters where key_id = ${keyId}
        and ((bucket = 'm' and window_start = ${minuteWindowStart(now)}) or (bucket = 'd' and window_start = ${dayWindowStart(now)}))`,
  )) as unknown;
  const list = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as Array<{
    bucket: string;
    count: number;
  }>;
  return {
    minute: Number(list.find((r) => r.bucket === "m")?.count ?? 0),
    day: Number(list.find((r) => r.bucket === "d")?.count ?? 0),
  };
}

/** Starts at the beginning of a minute window so a test's burst cannot straddle two windows. */

// docs/api.md, "Rate limits": per-key buckets, counting, headers, Retry-After, fail open, day lock-out.
describe("rate limits", () => {
  it("rule 4: every authenticated response carries X-RateLimit-Limit, -Remaining and -Reset", async () => {
    await awayFromMinuteEdge();
    const dev = await createDeveloper({ rpm: 60 });
    const first = await call("GET", "/v1/me", { key: dev.key });
    expect(first.headers.get("x-ratelimit-limit")).toBe("60");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("59");
    const reset = Number(first.headers.get("x-ratelimit-reset"));
    expect(reset % 60).toBe(0);
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 60);
    const failing = await call("POST", "/v1/users", { key: dev.key, body: { email: "nope" } });
    expect(failing.status).toBe(400);
    expect(failing.headers.get("x-ratelimit-remaining")).toBe("58");
  });

  it("the 61st request in a minute gets 429 with Retry-After, retryAfterMs, recoverable, nextActions and rpm_exceeded in message", async () => {
    await awayFromMinuteEdge();
    const dev = await createDeveloper({ rpm: 60 });
    for (let i = 0; i < 60; i++) {
      const ok = await call("GET", "/v1/me", { key: dev.key });
      expect(ok.status).toBe(200);
    }
    const res = await call("GET", "/v1/me", { key: dev.key });
    expect(res.status).toBe(429);
    const { error } = ErrorEnvelope.parse(res.body);
    expect(error.type).toBe("rate_limited");
    expect(error.code).toBe("rate_limit_exceeded");
    expect(error.message).toContain("rpm_exceeded");
    expect(error.recoverable).toBe(true);
    expect(error.nextActions.length).toBeGreaterThan(0);
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(error.retryAfterMs).toBe(retryAfter * 1000);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(res.headers.get("x-ratelimit-limit")).toBe("60");
  });

  it("rule 6: a developer key with a daily budget of 3 is locked out for the rest of the UTC day", async () => {
    const dev = await createDeveloper({ dailyLimit: 3, rpm: 60 });
    for (let i = 0; i < 3; i++) expect((await call("GET", "/v1/me", { key: dev.key })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await call("GET", "/v1/me", { key: dev.key });
      expect(res.status).toBe(429);
      const { error } = ErrorEnvelope.parse(res.body);
      expect(error.message).toContain("rpd_exceeded");
      expect(error.message).not.toContain("rpm_exceeded");
      expect(error.code).toBe("rate_limit_exceeded");
      const retryAfter = Number(res.headers.get("retry-after"));
      const secondsToMidnight = Math.ceil(dayWindowStart(new Date()) + 86_400 - Date.now() / 1000);
      expect(retryAfter).toBeLessThanOrEqual(86_400);
      expect(Math.abs(retryAfter - secondsToMidnight)).toBeLessThanOrEqual(2);
    }
  });

  it("rules 1-2: requests counted together in one statement get exactly what counting them one by one gives", async () => {
    await awayFromMinuteEdge();
    // Concurrent requests share one counting statement while another is in flight (server/db/group-commit.ts).
    const minuteLimited = await createDeveloper({ rpm: 5 });
    const dayLimited = await createDeveloper({ rpm: 60, dailyLimit: 3 });
    const revoked = await createDeveloper();
    const db = await dbReady();
    await db.execute(sql`update api_keys set revoked_at = now() where id = ${revoked.keyId}`);
    const unknownKey = `${minuteLimited.key.slice(0, -1)}${minuteLimited.key.endsWith("X") ? "Y" : "X"}`;

    const burst = [
      ...Array.from({ length: 12 }, () => ({ who: "minute", key: minuteLimited.key })),
      ...Array.from({ length: 8 }, () => ({ who: "day", key: dayLimited.key })),
      ...Array.from({ length: 3 }, () => ({ who: "revoked", key: revoked.key })),
      ...Array.from({ length: 3 }, () => ({ who: "unknown", key: unknownKey })),
    ];
    const results = await Promise.all(
      burst.map(async ({ who, key }) => {
        const res = await call("GET", "/v1/me", { key });
        const code = res.status === 200 ? "ok" : ErrorEnvelope.parse(res.body).error.code;
        return { who, status: res.status, code, remaining: res.headers.get("x-ratelimit-remaining") };
      }),
    );
    const of = (who: string) => results.filter((r) => r.who === who);

    // rpm 5: exactly five admitted, seeing 4..0 remaining; the other seven are 429s that do not touch the day.
    expect(
      of("minute")
        .filter((r) => r.status === 200)
        .map((r) => r.remaining)
        .sort(),
    ).toEqual(["0", "1", "2", "3", "4"]);
    expect(of("minute").filter((r) => r.status === 429)).toHaveLength(7);
    expect(await counters(minuteLimited.keyId)).toEqual({ minute: 12, day: 5 });

    // Daily budget 3: three admitted, five 429s (rpd); all eight passed the minute bucket, so all count.
    expect(of("day").filter((r) => r.status === 200)).toHaveLength(3);
    expect(of("day").filter((r) => r.status === 429)).toHaveLength(5);
    expect(await counters(dayLimited.keyId)).toEqual({ minute: 8, day: 8 });

    // Revoked and unknown keys are rejected and never counted.
    expect(new Set(of("revoked").map((r) => `${r.status} ${r.code}`))).toEqual(
      new Set(["401 api_key_revoked"]),
    );
    expect(new Set(of("unknown").map((r) => `${r.status} ${r.code}`))).toEqual(
      new Set(["401 invalid_api_key"]),
    );
    expect(await counters(revoked.keyId)).toEqual({ minute: 0, day: 0 });
  });

  it("rule 2: 4xx responses count", async () => {
    const dev = await createDeveloper();
    await call("POST", "/v1/users", { key: dev.key, body: { email: "not-an-email" } });
    await call("POST", "/v1/users", { key: dev.key, rawBody: "{broken" });
    expect(await counters(dev.keyId)).toEqual({ minute: 2, day: 2 });
  });

  it("rule 3: unauthenticated requests and /healthz are not counted", async () => {
    const dev = await createDeveloper();
    await call("GET", "/v1/me");
    // A key that differs in its last character (never the same character: 1 in 62 keys end in "X").
    const unknownKey = `${dev.key.slice(0, -1)}${dev.key.endsWith("X") ? "Y" : "X"}`;
    await call("GET", "/v1/me", { key: unknownKey });
    await call("GET", "/v1/openapi.json");
    expect(await counters(dev.keyId)).toEqual({ minute: 0, day: 0 });
    expect((await call("GET", "/v1/me", { key: dev.key })).headers.get("x-ratelimit-remaining")).toBe(
      String(100_000 - 1),
    );
  });

  describe("rule 3: fail open", () => {
    afterEach(async () => {
      const db = await dbReady();
      await db.execute(sql`alter table if exists rate_limit_counters_gone rename to rate_limit_counters`);
    });

    it("when the counter store fails, the request proceeds without increment and without 429", async () => {
      const dev = await createDeveloper({ rpm: 1 });
      expect((await call("GET", "/v1/me", { key: dev.key })).status).toBe(200);
      expect((await call("GET", "/v1/me", { key: dev.key })).status).toBe(429);
      const db = await dbReady();
      // A real failure of the store: its table is gone.
      await db.execute(sql`alter table rate_limit_counters rename to rate_limit_counters_gone`);
      const res = await call("POST", "/v1/users", { key: dev.key, body: { email: "failopen@example.com" } });
      expect(res.status).toBe(201);
      expect(res.headers.get("x-ratelimit-limit")).toBe("1");
    });
  });
});
