import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { resetEnvForTests } from "@/server/env";
import { call } from "@/server/testing/api";
import { asAdapter, serviceContextFor } from "@/server/testing/context";
import { createEndpoint } from "./endpoints";
import { CreateWebhookEndpointInput, type WebhookEndpointWithSecretDto } from "./schema";

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
  /**
   * What broke the event contract: each request checked against /v1/openapi.json's `webhooks` (body and headers).
   * `close()` throws when it is not empty, so every test that receives deliveries checks the contract.
   */
  contractViolations: string[];
  /** Decides each answer (default 200 "ok"). */
  reply: (request: ReceivedRequest, index: number) => ReceiverReply;
  waitFor: (predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number) => Promise<void>;
  close: () => Promise<void>;
};

/**
 * A node:http receiver on 127.0.0.1 that records every request with its raw body, and checks each one against the
 * event contract served in /v1/openapi.json (`webhooks`): `close()` fails on any violation. `port` starts it again
 * where a closed one listened (a receiver back from an outage at the same URL); default a free port.
 */
export async function startReceiver(path = "/hook", options: { port?: number } = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const contractViolations: string[] = [];
  const checkContract = await deliveryContract();
  let server: Server | null = null;
  const receiver: Receiver = {
    url: "",
    port: 0,
    requests,
    contractViolations,
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
      if (server) {
        server.closeAllConnections();
        await new Promise((resolve) => server?.close(resolve));
        server = null;
      }
      if (contractViolations.length > 0) {
        throw new Error(`deliveries broke the event contract:\n${contractViolations.join("\n")}`);
      }
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
      contractViolations.push(...checkContract(received));
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
  return asAdapter(await serviceContextFor(developerKey), (ctx) =>
    createEndpoint(ctx, { scope: "developer", endpoint }),
  );
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

type OpenApiDocument = {
  webhooks: Record<
    string,
    {
      post: {
        parameters: Array<{ in: string; name: string; required?: boolean; schema: unknown }>;
        requestBody: { content: { "application/json": { schema: unknown } } };
      };
    }
  >;
  components: { schemas: Record<string, unknown> };
};

let compiledContract: Promise<(request: ReceivedRequest) => string[]> | undefined;

/**
 * The event contract as /v1/openapi.json serves it (docs/webhooks.md, "Events"): a check of one received request
 * (the body against its type's envelope schema, each declared header against its schema) that returns what is
 * wrong, or nothing. JSON Schema 2020-12 (OpenAPI 3.1's dialect) with formats, compiled once per test file.
 */
export function deliveryContract(): Promise<(request: ReceivedRequest) => string[]> {
  compiledContract ??= compileDeliveryContract();
  return compiledContract;
}

async function compileDeliveryContract(): Promise<(request: ReceivedRequest) => string[]> {
  const res = await call<OpenApiDocument>("GET", "/v1/openapi.json");
  if (res.status !== 200) throw new Error(`/v1/openapi.json answered ${res.status}`);
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  ajv.addVocabulary(["example"]);
  // The components as one schema document, so `#/components/schemas/X` references resolve where they stand.
  ajv.addSchema({ $id: "marea:openapi", $defs: res.body.components.schemas });
  const refs = (schema: unknown) =>
    JSON.parse(
      JSON.stringify(schema).replaceAll('"#/components/schemas/', '"marea:openapi#/$defs/'),
    ) as object;
  const byType = new Map<
    string,
    { body: ValidateFunction; headers: Array<[string, boolean, ValidateFunction]> }
  >();
  for (const [type, { post }] of Object.entries(res.body.webhooks)) {
    byType.set(type, {
      body: ajv.compile(refs(post.requestBody.content["application/json"].schema)),
      headers: post.parameters
        .filter((p) => p.in === "header")
        .map((p) => [p.name.toLowerCase(), p.required === true, ajv.compile(refs(p.schema))]),
    });
  }
  return (request) => {
    let body: { type?: unknown };
    try {
      body = JSON.parse(request.rawBody) as { type?: unknown };
    } catch {
      return [`${request.path}: the body is not JSON`];
    }
    const type = String(body.type);
    const contract = byType.get(type);
    if (!contract) return [`${request.path}: no webhook in /v1/openapi.json for type ${type}`];
    const problems: string[] = [];
    if (!contract.body(body)) problems.push(`${type} body: ${ajv.errorsText(contract.body.errors)}`);
    for (const [name, required, validate] of contract.headers) {
      const value = request.headers[name];
      if (value === undefined) {
        if (required) problems.push(`${type}: header ${name} missing`);
      } else if (!validate(value)) {
        problems.push(`${type} header ${name}: ${ajv.errorsText(validate.errors)}`);
      }
    }
    return problems;
  };
}
