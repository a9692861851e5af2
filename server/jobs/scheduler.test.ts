import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dbReady, queryRows } from "@/server/db/client";
import { claimDueJobs, hostId, periodStart } from "./scheduler";

// docs/operations.md, "Scheduled jobs": each job runs once per period across every process of every host.
describe("claiming scheduled jobs", () => {
  const jobs = ["purge-idempotency-keys", "expire-public-orders"];

  it("hosts claiming at once: each job's period goes to exactly one of them", async () => {
    const db = await dbReady();
    const now = new Date("2031-03-04T05:06:07Z");
    const claims = await Promise.all(
      ["h1:1", "h2:2", "h3:3", "h4:4"].map((host) => claimDueJobs(db, jobs, now, host)),
    );
    const all = claims.flat();
    expect(all.map((c) => c.job).sort()).toEqual([...jobs].sort());
    // an hourly job and a 10-minute one: their periods start on the clock
    expect(all.find((c) => c.job === "purge-idempotency-keys")?.periodStart.toISOString()).toBe(
      "2031-03-04T05:00:00.000Z",
    );
    expect(periodStart("expire-public-orders", now).toISOString()).toBe("2031-03-04T05:00:00.000Z");
    // later in the same period: nothing left to claim
    expect(await claimDueJobs(db, jobs, new Date("2031-03-04T05:08:00Z"), "h5:5")).toEqual([]);
    // the next period of the 10-minute job only
    const next = await claimDueJobs(db, jobs, new Date("2031-03-04T05:11:00Z"), "h5:5");
    expect(next.map((c) => c.job)).toEqual(["expire-public-orders"]);
  });

  it("a run whose process died is taken over once its lease ends; a finished one never", async () => {
    const db = await dbReady();
    const now = new Date("2031-05-01T10:00:30Z");
    const [first] = await claimDueJobs(db, ["purge-mail"], now, "dead:1");
    expect(first?.job).toBe("purge-mail");
    // within the 10-minute lease: still the dead process's
    expect(await claimDueJobs(db, ["purge-mail"], new Date("2031-05-01T10:05:00Z"), hostId())).toEqual([]);
    const taken = await claimDueJobs(db, ["purge-mail"], new Date("2031-05-01T10:11:00Z"), hostId());
    expect(taken.map((c) => c.job)).toEqual(["purge-mail"]);
    const rows = await queryRows<{ host: string }>(
      db,
      sql`select host from scheduled_job_runs where job = 'purge-mail' and period_start = '2031-05-01T10:00:00Z'`,
    );
    expect(rows).toEqual([{ host: hostId() }]);
    await db.execute(sql`update scheduled_job_runs set status = 'done' where job = 'purge-mail'`);
    expect(await claimDueJobs(db, ["purge-mail"], new Date("2031-05-01T10:40:00Z"), "late:2")).toEqual([]);
  });
});
