import path from "node:path";
import postgres from "postgres";
import type { BenchEnv, BenchRow } from "./env";
import { ME_QUERY } from "./graphql";
import {
  assertPortFree,
  benchServerEnv,
  type Figures,
  type LoadOptions,
  load,
  NEXT_PROCESS,
  SERVER_PROCESS,
  startNext,
  stopProcess,
  waitForHttp,
} from "./lib";
import { createBenchStorefront } from "./storefront";

/**
 * The production start against `next start` (Next alone, the start before it), same build, same database, same
 * run (bench/README.md, scenario "starts"): for each load, production then next, then next then production
 * (ABBA, so a drift of the machine's speed cancels out), and the ratio of the means. Loads: the dashboard's home
 * page (a signed-in session), the cached public page (s), `GET /v1/me`, GraphQL `me` and MCP `tools/call`.
 * Targets: the pages no slower (>= 1.0, within this machine's 5-10% noise); /v1, GraphQL and MCP show what
 * serving them without Next's request handling gains.
 */
const NEXT_PORT = Number(process.env.BENCH_PORT ?? 3210) + 1;

type Load = { tag: string; name: string; target?: number; options: (baseUrl: string) => LoadOptions };

async function sessionCookie(databaseUrl: string, storefrontId: string): Promise<string> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<
      { account_id: string }[]
    >`select account_id from storefronts where id = ${storefrontId}`;
    if (!row) throw new Error("the bench storefront has no account");
    process.env.DATABASE_URL = databaseUrl;
    const { dbReady, closeDb } = await import("@/server/db/client");
    const { createSession } = await import("@/server/sessions/service");
    const { SESSION_COOKIE } = await import("@/server/kit/cookies");
    const { accounts } = await import("@/server/gate/tables");
    const { currentTerms } = await import("@/server/gate/terms");
    const { eq } = await import("drizzle-orm");
    const db = await dbReady();
    // The dashboard sends an account without the current terms to the terms step: accept them, as a person would.
    await db
      .update(accounts)
      .set({ tosAcceptedVersion: currentTerms().version })
      .where(eq(accounts.id, row.account_id));
    const session = await createSession(db, row.account_id, new Date());
    await closeDb();
    return `${SESSION_COOKIE}=${session.token}`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function runStartsBench(env: BenchEnv): Promise<BenchRow[]> {
  const nextUrl = `http://127.0.0.1:${NEXT_PORT}`;
  await assertPortFree(NEXT_PORT);
  const next = startNext({
    cwd: process.cwd(),
    port: NEXT_PORT,
    env: {
      ...benchServerEnv(env.databaseUrl, path.resolve(".data/bench")),
      PORT: String(NEXT_PORT),
      APP_URL: nextUrl,
      // The production start's worker delivers the bench's webhooks; one is enough.
      WORKER: "off",
    },
  });
  try {
    await waitForHttp(`${nextUrl}/healthz`);
    const store = await createBenchStorefront(env);
    const cookie = await sessionCookie(env.databaseUrl, store.storefrontId);
    const userAuth = { authorization: `Bearer ${store.userKey}` };
    const loads: Load[] = [
      {
        tag: "dashboard",
        name: "GET /dashboard, signed in",
        target: 1,
        options: (baseUrl) => ({ url: `${baseUrl}/dashboard`, headers: { cookie } }),
      },
      {
        tag: "s",
        name: "GET /s/{slug}, 200 products, cached",
        target: 1,
        options: (baseUrl) => ({ url: `${baseUrl}/s/${store.slug}` }),
      },
      {
        tag: "me",
        name: "GET /v1/me",
        options: (baseUrl) => ({
          url: `${baseUrl}/v1/me`,
          headers: { authorization: `Bearer ${env.developerKey}` },
        }),
      },
      {
        tag: "graphql",
        name: "GraphQL me (POST)",
        options: (baseUrl) => ({
          url: `${baseUrl}/api/graphql`,
          method: "POST",
          headers: {
            ...userAuth,
            "content-type": "application/json",
            accept: "application/graphql-response+json",
          },
          body: JSON.stringify({ query: ME_QUERY }),
        }),
      },
      {
        tag: "mcp",
        name: "MCP tools/call marea.get_storefront",
        options: (baseUrl) => ({
          url: `${baseUrl}/mcp`,
          method: "POST",
          headers: {
            ...userAuth,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2025-11-25",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: "marea.get_storefront", arguments: { storefrontId: store.storefrontId } },
          }),
        }),
      },
    ];
    const selected = (process.env.BENCH_STARTS ?? loads.map((l) => l.tag).join(",")).split(",");
    // Each answers 200 on both starts (the public page renders and is cached by its first view), or the bench
    // would measure errors.
    for (const entry of loads.filter((l) => selected.includes(l.tag))) {
      for (const baseUrl of [env.baseUrl, nextUrl]) {
        const options = entry.options(baseUrl);
        const response = await fetch(options.url, {
          method: options.method ?? "GET",
          headers: options.headers,
          body: options.body,
          redirect: "manual",
        });
        await response.arrayBuffer();
        if (response.status !== 200)
          throw new Error(
            `${entry.name} on ${baseUrl}: ${response.status} ${response.headers.get("location") ?? ""}`,
          );
      }
    }

    const rows: BenchRow[] = [];
    for (const entry of loads.filter((l) => selected.includes(l.tag))) {
      const production = (label: string) =>
        load(`${entry.name}, production start${label}`, {
          ...entry.options(env.baseUrl),
          processName: SERVER_PROCESS,
        });
      const alone = (label: string) =>
        load(`${entry.name}, next start${label}`, {
          ...entry.options(nextUrl),
          processName: NEXT_PROCESS,
          processGroup: next.pid,
        });
      const p1 = await production("");
      const n1 = await alone("");
      const n2 = await alone(" (again)");
      const p2 = await production(" (again)");
      const mean = (a: Figures, b: Figures) => (a.reqPerSec + b.reqPerSec) / 2;
      const ratio = mean(p1, p2) / mean(n1, n2);
      process.stdout.write(
        `starts: ${entry.name}: production ${mean(p1, p2).toFixed(0)} req/s, next start ${mean(n1, n2).toFixed(0)} req/s: ${ratio.toFixed(2)}x; p99 ${p1.p99}/${p2.p99} vs ${n1.p99}/${n2.p99} ms\n`,
      );
      rows.push(n1, n2, p1, {
        ...p2,
        ratio: {
          to: "next start, mean of both",
          value: ratio,
          ...(entry.target ? { target: entry.target } : {}),
        },
      });
    }
    return rows;
  } finally {
    stopProcess(next);
  }
}
