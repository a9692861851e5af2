import { afterAll, describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { call } from "@/server/testing/api";
import { type RunningProcess, startTsxProcess } from "@/server/testing/processes";
import { testDatabaseKind } from "@/server/testing/setup-db";

const running: RunningProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
});

async function awayFromMinuteEdge(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 50));
}

// docs/api.md, "Rate limits": counting is atomic per key, across every server process sharing the database.
describe("rate limit under concurrency", () => {
  it("100 concurrent requests for one key admit exactly 60", async () => {
    await awayFromMinuteEdge();
    const dev = await createDeveloper({ rpm: 60 });
    let statuses: number[];
    if (testDatabaseKind() === "postgres") {
      // Two server instances (plain node:http around the same pipeline) on the same PostgreSQL database.
      const servers = await Promise.all(
        [0, 1].map(() =>
          startTsxProcess(
            "server/host/serve-v1.ts",
            ["0"],
            { DATABASE_URL: process.env.DATABASE_URL, LOG_LEVEL: "error" },
            /ready (\d+)/,
          ),
        ),
      );
      running.push(...servers);
      const ports = servers.map((s) => Number(s.match[1]));
      statuses = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          fetch(`http://127.0.0.1:${ports[i % 2]}/v1/me`, {
            headers: { authorization: `Bearer ${dev.key}` },
          }).then(async (r) => {
            await r.arrayBuffer();
            return r.status;
          }),
        ),
      );
    } else {
      // PGlite is one process by nature: the same burst against the one instance.
      statuses = await Promise.all(
        Array.from({ length: 100 }, () => call("GET", "/v1/me", { key: dev.key }).then((r) => r.status)),
      );
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
  });
});
