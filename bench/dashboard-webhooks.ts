import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { BenchEnv, BenchRow } from "./env";
import { load, loadPageFloor } from "./lib";

/**
 * The dashboard's delivery log (bench/README.md, scenarios (dl) and (dt)): a signed-in merchant whose endpoint has
 * 50 deliveries (each delivered by the server's own worker to a local receiver, so every row carries a real
 * attempt, signature and answer).
 *
 * - (dl) `GET /dashboard/webhooks/{id}`: the whole page rendered on the server (session, shell, endpoint, health,
 *   the 50-row log and the client components' data). Target >= 0.3 of the floor.
 * - (dt) `GET /api/trpc/webhooks.listDeliveries`: the log as the page's live refresh asks for it. Target >= 0.6.
 *
 * Both are ratios to (b-dl), the floor measured again right before them.
 */
const DELIVERIES = 50;

async function startReceiver(): Promise<{ server: Server; port: number; count: () => number }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, count: () => received };
}

export async function runDashboardWebhooksBench(env: BenchEnv): Promise<BenchRow[]> {
  process.env.DATABASE_URL = env.databaseUrl;
  process.env.UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS = "1";
  // The server's data folder: the signing secret is encrypted with its key (SECRETS_KEY, else DATA_DIR's file).
  process.env.DATA_DIR = path.resolve(".data/bench");
  // env() was read before (the developer key's set-up): read it again with the receiver on loopback allowed.
  (await import("@/server/env")).resetEnvForTests();
  const { closeDb } = await import("@/server/db/client");
  const { acceptCurrentTerms } = await import("@/server/accounts/cancellation");
  const { currentTerms } = await import("@/server/gate/terms");
  const { signedInSession } = await import("@/server/sessions/testing");
  const { sessionContextFor } = await import("@/server/testing/context");
  const { CreateWebhookEndpointInput } = await import("@/server/webhooks/schema");
  const { createEndpoint, sendTestEvent } = await import("@/server/webhooks/endpoints");
  const { listDeliveryLog } = await import("@/server/webhooks/delivery-log");
  const receiver = await startReceiver();
  try {
    const signedIn = await signedInSession(`bench-dashboard-${Date.now()}@example.com`);
    await acceptCurrentTerms(await sessionContextFor(signedIn.accountId), {
      version: currentTerms().version,
    });
    const ctx = await sessionContextFor(signedIn.accountId);
    const endpoint = await createEndpoint(ctx, {
      scope: "merchant",
      endpoint: CreateWebhookEndpointInput.parse({ url: `http://127.0.0.1:${receiver.port}/hook` }),
    });
    const types = ["order.created", "order.paid", "order.status_updated"] as const;
    for (let i = 0; i < DELIVERIES; i++) {
      await sendTestEvent(ctx, {
        scope: "merchant",
        endpointId: endpoint.endpointId,
        type: types[i % 3] ?? "order.paid",
      });
    }
    // Delivered from here with the engine's own functions (the server's worker may take some too), so the set-up
    // does not wait on a poll.
    const { claimDueDeliveries, performAttempt } = await import("@/server/webhooks/delivery");
    const { recordResults } = await import("@/server/webhooks/delivery-record");
    const { dbReady } = await import("@/server/db/client");
    const db = await dbReady();
    const deadline = Date.now() + 60_000;
    for (;;) {
      const jobs = await claimDueDeliveries(db, { owner: "bench", limit: 100, now: new Date() });
      if (jobs.length > 0) await recordResults(db, await Promise.all(jobs.map((job) => performAttempt(job))));
      const log = await listDeliveryLog(ctx, { scope: "merchant", endpointId: endpoint.endpointId });
      if (log.data.length === DELIVERIES && log.data.every((d) => d.status === "delivered")) break;
      if (Date.now() > deadline)
        throw new Error(
          `deliveries not delivered within 60 s (${receiver.count()} received): ${JSON.stringify(log.data[0])}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await closeDb();

    const cookie = `marea_session=${signedIn.session.token}`;
    const pageUrl = `${env.baseUrl}/dashboard/webhooks/${endpoint.endpointId}`;
    const trpcUrl = `${env.baseUrl}/api/trpc/webhooks.listDeliveries?input=${encodeURIComponent(
      JSON.stringify({ endpointId: endpoint.endpointId }),
    )}`;
    // Check once that both answer what they should (a redirect to /signin would measure the wrong thing).
    const page = await fetch(pageUrl, { headers: { cookie }, redirect: "manual" });
    const html = await page.text();
    const rows = html.match(/data-testid="delivery-row"/g)?.length ?? 0;
    if (page.status !== 200 || rows !== DELIVERIES)
      throw new Error(`delivery-log page: status ${page.status}, ${rows} rows`);
    const call = await fetch(trpcUrl, { headers: { cookie } });
    const body = (await call.json()) as { result?: { data?: { data?: unknown[] } } };
    if (call.status !== 200 || body.result?.data?.data?.length !== DELIVERIES)
      throw new Error(`tRPC listDeliveries: status ${call.status}`);
    process.stdout.write(`delivery-log page: ${Math.round(html.length / 1024)} KiB of HTML\n`);

    for (let i = 0; i < 30; i++) {
      await fetch(pageUrl, { headers: { cookie } }).then((r) => r.arrayBuffer());
      await fetch(trpcUrl, { headers: { cookie } }).then((r) => r.arrayBuffer());
    }
    const floor = await load("(b-dl) the floor again", { url: `${env.baseUrl}/bench/floor` });
    const pageFigures = await load("(dl) delivery-log page, 50 rows, SSR", {
      url: pageUrl,
      headers: { cookie },
    });
    const trpcFigures = await load("(dt) tRPC webhooks.listDeliveries", {
      url: trpcUrl,
      headers: { cookie },
    });
    const pageFloor = await loadPageFloor(env.baseUrl, "(dl-f)", [["(dl)", pageFigures]]);
    return [
      floor,
      { ...pageFloor, ratio: { to: "(b-dl)", value: pageFloor.reqPerSec / floor.reqPerSec } },
      {
        ...pageFigures,
        ratio: { to: "(b-dl)", value: pageFigures.reqPerSec / floor.reqPerSec, target: 0.3 },
      },
      {
        ...trpcFigures,
        ratio: { to: "(b-dl)", value: trpcFigures.reqPerSec / floor.reqPerSec, target: 0.6 },
      },
    ];
  } finally {
    receiver.server.close();
  }
}
