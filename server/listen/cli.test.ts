import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { env } from "@/server/env";
import { createStorefrontWithProduct } from "@/server/orders/testing";
import { call } from "@/server/testing/api";
import { type ProductionServer, startProductionServer } from "@/server/testing/production-server";
import { testDatabaseKind } from "@/server/testing/setup-db";
import { startTcpProxy, type TcpProxy } from "@/server/testing/tcp-proxy";
import { type ReceivedRequest, type Receiver, startReceiver } from "@/server/webhooks/testing";
import { verifyWebhookSignature } from "@/server/webhooks/verify";

// docs/webhooks.md, "Local development: marea listen". The real CLI (`bin/marea.mjs`, as `npx marea` runs it) against
// the production start, through a TCP proxy that can kill the stream's connection; a real local receiver that
// verifies every signature with the secret the CLI printed, and checks each request against /v1/openapi.json's
// `webhooks` (its `close()` fails on any violation).

const CLI = path.resolve("bin/marea.mjs");
const TYPES = ["user.verified", "user.cancelled", "order.created", "order.status_updated", "order.paid"];

type Cli = { child: ChildProcess; output: () => string; exited: Promise<number | null> };

function runCli(args: string[], key: string, apiBase: string): Cli {
  const child = spawn(process.execPath, [CLI, ...args, "--api-base", apiBase], {
    env: { ...process.env, MAREA_API_KEY: key },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function until(
  what: string,
  predicate: () => boolean,
  describeState: () => string,
  timeoutMs = 30_000,
) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`${what} not seen in ${timeoutMs} ms:\n${describeState()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function signatureOf(request: ReceivedRequest): string | undefined {
  const value = request.headers["x-service-signature"];
  return Array.isArray(value) ? value[0] : value;
}

function envelopeOf(request: ReceivedRequest): {
  type: string;
  eventId: string;
  __test?: boolean;
  data: Record<string, unknown>;
} {
  return JSON.parse(request.rawBody);
}

describe.skipIf(testDatabaseKind() !== "postgres")("marea listen and marea trigger (the real CLI)", () => {
  let server: ProductionServer;
  let proxy: TcpProxy;
  let receiver: Receiver;
  let listen: Cli;
  let secret: string;
  let apiBase: string;
  let developer: Awaited<ReturnType<typeof createDeveloper>>;
  let merchant: Awaited<ReturnType<typeof bootstrapUser>>;
  let storefront: { storefrontId: string; productId: string };

  beforeAll(async () => {
    server = await startProductionServer({
      DATABASE_URL: env().DATABASE_URL,
      DATA_DIR: env().DATA_DIR,
      WORKER: "off",
    });
    proxy = await startTcpProxy({ host: "127.0.0.1", port: server.port });
    apiBase = `http://127.0.0.1:${proxy.port}`;
    receiver = await startReceiver("/hooks");
    developer = await createDeveloper();
    merchant = await bootstrapUser(developer.key);
    storefront = await createStorefrontWithProduct(merchant.userKey);
  });

  afterAll(async () => {
    if (listen && listen.child.exitCode === null) listen.child.kill("SIGKILL");
    await proxy?.close();
    await server?.stop();
    await receiver?.close();
  });

  async function placeOrder(): Promise<string> {
    const placed = await call<{ order: { id: string } }>(
      "POST",
      `/v1/storefronts/${storefront.storefrontId}/orders`,
      {
        key: merchant.userKey,
        body: {
          items: [{ productId: storefront.productId, amount: 1 }],
          customer: { name: "Ana", phone: "+5215512345678" },
          paymentMethod: { name: "Efectivo" },
        },
      },
    );
    expect(placed.status, placed.text).toBe(201);
    return placed.body.order.id;
  }

  const forwardedOrders = () =>
    receiver.requests
      .map(envelopeOf)
      .filter((e) => e.type === "order.created" && !e.__test)
      .map((e) => e.data.orderId as string);
  const state = () => `CLI:\n${listen.output()}\nreceiver: ${receiver.requests.length} requests`;

  it("prints a per-session secret and forwards a real order.created, signed with it, printing the local answer", async () => {
    listen = runCli(["listen", "--forward-to", receiver.url], developer.key, apiBase);
    await until("the secret", () => /signing secret is [0-9a-f]{64}/.test(listen.output()), state);
    secret = /signing secret is ([0-9a-f]{64})/.exec(listen.output())?.[1] as string;
    // The stream is open once the session shows as connected.
    await until("a connected stream", () => proxy.connections() > 0, state);

    const orderId = await placeOrder();
    await until("the forwarded order", () => forwardedOrders().includes(orderId), state);
    const request = receiver.requests.find((r) => envelopeOf(r).data.orderId === orderId) as ReceivedRequest;
    expect(verifyWebhookSignature(request.rawBody, signatureOf(request), secret)).toBe(true);
    expect(verifyWebhookSignature(request.rawBody, signatureOf(request), "0".repeat(64))).toBe(false);
    expect(request.headers["x-service-event-type"]).toBe("order.created");
    expect(request.headers["x-service-endpoint-id"]).toMatch(/^lsn_/);
    // One line per event with the local answer.
    await until(
      "the CLI's line",
      () => /order\.created evt_\w+ {2}--> POST \S+ \[200\]/.test(listen.output()),
      state,
    );
  });

  it("a killed connection resumes from the last event id: every event arrives once, in order", async () => {
    const before = forwardedOrders();
    // Kill the stream's TCP connection (and refuse new ones for a while); orders keep coming meanwhile.
    await proxy.cut("refuse");
    const during = [await placeOrder(), await placeOrder(), await placeOrder()];
    await until("the reconnect notice", () => /Connection lost/.test(listen.output()), state);
    await proxy.restore();
    await until(
      "the orders of the outage",
      () => during.every((id) => forwardedOrders().includes(id)),
      state,
    );

    // Once more, killed mid-stream right after events were sent (a naive resume would send these again).
    const burst = [await placeOrder(), await placeOrder()];
    await until("the burst", () => burst.every((id) => forwardedOrders().includes(id)), state);
    await proxy.cut("reset");
    await proxy.restore();
    const after = await placeOrder();
    await until("the order after the second cut", () => forwardedOrders().includes(after), state);

    const all = forwardedOrders();
    expect(all).toEqual([...before, ...during, ...burst, after]);
    expect(new Set(receiver.requests.map((r) => envelopeOf(r).eventId)).size).toBe(receiver.requests.length);
    for (const request of receiver.requests)
      expect(verifyWebhookSignature(request.rawBody, signatureOf(request), secret)).toBe(true);
  });

  it("marea trigger fires each of the five types (with --data overrides) to the listening CLI", async () => {
    for (const type of TYPES) {
      const args = ["trigger", type];
      if (type === "order.paid") args.push("--data", JSON.stringify({ totalPrice: 123.45 }));
      const trigger = runCli(args, developer.key, apiBase);
      expect(await trigger.exited, trigger.output()).toBe(0);
      expect(trigger.output()).toMatch(new RegExp(`Triggered ${type.replace(".", "\\.")} evt_\\w+`));
    }
    await until(
      "five test events",
      () =>
        TYPES.every((type) =>
          receiver.requests.some((r) => envelopeOf(r).__test && envelopeOf(r).type === type),
        ),
      state,
    );
    const tests = receiver.requests.filter((r) => envelopeOf(r).__test);
    expect(tests.map((r) => envelopeOf(r).type)).toEqual(TYPES);
    expect(envelopeOf(tests[4] as ReceivedRequest).data.totalPrice).toBe(123.45);
    for (const request of tests)
      expect(verifyWebhookSignature(request.rawBody, signatureOf(request), secret)).toBe(true);

    // Invalid overrides are refused by the service, named by field.
    const refused = runCli(
      ["trigger", "order.created", "--data", '{"totalPrice":"x"}'],
      developer.key,
      apiBase,
    );
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain("invalid_request (data.totalPrice)");
    // A user key receives order.* only.
    const userTrigger = runCli(["trigger", "user.verified"], merchant.userKey, apiBase);
    expect(await userTrigger.exited).toBe(1);
  });

  it("Ctrl+C closes the session", async () => {
    const sessionId = /Listen session (lsn_\w+)/.exec(listen.output())?.[1];
    listen.child.kill("SIGINT");
    expect(await listen.exited).toBe(0);
    const list = await call<{ data: Array<{ id: string; status: string; closedReason: string }> }>(
      "GET",
      "/v1/listen_sessions",
      { key: developer.key },
    );
    expect(list.body.data.find((s) => s.id === sessionId)).toMatchObject({
      status: "closed",
      closedReason: "cli",
    });
  });
});
