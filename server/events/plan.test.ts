import { type SQL, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { type Db, dbReady, queryRows } from "@/server/db/client";
import { createTestEndpoint, setTestEnv } from "@/server/webhooks/testing";
import { ListEventsInput } from "./schema";
import { pageStatement } from "./service";

// docs/webhooks.md, "After an outage": a page of the events list reads the caller's own events through an index,
// never every event. Checked with EXPLAIN on 6,000 events of ten developers (analyzed, so the planner sees the
// real proportions): every shape of the statement is an index scan and none reads a whole table.
setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1" });

const EVENTS = 6000;
const DEVELOPERS = 10;

let db: Db;
let developers: Array<{ accountId: string; keyId: string; endpointId: string }>;

beforeAll(async () => {
  db = await dbReady();
  developers = [];
  for (let i = 0; i < DEVELOPERS; i++) {
    const developer = await createDeveloper();
    const { endpointId } = await createTestEndpoint(developer.key, { url: `http://127.0.0.1:9/${i}` });
    developers.push({ accountId: developer.accountId, keyId: developer.keyId, endpointId });
  }
  const list = (values: string[]) =>
    sql`array[${sql.join(
      values.map((v) => sql`${v}`),
      sql`, `,
    )}]::text[]`;
  const accounts = list(developers.map((d) => d.accountId));
  const keys = list(developers.map((d) => d.keyId));
  const endpoints = list(developers.map((d) => d.endpointId));
  // Event i belongs to developer i % 10 and merchant i % 300, one a minute; each has one delivery to its
  // developer's endpoint, delivered but for one in 97.
  await db.execute(sql`
    insert into webhook_events (id, event_id, type, account_id, envelope, is_test, created_at, merchant_account_id,
      developer_account_id, developer_key_id)
    select 'evt_' || lpad(i::text, 26, '0'), gen_random_uuid()::text,
      (array['order.created', 'order.paid', 'user.verified'])[1 + i % 3], 'usr_merchant_' || (i % 300),
      ('{"n":' || i || '}')::json, false, now() - (${EVENTS} - i) * interval '1 minute',
      case when i % 3 < 2 then 'usr_merchant_' || (i % 300) end,
      (${accounts})[1 + i % ${DEVELOPERS}], (${keys})[1 + i % ${DEVELOPERS}]
    from generate_series(1, ${EVENTS}) as i`);
  await db.execute(sql`
    insert into webhook_deliveries (id, event_row_id, endpoint_id, status, attempt_count, attempts,
      first_dispatch_at, created_at, updated_at)
    select 'dlv_' || lpad(i::text, 26, '0'), 'evt_' || lpad(i::text, 26, '0'), (${endpoints})[1 + i % ${DEVELOPERS}],
      case when i % 97 = 0 then 'max_attempts_reached' else 'delivered' end, 1, '[]'::jsonb, now(), now(), now()
    from generate_series(1, ${EVENTS}) as i`);
  await db.execute(sql`analyze webhook_events`);
  await db.execute(sql`analyze webhook_deliveries`);
});

async function plan(statement: SQL): Promise<string> {
  const rows = await queryRows<Record<string, string>>(db, sql`explain ${statement}`);
  return rows.map((row) => Object.values(row)[0]).join("\n");
}

/**
 * No scan of the events or deliveries; the developer's live keys (the order events' check) are read by account,
 * however the planner reaches the handful of rows of a table this small.
 */
function expectNoTableScan(text: string): void {
  expect(text, text).not.toMatch(/Seq Scan on webhook_/);
  if (text.includes("api_keys")) expect(text, text).toMatch(/on api_keys k[\s\S]*?account_id = /);
}

function page(input: Record<string, unknown>) {
  return ListEventsInput.parse({ limit: 100, ...input });
}

describe("the events list reads through indexes", () => {
  it("every developer's page, with and without filters and cursor: an index scan of webhook_events, never the table", async () => {
    for (const developer of developers) {
      const audience = { accountId: developer.accountId, scope: "developer" as const };
      for (const input of [
        {},
        { types: ["order.created", "order.paid"] },
        {
          cursor: Buffer.from(JSON.stringify({ v: 1, after: `evt_${"3".padStart(26, "0")}` })).toString(
            "base64url",
          ),
        },
        { createdGte: new Date(Date.now() - 86_400_000).toISOString() },
      ]) {
        const text = await plan(pageStatement(audience, page(input), { now: new Date(), endpointId: null }));
        // Cost-based, the planner walks the developer's own index; or, for a developer with a large share of all
        // events, the newest events backwards until the page is full (under the Limit: about limit / share rows);
        // or, for a narrow `createdGte`, that window's events by time. Always an index, always under the Limit.
        expect(text, text).toMatch(/Index Scan (Backward )?using webhook_events_\w+ on webhook_events ev/);
        expect(text.startsWith("Limit"), text).toBe(true);
        expectNoTableScan(text);
      }
    }
  });

  it("a developer with few events among many: its own index", async () => {
    const developer = await createDeveloper();
    await db.execute(sql`
      insert into webhook_events (id, event_id, type, account_id, envelope, is_test, created_at, developer_account_id,
        developer_key_id)
      select 'evt_' || lpad((${EVENTS} + i)::text, 26, '0'), gen_random_uuid()::text, 'user.verified', 'usr_small',
        '{}'::json, false, now(), ${developer.accountId}, ${developer.keyId}
      from generate_series(1, 5) as i`);
    const audience = { accountId: developer.accountId, scope: "developer" as const };
    const text = await plan(pageStatement(audience, page({}), { now: new Date(), endpointId: null }));
    expect(text, text).toContain("webhook_events_developer_idx");
    expectNoTableScan(text);
  });

  it("a merchant's page: the merchant index", async () => {
    const text = await plan(
      pageStatement({ accountId: "usr_merchant_7", scope: "merchant" }, page({}), {
        now: new Date(),
        endpointId: null,
      }),
    );
    expect(text, text).toContain("webhook_events_merchant_idx");
    expectNoTableScan(text);
  });

  it("undeliveredTo: the endpoint's deliveries that did not answer 2xx, then each event by its key", async () => {
    const developer = developers[5] as (typeof developers)[number];
    const text = await plan(
      pageStatement({ accountId: developer.accountId, scope: "developer" }, page({}), {
        now: new Date(),
        endpointId: developer.endpointId,
      }),
    );
    expect(text, text).toContain("webhook_deliveries_undelivered_idx");
    expectNoTableScan(text);
  });
});
