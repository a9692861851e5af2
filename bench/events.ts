import postgres from "postgres";
import { newId } from "@/server/lib/ids";
import { sampleEventData } from "@/server/webhooks/events";
import { API_VERSION, EVENT_TYPES } from "@/server/webhooks/schema";
import type { BenchEnv, BenchRow } from "./env";
import { type LoadOptions, load } from "./lib";

/**
 * The events list (bench/README.md, scenario (ev)): `GET /v1/events?limit=100`, a full page of 100 realistic
 * envelopes (order payloads of about 600 bytes) out of 2,000 events of the bench developer, against `GET /v1/me`
 * with the same key measured right before (me2). The events are written straight into the outbox, as emitEvent
 * writes them, with the developer as their audience. For information: no target.
 */
export async function runEventsBench(env: BenchEnv): Promise<BenchRow[]> {
  const sql = postgres(env.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const headers = { authorization: `Bearer ${env.developerKey}` };
    const me = (await (await fetch(`${env.baseUrl}/v1/me`, { headers })).json()) as {
      keyId: string;
      account: { id: string };
    };
    const rows = Array.from({ length: 2000 }, (_, i) => {
      const type = EVENT_TYPES[i % EVENT_TYPES.length] as (typeof EVENT_TYPES)[number];
      const now = new Date(Date.now() - (2000 - i) * 1000);
      const eventId = crypto.randomUUID();
      const envelope = JSON.stringify({
        type,
        eventId,
        timestamp: now.toISOString(),
        apiVersion: API_VERSION,
        data: sampleEventData(type, { developerKeyId: me.keyId, now }),
      });
      return {
        id: newId("evt"),
        event_id: eventId,
        type,
        account_id: "usr_bench_merchant",
        envelope,
        is_test: false,
        created_at: now,
        developer_account_id: me.account.id,
        developer_key_id: me.keyId,
      };
    });
    for (let i = 0; i < rows.length; i += 500) {
      const batch = rows.slice(i, i + 500);
      await sql`insert into webhook_events ${sql(batch)}`;
    }
    await sql`analyze webhook_events`;

    const events: LoadOptions = { url: `${env.baseUrl}/v1/events?limit=100`, headers };
    const check = await fetch(events.url, { headers });
    const page = (await check.json()) as { data?: unknown[] };
    if (check.status !== 200 || page.data?.length !== 100)
      throw new Error(`warm-up GET /v1/events: ${check.status} ${JSON.stringify(page).slice(0, 300)}`);
    const baseline = await load("(me2) GET /v1/me, developer key", { url: `${env.baseUrl}/v1/me`, headers });
    const list = await load("(ev) GET /v1/events?limit=100, 100 envelopes", events);
    return [baseline, { ...list, ratio: { to: "(me2)", value: list.reqPerSec / baseline.reqPerSec } }];
  } finally {
    await sql.end();
  }
}
