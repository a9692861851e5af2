import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resetEnvForTests } from "@/server/env";
import { asAdapter, serviceContextFor } from "@/server/testing/context";
import { CreateWebhookEndpointInput, type WebhookEndpointWithSecretDto } from "./schema";
import { createEndpoint } from "./service";

/** Test helpers: a real HTTP receiver, a real SMTP server, and endpoint factories through the services. */

/** Sets environment variables for this test file and makes `env()` read them again. */
export function setTestEnv(values: Record<string, string | undefined>): void {
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  resetEnvForTests();
}

export type ReceivedRequest = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** Date.now() when the full request arrived. */
  at: number;
  eventId: string | null;
};

export type ReceiverReply = {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
  hang?: boolean;
};

export type Receiver = {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Decides each answer (default 200 "ok"). */
  reply: (request: ReceivedRequest, index: number) => ReceiverReply;
  waitFor: (predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number) => Promise<void>;
  close: () => Promise<void>;
};

/**
 * A node:http receiver on 127.0.0.1 that records every request with its raw body. `port` starts it again where a
 * closed one listened (a receiver back from an outage at the same URL); default a free port.
 */
export async function startReceiver(path = "/hook", options: { port?: number } = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let server: Server | null = null;
  const receiver: Receiver = {
    url: "",
    port: 0,
    requests,
    reply: () => ({ status: 200, body: "ok" }),
    waitFor: async (predicate, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(requests)) {
        if (Date.now() > deadline)
          throw new Error(`receiver: condition not met in ${timeoutMs} ms (${requests.length} requests)`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: async () => {
      if (!server) return;
      server.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    },
  };
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let eventId: string | null = null;
      try {
        eventId = (JSON.parse(rawBody) as { eventId?: string }).eventId ?? null;
      } catch {
        eventId = null;
      }
      const received: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        rawBody,
        at: Date.now(),
        eventId,
      };
      const index = requests.push(received) - 1;
      const answer = receiver.reply(received, index);
      if (answer.hang) return;
      const send = () =>
        res
          .writeHead(answer.status ?? 200, { "content-type": "text/plain", ...answer.headers })
          .end(answer.body ?? "ok");
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server?.listen(options.port ?? 0, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}${path}`;
  return receiver;
}

/** Registers a developer endpoint through the service and returns it with its secret. */
export async function createTestEndpoint(
  developerKey: string,
  body: Record<string, unknown>,
): Promise<WebhookEndpointWithSecretDto> {
  const endpoint = CreateWebhookEndpointInput.parse(body);
  return asAdapter(await serviceContextFor(developerKey), (ctx) => createEndpoint(ctx, { endpoint }));
}

/** Polls until `check` returns a value (not undefined/false), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A host name from /etc/hosts that resolves to loopback and is not `localhost` (e.g. the machine's own name),
 * for the DNS-rebinding tests; null when the machine has none (`.ci/run` adds one).
 */
export function loopbackAliasFromHosts(): string | null {
  for (const line of readFileSync("/etc/hosts", "utf8").split("\n")) {
    const [address, ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
    if (!address?.startsWith("127.")) continue;
    const name = names.find((n) => n && n !== "localhost" && !n.endsWith(".localhost") && !n.includes(":"));
    if (name) return name;
  }
  return null;
}
