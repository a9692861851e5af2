import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { signatureHeader } from "@/server/webhooks/verify";

/**
 * `marea listen` and `marea trigger` (docs/webhooks.md, "Local development: marea listen"). A client of the /v1 API
 * only: every rule (which events, resume, validation of triggered data) is the service's. The one thing it does
 * itself is sign each forward with the session's secret at the moment it sends it (server/webhooks/verify.ts, the
 * signer deliveries use), so the `t=` of a forwarded event is always fresh.
 */

const USAGE = `Usage:
  marea listen --forward-to <url> [--events <type,type>] [--api-key <key>] [--api-base <url>]
  marea trigger <event type> [--data '<json>'] [--api-key <key>] [--api-base <url>]

  --api-key   default: $MAREA_API_KEY
  --api-base  default: $MAREA_API_BASE or http://localhost:3000

Event types: user.verified, user.cancelled, order.created, order.status_updated, order.paid`;

/** A stream that sends nothing (not even its 15 s heartbeat) for this long is considered dead and reopened. */
const STALL_MS = 45_000;
const FORWARD_TIMEOUT_MS = 10_000;

type Options = { apiKey: string; apiBase: string };

type StreamEvent = {
  id: string;
  eventId: string;
  type: string;
  headers: Record<string, string>;
  payload: string;
};

class CliError extends Error {}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function commonOptions(values: { "api-key"?: string; "api-base"?: string }): Options {
  const apiKey = values["api-key"] ?? process.env.MAREA_API_KEY;
  if (!apiKey) throw new CliError("No API key: pass --api-key or set MAREA_API_KEY.");
  const apiBase = (values["api-base"] ?? process.env.MAREA_API_BASE ?? "http://localhost:3000").replace(
    /\/+$/,
    "",
  );
  return { apiKey, apiBase };
}

async function api(
  options: Options,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.apiKey}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET") headers["idempotency-key"] = randomUUID();
  const response = await fetch(`${options.apiBase}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    parsed = { raw: text };
  }
  return { status: response.status, body: parsed };
}

function errorText(body: Record<string, unknown>): string {
  const error = body.error as { code?: string; message?: string; param?: string } | undefined;
  if (!error) return JSON.stringify(body);
  return `${error.code}${error.param ? ` (${error.param})` : ""}: ${error.message}`;
}

// -----------------------------------------------------------------------------------------------------------------
// listen

async function listen(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      "forward-to": { type: "string" },
      events: { type: "string" },
      "api-key": { type: "string" },
      "api-base": { type: "string" },
    },
  });
  const options = commonOptions(values);
  const forwardTo = values["forward-to"];
  if (!forwardTo) throw new CliError("--forward-to <url> is required.");
  const events = values.events
    ?.split(",")
    .map((type) => type.trim())
    .filter(Boolean);
  const created = await api(options, "POST", "/v1/listen_sessions", {
    forwardTo,
    ...(events ? { events } : {}),
  });
  if (created.status !== 201)
    throw new CliError(`Could not open a listen session: ${errorText(created.body)}`);
  const session = created.body.session as { id: string; scope: string; events: string[] };
  const secret = created.body.signingSecret as string;
  say(`> Ready! Listen session ${session.id} (${session.scope} events: ${session.events.join(", ")})`);
  say(`> Your webhook signing secret is ${secret} (^C to quit)`);
  say(`> Forwarding to ${forwardTo}`);

  const abort = new AbortController();
  let isStopping = false;
  const stop = () => {
    if (isStopping) process.exit(130);
    isStopping = true;
    abort.abort();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);

  let lastEventId: string | null = null;
  let failures = 0;
  let exitCode = 0;
  while (!isStopping) {
    const result = await streamOnce(options, session.id, lastEventId, abort.signal, async (event) => {
      lastEventId = event.id;
      await forward(forwardTo, secret, event);
    });
    if (result.kind === "closed") {
      say(`> Session closed (${result.reason}).`);
      return 0;
    }
    if (result.kind === "fatal") {
      say(`> ${result.message}`);
      exitCode = 1;
      break;
    }
    if (isStopping) break;
    failures = result.receivedAny ? 1 : failures + 1;
    const waitMs = Math.min(500 * 2 ** (failures - 1), 5000);
    say(
      `> Connection lost (${result.message}); reconnecting in ${waitMs} ms${lastEventId ? ` from ${lastEventId}` : ""}`,
    );
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
  const closed = await api(options, "DELETE", `/v1/listen_sessions/${session.id}`).catch(() => null);
  if (closed?.status === 200) say(`> Session ${session.id} closed.`);
  return exitCode;
}

type StreamResult =
  | { kind: "lost"; message: string; receivedAny: boolean }
  | { kind: "closed"; reason: string }
  | { kind: "fatal"; message: string };

/** One connection of the stream: reads SSE messages until it ends, and hands each event to `onEvent` in order. */
async function streamOnce(
  options: Options,
  sessionId: string,
  lastEventId: string | null,
  stopSignal: AbortSignal,
  onEvent: (event: StreamEvent) => Promise<void>,
): Promise<StreamResult> {
  const connection = new AbortController();
  const onStop = () => connection.abort();
  stopSignal.addEventListener("abort", onStop);
  let stallTimer: NodeJS.Timeout | undefined;
  const armStall = () => {
    clearTimeout(stallTimer);
    stallTimer = setTimeout(() => connection.abort(), STALL_MS);
  };
  let receivedAny = false;
  try {
    armStall();
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.apiKey}`,
      accept: "text/event-stream",
    };
    if (lastEventId) headers["last-event-id"] = lastEventId;
    const response = await fetch(`${options.apiBase}/v1/listen_sessions/${sessionId}/stream`, {
      headers,
      signal: connection.signal,
    });
    if (!response.ok || !response.body) {
      const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
      if (response.status === 410) return { kind: "closed", reason: errorText(body) };
      if (response.status >= 500 || response.status === 429)
        return { kind: "lost", message: `HTTP ${response.status}`, receivedAny };
      return { kind: "fatal", message: `The stream was refused: ${errorText(body)}` };
    }
    const decoder = new TextDecoder();
    let buffer = "";
    const reader = response.body.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      armStall();
      buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, "\n");
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message = parseSse(block);
        if (message.event === "webhook" && message.data) {
          receivedAny = true;
          await onEvent(JSON.parse(message.data) as StreamEvent);
        } else if (message.event === "closed") {
          const reason = (JSON.parse(message.data || "{}") as { reason?: string }).reason ?? "closed";
          return { kind: "closed", reason };
        }
      }
    }
    return { kind: "lost", message: "the stream ended", receivedAny };
  } catch (error) {
    return { kind: "lost", message: error instanceof Error ? error.message : String(error), receivedAny };
  } finally {
    clearTimeout(stallTimer);
    stopSignal.removeEventListener("abort", onStop);
  }
}

function parseSse(block: string): { event: string; data: string; id: string | null } {
  let event = "message";
  const data: string[] = [];
  let id: string | null = null;
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  return { event, data: data.join("\n"), id };
}

/** POSTs one event to the local URL as a delivery would, signed now, and prints one line with the answer. */
async function forward(url: string, secret: string, event: StreamEvent): Promise<void> {
  const started = Date.now();
  const signature = signatureHeader(secret, Math.floor(started / 1000), event.payload);
  const stamp = new Date(started).toISOString().replace("T", " ").slice(0, 19);
  let outcome: string;
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { ...event.headers, "X-Service-Signature": signature },
      body: event.payload,
      redirect: "manual",
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await response.arrayBuffer().catch(() => undefined);
    outcome = `[${response.status}]`;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    outcome = `[ERR ${cause ?? (error instanceof Error ? error.name : "error")}]`;
  }
  say(`${stamp}  ${event.type} ${event.id}  --> POST ${url} ${outcome} ${Date.now() - started} ms`);
}

// -----------------------------------------------------------------------------------------------------------------
// trigger

async function trigger(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      data: { type: "string" },
      "api-key": { type: "string" },
      "api-base": { type: "string" },
    },
  });
  const options = commonOptions(values);
  const type = positionals[0];
  if (!type) throw new CliError("Which event? e.g. `marea trigger order.created`.");
  let data: unknown;
  if (values.data !== undefined) {
    try {
      data = JSON.parse(values.data);
    } catch {
      throw new CliError("--data is not valid JSON.");
    }
  }
  const sent = await api(options, "POST", "/v1/listen_sessions/trigger", {
    type,
    ...(data === undefined ? {} : { data }),
  });
  if (sent.status !== 202) throw new CliError(`Not triggered: ${errorText(sent.body)}`);
  const ids = sent.body.sessionIds as string[];
  say(`Triggered ${type} ${sent.body.id} (eventId ${sent.body.eventId}) to ${ids.join(", ")}`);
  return 0;
}

// -----------------------------------------------------------------------------------------------------------------

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === "listen") return await listen(rest);
    if (command === "trigger") return await trigger(rest);
    say(USAGE);
    return command === undefined || command === "help" || command === "--help" ? 0 : 2;
  } catch (error) {
    if (error instanceof CliError || (error instanceof Error && error.name === "TypeError")) {
      process.stderr.write(`marea: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
