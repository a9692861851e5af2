import { describe, expect, it } from "vitest";
import { dbReady } from "@/server/db/client";
import { publicOrderRateLimits } from "@/server/orders/tables";
import { countInFixedWindow, windowStartOf } from "./fixed-window";

// The shared fixed-window limiter (the sign-in limits and the public order limit use it): exact under
// concurrency, one window per period, keys stored hashed.
describe("fixed-window counting", () => {
  it("30 concurrent requests against a limit of 10: exactly 10 pass; the next window starts again", async () => {
    const db = await dbReady();
    const now = new Date("2026-06-01T12:00:30Z");
    const key = `ip:203.0.113.${Math.floor(Math.random() * 250)}-${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        countInFixedWindow(db, publicOrderRateLimits, {
          buckets: [{ key, limit: 10 }],
          windowSeconds: 60,
          now,
        }),
      ),
    );
    expect(results.filter((r) => !r.isOver)).toHaveLength(10);
    expect(results[0]?.retryAfterMs).toBe(30_000);
    const next = await countInFixedWindow(db, publicOrderRateLimits, {
      buckets: [{ key, limit: 10 }],
      windowSeconds: 60,
      now: new Date("2026-06-01T12:01:00Z"),
    });
    expect(next.isOver).toBe(false);
    const rows = await db.select().from(publicOrderRateLimits);
    expect(rows.some((row) => row.key.includes("203.0.113"))).toBe(false);
    expect(windowStartOf(now, 60)).toBe(Date.parse("2026-06-01T12:00:00Z") / 1000);
  });
});
