import { describe, expect, it } from "vitest";
import { nextState, parseRetrySchedule } from "./schedule";

// docs/webhooks.md, "Delivery" (the schedule) and "Configuration" (WEBHOOK_RETRY_SCHEDULE).
describe("parseRetrySchedule", () => {
  it("reads the default 0s,30s,5m as offsets in ms", () => {
    expect(parseRetrySchedule("0s,30s,5m")).toEqual([0, 30_000, 300_000]);
    expect(parseRetrySchedule("0ms, 250ms, 1.5s, 1h")).toEqual([0, 250, 1500, 3_600_000]);
  });
  it("refuses unreadable or decreasing schedules", () => {
    expect(() => parseRetrySchedule("0s,soon")).toThrow();
    expect(() => parseRetrySchedule("0s,5m,30s")).toThrow();
  });
});

describe("nextState", () => {
  const schedule = [0, 30_000, 300_000];
  const first = new Date("2026-05-12T10:00:00.000Z");

  it("attempt 1 fails: failed, attempt 2 at +30 s from the first dispatch", () => {
    const state = nextState({ attemptCount: 0, firstDispatchAt: new Date(0) }, false, first, schedule);
    expect(state).toEqual({
      status: "failed",
      nextAttemptAt: new Date(first.getTime() + 30_000),
      firstDispatchAt: first,
    });
  });

  it("attempt 2 fails (even late): attempt 3 at +5 min from the FIRST dispatch, not from attempt 2", () => {
    const late = new Date(first.getTime() + 90_000);
    const state = nextState({ attemptCount: 1, firstDispatchAt: first }, false, late, schedule);
    expect(state.nextAttemptAt).toEqual(new Date(first.getTime() + 300_000));
    expect(state.status).toBe("failed");
  });

  it("attempt 3 fails: max_attempts_reached, nothing scheduled", () => {
    const state = nextState({ attemptCount: 2, firstDispatchAt: first }, false, new Date(), schedule);
    expect(state).toMatchObject({ status: "max_attempts_reached", nextAttemptAt: null });
  });

  it("any attempt that succeeds: delivered", () => {
    for (const attemptCount of [0, 1, 2])
      expect(nextState({ attemptCount, firstDispatchAt: first }, true, new Date(), schedule)).toMatchObject({
        status: "delivered",
        nextAttemptAt: null,
      });
  });
});
