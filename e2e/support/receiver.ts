import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhookSignature } from "../../server/webhooks/verify";

export type ReceivedWebhook = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received, as text: what the signature covers. */
  rawBody: string;
  at: number;
  /** The status the receiver answered. */
  status: number;
};

export type WebhookReceiver = {
  url: string;
  requests: ReceivedWebhook[];
  /** Decides each answer's status (default 200); `index` counts from 0 across all requests. */
  statusFor: (request: Omit<ReceivedWebhook, "status">, index: number) => number;
  /** The parsed envelopes received so far. */
  events: () => { type: string; eventId: string; data: Record<string, unknown> }[];
  /** Waits until `predicate` holds (default 15 s: the suite's retry schedule is 0 s, 2 s, 4 s). */
  waitFor: (predicate: (requests: ReceivedWebhook[]) => boolean, timeoutMs?: number) => Promise<void>;
  /** True when the request carries a valid X-Service-Signature for `secret` (spec, Events: Signature). */
  isSignedWith: (request: ReceivedWebhook, secret: string) => boolean;
  close: () => Promise<void>;
};

/**
 * A real webhook receiver on 127.0.0.1 (the app runs with UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS=1 so it may deliver
 * here): records raw bodies and headers, answers the status `statusFor` picks, and checks signatures with the
 * same verifier receivers are given (server/webhooks/verify.ts).
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedWebhook[] = [];
  let server: Server | null = null;
  const receiver: WebhookReceiver = {
    url: "",
    requests,
    statusFor: () => 200,
    events: () =>
      requests.map(
        (r) => JSON.parse(r.rawBody) as { type: string; eventId: string; data: Record<string, unknown> },
      ),
    waitFor: async (predicate, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(requests)) {
        if (Date.now() > deadline)
          throw new Error(
            `webhook receiver: condition not met in ${timeoutMs} ms (${requests.length} requests)`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    isSignedWith: (request, secret) =>
      verifyWebhookSignature(
        request.rawBody,
        request.headers["x-service-signature"] as string | undefined,
        secret,
      ),
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
      const received = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      const status = receiver.statusFor(received, requests.length);
      requests.push({ ...received, status });
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "no");
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
