import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { startTcpProxy, type TcpProxy } from "@/server/testing/tcp-proxy";
import { eventually } from "@/server/webhooks/testing";
import { type ChangeRelay, STOREFRONT_CHANNEL, startStorefrontChangeRelay } from "./change-relay";
import { type ChangeOrigin, EVERY_STOREFRONT, onStorefrontChanged, type StorefrontChange } from "./changes";

// docs/operations.md, "Public storefront cache": every process hears the storefront changes of every other through
// NOTIFY/LISTEN, and one that may have missed some (its LISTEN session lost) expires every public page.
describe.skipIf(testDatabaseKind() !== "postgres")("the storefront change relay", () => {
  let proxy: TcpProxy;
  let relay: ChangeRelay;
  let outside: postgres.Sql;
  const heardOutside: string[] = [];
  const announced: Array<{ change: StorefrontChange | typeof EVERY_STOREFRONT; origin: ChangeOrigin }> = [];
  let off: () => void;

  beforeAll(async () => {
    const direct = process.env.DIRECT_DATABASE_URL ?? "";
    const target = new URL(direct);
    // The LISTEN session goes through a proxy this file cuts; the pool (NOTIFY) does not.
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    process.env.DIRECT_DATABASE_URL = proxy.url(direct);
    resetEnvForTests();
    off = onStorefrontChanged((change, origin) => announced.push({ change, origin }));
    outside = postgres(direct, { max: 2, onnotice: () => {} });
    await outside.listen(STOREFRONT_CHANNEL, (payload) => heardOutside.push(payload));
    relay = startStorefrontChangeRelay();
  });

  afterAll(async () => {
    off();
    await relay?.stop();
    await outside?.end();
    await closeDb();
    await proxy?.close();
  });

  it("once listening, the process expires every page it holds (it may have missed changes before)", async () => {
    await eventually(async () => announced.some((a) => a.change === EVERY_STOREFRONT));
  });

  it("a change made here is sent to the other processes, once, with a payload they can read", async () => {
    const { notifyStorefrontChanged } = await import("./changes");
    notifyStorefrontChanged({ storefrontId: "stf_here", slug: "here" });
    notifyStorefrontChanged({ storefrontId: "stf_here", slug: "here" });
    await eventually(async () => heardOutside.some((p) => p.includes("stf_here")));
    const payloads = heardOutside.filter((p) => p.includes("stf_here")).map((p) => JSON.parse(p));
    expect(payloads).toHaveLength(1);
    expect(payloads[0].c).toEqual([["stf_here", "here"]]);
    // and not announced again here as if another process had made it
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(announced.filter((a) => a.origin === "remote" && a.change !== EVERY_STOREFRONT)).toEqual([]);
  });

  it("a change another process makes is announced here as remote", async () => {
    const payload = JSON.stringify({ o: "another-process", c: [["stf_there", "there"], ["stf_noslug"]] });
    await outside`select pg_notify(${STOREFRONT_CHANNEL}, ${payload})`;
    await eventually(async () =>
      announced.some((a) => a.origin === "remote" && a.change !== EVERY_STOREFRONT),
    );
    expect(announced.filter((a) => a.origin === "remote" && a.change !== EVERY_STOREFRONT)).toEqual([
      { change: { storefrontId: "stf_there", slug: "there" }, origin: "remote" },
      { change: { storefrontId: "stf_noslug", slug: undefined }, origin: "remote" },
    ]);
  });

  it("after its LISTEN session was lost, the process expires every public page once it listens again", async () => {
    announced.length = 0;
    await proxy.cut("reset");
    // sent while this process cannot hear: lost for it
    await outside`select pg_notify(${STOREFRONT_CHANNEL}, ${JSON.stringify({ o: "x", c: [["stf_missed"]] })})`;
    await new Promise((resolve) => setTimeout(resolve, 500));
    await proxy.restore();
    await eventually(async () => announced.some((a) => a.change === EVERY_STOREFRONT), 10_000);
    expect(
      announced.some((a) => a.change !== EVERY_STOREFRONT && a.change.storefrontId === "stf_missed"),
    ).toBe(false);
  });
});
