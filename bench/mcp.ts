import { randomBytes } from "node:crypto";
import postgres from "postgres";
import type { BenchEnv, BenchRow } from "./env";
import { type LoadOptions, load } from "./lib";

/**
 * The MCP benchmark (bench/README.md, "Benchmarks": scenarios (g) and (h)), in one run: the same storefront read
 * over `GET /v1/storefronts/{id}` and as `tools/call marea.get_storefront` on `/mcp`, both with the merchant's
 * static user key (counted in its bucket on every request). Target: (h) >= 0.5 of (g)'s req/s. (g) is measured
 * again after (h), and the ratio is to the mean of both, because this machine's speed drifts within a minute.
 */
export async function runMcpBench(env: BenchEnv): Promise<BenchRow[]> {
  const sql = postgres(env.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const user = await json(
      env.baseUrl,
      "/v1/users",
      { authorization: `Bearer ${env.developerKey}` },
      {
        email: `bench-mcp-${randomBytes(4).toString("hex")}@example.com`,
        language: "es",
      },
    );
    const { userId, userKey } = {
      userId: (user as { user: { id: string } }).user.id,
      userKey: (user as { userKey: string }).userKey,
    };
    await sql`update api_keys set rpm = 100000000, daily_limit = 100000000 where account_id = ${userId}`;
    const created = (await json(
      env.baseUrl,
      "/v1/storefronts",
      { authorization: `Bearer ${userKey}` },
      {
        name: "Bench MCP Bakery",
        currency: "MXN",
        language: "es",
        schedule: { monday: { open: "08:00", close: "20:00" } },
        categories: [{ name: "Pan", position: 1 }],
      },
    )) as { storefront: { id: string } };
    const storefrontId = created.storefront.id;

    const rest: LoadOptions = {
      url: `${env.baseUrl}/v1/storefronts/${storefrontId}`,
      headers: { authorization: `Bearer ${userKey}` },
    };
    const mcp: LoadOptions = {
      url: `${env.baseUrl}/mcp`,
      method: "POST",
      headers: {
        authorization: `Bearer ${userKey}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "marea.get_storefront", arguments: { storefrontId } },
      }),
    };
    // Both answer 200 with the storefront, or the bench measures errors.
    for (const options of [rest, mcp]) {
      const response = await fetch(options.url, {
        method: options.method ?? "GET",
        headers: options.headers,
        body: options.body,
      });
      const text = await response.text();
      if (response.status !== 200 || !text.includes(storefrontId))
        throw new Error(`warm-up ${options.url}: ${response.status} ${text}`);
    }
    const restBefore = await load("(g) GET /v1/storefronts/{id}, user key", rest);
    const tool = await load("(h) tools/call marea.get_storefront, user key", mcp);
    const restAfter = await load("(g') GET /v1/storefronts/{id} again", rest);
    const baseline = (restBefore.reqPerSec + restAfter.reqPerSec) / 2;
    return [
      restBefore,
      { ...tool, ratio: { to: "mean of (g) and (g')", value: tool.reqPerSec / baseline, target: 0.5 } },
      restAfter,
    ];
  } finally {
    await sql.end();
  }
}

async function json(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<unknown> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as unknown;
}
