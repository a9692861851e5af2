import { sql } from "drizzle-orm";
import { type Db, queryRows } from "@/server/db/client";
import type { Receiver } from "@/server/webhooks/testing";
import type { CutMode, TcpProxy } from "./tcp-proxy";

/**
 * The database-outage drill (docs/operations.md, "Database outages"), shared by the test that runs it once per
 * cut mode (server/http/outage.test.ts) and the script that repeats it (bench/outage.ts):
 *
 * partners place orders over /v1 with an Idempotency-Key and retry every 5xx, 409 in progress and lost
 * connection with the same key; meanwhile PostgreSQL is cut (the TCP proxy between the server and the database
 * resets or refuses every connection) and comes back. Then: was every order placed exactly once, did any request
 * outlive 10 s, how long after the return did /healthz and /v1/me answer 200, were retries answered at once, was
 * every committed order's `order.created` delivered (once per eventId) within 10 s of the return, and did the
 * server log an uncaught exception?
 */
export type DrillSetup = {
  baseUrl: string;
  /** The proxy the server reaches the database through; null when the drill's `outage` does the cutting. */
  proxy: TcpProxy | null;
  /** A direct connection to the same database (not through the proxy), to count what was written. */
  db: Db;
  receiver: Receiver;
  userKey: string;
  storefrontId: string;
  productId: string;
  /** The server's output so far (stdout and stderr). */
  serverOutput: () => string;
};

export type DrillOptions = {
  mode: CutMode | "restart";
  /** How long the proxy cuts the database (0: no cut, a baseline). */
  cutMs: number;
  /** The outage itself when it is not the proxy's (a real restart of PostgreSQL): resolves when it is over. */
  outage?: () => Promise<void>;
  /** Partners placing orders at once. */
  clients: number;
  /** Load before the cut, and after the return. */
  beforeMs: number;
  afterMs: number;
  /** A tag that makes this run's orders its own. */
  run: string;
};

export type DrillFigures = {
  mode: DrillOptions["mode"];
  requests: number;
  /** Requests that took over 10 s, or never got an answer before the drill's end. */
  slowRequests: number;
  maxRequestMs: number;
  ordersIntended: number;
  ordersPlaced: number;
  /** Orders written more than once (the same Idempotency-Key). */
  duplicates: number;
  /** From the database's return to the first 200 of /healthz and of /v1/me. */
  healthBackMs: number;
  meBackMs: number;
  /** Answers 409 `idempotency_request_in_progress` received more than 1 s after the return. */
  inProgressAfterReturn: number;
  /** From the return until the last order retried across the cut was answered 201. */
  retriesDoneMs: number;
  eventsExpected: number;
  eventsDelivered: number;
  /** Orders whose `order.created` arrived under two different eventIds. */
  eventIdConflicts: number;
  /** From the return until the last order's first delivery (0 when every one arrived before). */
  lastDeliveryMs: number;
  uncaughtExceptions: number;
  /** The requests over 10 s: when each started and ended (ms from the outage's start), and how it ended. */
  slow: Array<{ startedMs: number; endedMs: number; status: number; code?: string }>;
  /** For the first few orders whose event was not delivered: where their delivery stands. */
  undelivered: Array<Record<string, unknown>>;
};

const SLOW_MS = 10_000;
const CUSTOMER_PHONE = "+5215512345678";

export async function runOutageDrill(setup: DrillSetup, options: DrillOptions): Promise<DrillFigures> {
  const outputBefore = setup.serverOutput().length;
  const durations: number[] = [];
  const slow: DrillFigures["slow"] = [];
  let outageAt = Number.POSITIVE_INFINITY;
  let inProgressAfterReturn = 0;
  let returnedAt = Number.POSITIVE_INFINITY;
  let stopAt = Number.POSITIVE_INFINITY;
  const retriedAcrossCut = new Set<string>();
  const answeredAt = new Map<string, number>();
  const tags: string[] = [];

  async function placeOrder(tag: string): Promise<void> {
    for (;;) {
      const started = Date.now();
      let status = 0;
      let code: string | undefined;
      try {
        const res = await fetch(`${setup.baseUrl}/v1/storefronts/${setup.storefrontId}/orders`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${setup.userKey}`,
            "content-type": "application/json",
            "idempotency-key": tag,
          },
          body: JSON.stringify({
            items: [{ productId: setup.productId, amount: 1 }],
            customer: { name: tag, phone: CUSTOMER_PHONE },
            paymentMethod: { name: "Efectivo" },
          }),
          signal: AbortSignal.timeout(SLOW_MS + 5000),
        });
        status = res.status;
        const body = (await res.json().catch(() => ({}))) as { error?: { code?: string } };
        code = body.error?.code;
      } catch {
        status = 0; // no answer (connection lost, or over the client's own timeout)
      }
      const finished = Date.now();
      durations.push(finished - started);
      if (finished - started > SLOW_MS && slow.length < 5)
        slow.push({ startedMs: started - outageAt, endedMs: finished - outageAt, status, code });
      if (status === 201) {
        answeredAt.set(tag, finished);
        return;
      }
      if (code === "idempotency_request_in_progress" && finished > returnedAt + 1000) inProgressAfterReturn++;
      if (status !== 0 && status < 500 && code !== "idempotency_request_in_progress")
        throw new Error(`order ${tag}: unexpected ${status} ${code ?? ""}`);
      retriedAcrossCut.add(tag);
      if (finished > stopAt + 30_000) throw new Error(`order ${tag}: still failing 30 s after the drill`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async function client(index: number): Promise<void> {
    for (let n = 0; Date.now() < stopAt; n++) {
      const tag = `${options.run}-${index}-${n}`;
      tags.push(tag);
      await placeOrder(tag);
    }
  }

  async function firstOk(path: string, headers: Record<string, string>): Promise<number> {
    for (;;) {
      try {
        const res = await fetch(`${setup.baseUrl}${path}`, { headers, signal: AbortSignal.timeout(SLOW_MS) });
        await res.arrayBuffer();
        if (res.status === 200) return Date.now();
      } catch {
        // not back yet
      }
      if (Date.now() > returnedAt + 30_000) return Number.POSITIVE_INFINITY;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const started = Date.now();
  stopAt = started + options.beforeMs + options.cutMs + options.afterMs;
  const load = Promise.all(Array.from({ length: options.clients }, (_, i) => client(i)));
  await new Promise((resolve) => setTimeout(resolve, options.beforeMs));
  outageAt = Date.now();
  if (options.outage) await options.outage();
  else if (options.cutMs > 0 && setup.proxy && options.mode !== "restart") {
    // cutMs 0: the same load without a cut (a baseline).
    await setup.proxy.cut(options.mode);
    await new Promise((resolve) => setTimeout(resolve, options.cutMs));
    await setup.proxy.restore();
  }
  returnedAt = Date.now();
  const [healthAt, meAt] = await Promise.all([
    firstOk("/healthz", {}),
    firstOk("/v1/me", { authorization: `Bearer ${setup.userKey}` }),
  ]);
  await load;

  const placed = await queryRows<{ name: string; n: number; id: string }>(
    setup.db,
    sql`select customer->>'name' as name, count(*)::int as n, min(id) as id from orders
        where storefront_id = ${setup.storefrontId} and customer->>'name' like ${`${options.run}-%`}
        group by 1`,
  );
  const orderIds = new Set(placed.map((row) => row.id));

  // Every committed order's order.created, delivered within 10 s of the return (or the drill fails there).
  const deliveredAt = new Map<string, { at: number; eventIds: Set<string> }>();
  const collect = () => {
    for (const request of setup.receiver.requests) {
      const envelope = JSON.parse(request.rawBody) as { type?: string; data?: { orderId?: string } };
      const orderId = envelope.data?.orderId;
      if (envelope.type !== "order.created" || !orderId || !orderIds.has(orderId)) continue;
      const seen = deliveredAt.get(orderId);
      if (!seen) deliveredAt.set(orderId, { at: request.at, eventIds: new Set([request.eventId ?? ""]) });
      else seen.eventIds.add(request.eventId ?? "");
    }
  };
  const waitUntil = Math.max(Date.now(), returnedAt) + SLOW_MS;
  for (;;) {
    collect();
    if (deliveredAt.size >= orderIds.size || Date.now() > waitUntil) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  const missing = [...orderIds].filter((orderId) => !deliveredAt.has(orderId)).slice(0, 5);
  const undelivered =
    missing.length === 0
      ? []
      : await queryRows<Record<string, unknown>>(
          setup.db,
          sql`select ev.envelope->'data'->>'orderId' as order_id, ev.created_at, d.status, d.attempt_count,
                d.lease_owner, d.lease_until, d.next_attempt_at, d.attempts
              from webhook_events ev left join webhook_deliveries d on d.event_row_id = ev.id
              where ev.envelope->'data'->>'orderId' in (select jsonb_array_elements_text(${JSON.stringify(missing)}::jsonb))`,
        );
  const output = setup.serverOutput().slice(outputBefore);
  let retriesDone = returnedAt;
  for (const tag of retriedAcrossCut) retriesDone = Math.max(retriesDone, answeredAt.get(tag) ?? 0);
  let lastDelivery = returnedAt;
  for (const { at } of deliveredAt.values()) lastDelivery = Math.max(lastDelivery, at);

  return {
    mode: options.mode,
    requests: durations.length,
    slowRequests: durations.filter((ms) => ms > SLOW_MS).length,
    maxRequestMs: Math.max(0, ...durations),
    ordersIntended: tags.length,
    ordersPlaced: placed.length,
    duplicates: placed.filter((row) => row.n > 1).length,
    healthBackMs: healthAt - returnedAt,
    meBackMs: meAt - returnedAt,
    inProgressAfterReturn,
    retriesDoneMs: retriesDone - returnedAt,
    eventsExpected: orderIds.size,
    eventsDelivered: deliveredAt.size,
    eventIdConflicts: [...deliveredAt.values()].filter((d) => d.eventIds.size > 1).length,
    lastDeliveryMs: lastDelivery - returnedAt,
    slow,
    undelivered,
    uncaughtExceptions: (output.match(/uncaughtException|Uncaught|unhandledRejection/gi) ?? []).length,
  };
}
