import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { dbReady } from "./client";
import { inSavepoint, inTransaction, isDeadlock, retryOnDeadlock } from "./transaction";

// docs/architecture.md, "Transactions and savepoints".

describe("transactions", () => {
  it("inTransaction joins the caller's transaction; inSavepoint undoes only itself", async () => {
    const db = await dbReady();
    await db.execute(sql`create table if not exists test_tx_rows (id int primary key)`);
    await inTransaction(db, async (tx) => {
      await tx.execute(sql`insert into test_tx_rows values (1)`);
      await inSavepoint(tx, async (inner) => {
        await inner.execute(sql`insert into test_tx_rows values (2)`);
        throw new Error("this step fails");
      }).catch(() => undefined);
      await inTransaction(tx, (joined) => joined.execute(sql`insert into test_tx_rows values (3)`));
    });
    const rows = await db.execute(sql`select id from test_tx_rows order by id`);
    const ids = (Array.isArray(rows) ? rows : (rows as { rows: Array<{ id: number }> }).rows).map(
      (r) => r.id,
    );
    expect(ids).toEqual([1, 3]);
  });

  // A real deadlock needs two connections: PostgreSQL only (PGlite is one connection).
  it.skipIf(testDatabaseKind() === "pglite")(
    "retryOnDeadlock runs the victim of a real deadlock again, and both transactions commit",
    async () => {
      const db = await dbReady();
      await db.execute(sql`create table if not exists test_deadlock (id int primary key, n int not null)`);
      await db.execute(sql`insert into test_deadlock values (1, 0), (2, 0) on conflict (id) do nothing`);
      let victims = 0;
      let bothHoldTheirFirstRow: () => void = () => {};
      const firstRowsLocked = new Promise<void>((resolve) => {
        let held = 0;
        bothHoldTheirFirstRow = () => {
          held++;
          if (held === 2) resolve();
        };
      });
      let firstRound = true;
      let survivorCommitted: () => void = () => {};
      const aTransactionCommitted = new Promise<void>((resolve) => {
        survivorCommitted = resolve;
      });
      // Each transaction locks its first row, waits until the other holds its own, then wants the other's. The
      // victim's retry starts once the survivor committed: started sooner, on a loaded machine it can take its
      // first row back before the survivor wakes up, and cross it a second time.
      const crossing = (first: number, second: number) =>
        retryOnDeadlock(() =>
          inTransaction(db, async (tx) => {
            if (!firstRound) await aTransactionCommitted;
            await tx.execute(sql`update test_deadlock set n = n + 1 where id = ${first}`);
            if (firstRound) {
              bothHoldTheirFirstRow();
              await firstRowsLocked;
            }
            await tx.execute(sql`update test_deadlock set n = n + 1 where id = ${second}`);
          })
            .then(() => survivorCommitted())
            .catch((error: unknown) => {
              if (isDeadlock(error)) {
                victims++;
                firstRound = false;
              }
              throw error;
            }),
        );
      await Promise.all([crossing(1, 2), crossing(2, 1)]);
      expect(victims).toBe(1);
      const rows = await db.execute(sql`select n from test_deadlock order by id`);
      const counts = (Array.isArray(rows) ? rows : (rows as { rows: Array<{ n: number }> }).rows).map(
        (r) => r.n,
      );
      // Both transactions committed in the end: each row was bumped twice.
      expect(counts).toEqual([2, 2]);
    },
  );

  it("isDeadlock reads the code through drizzle's wrapper (the driver's error is the cause)", () => {
    const wrapped = Object.assign(new Error("Failed query"), {
      cause: Object.assign(new Error("deadlock"), { code: "40P01" }),
    });
    expect(isDeadlock(wrapped)).toBe(true);
    expect(isDeadlock(Object.assign(new Error("x"), { code: "23505" }))).toBe(false);
  });
});
