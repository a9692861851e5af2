import { z } from "zod";
import { defineRoute } from "@/server/http/route";
import { text } from "@/server/validation";
import {
  CreateListenSessionInput,
  ListenSessionDto,
  ListenSessionIdParams,
  ListenSessionList,
  ListenSessionWithSecretDto,
  TriggeredListenEvent,
  TriggerListenEventInput,
} from "./schema";
import {
  closeListenSession,
  createListenSession,
  type ListenStreamMessage,
  listListenSessions,
  openListenStream,
  triggerListenEvent,
} from "./service";

const tags = ["listen"];

/**
 * The stream's wire format: Server-Sent Events (docs/api.md, "Listen sessions"). One long response per connection,
 * so a reconnection is one counted request, not one per poll; `id:` is the event's `evt_` id, which the client
 * sends back as `Last-Event-ID` to resume; a comment every 15 s keeps proxies from closing an idle connection.
 */
function sseChunk(message: ListenStreamMessage): string {
  switch (message.kind) {
    case "event":
      return `id: ${message.event.id}\nevent: webhook\ndata: ${JSON.stringify(message.event)}\n\n`;
    case "heartbeat":
      return ": heartbeat\n\n";
    case "closed":
      return `event: closed\ndata: ${JSON.stringify({ reason: message.reason })}\n\n`;
  }
}

function toEventStream(
  sessionId: string,
  messages: AsyncGenerator<ListenStreamMessage, void, undefined>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let isStarted = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!isStarted) {
          isStarted = true;
          // Sent at once, so the client (and every proxy on the way) sees the answer begin.
          controller.enqueue(encoder.encode(`retry: 1000\n: listening ${sessionId}\n\n`));
          return;
        }
        const next = await messages.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(sseChunk(next.value)));
      },
      async cancel() {
        await messages.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

const StreamQuery = z.strictObject({
  lastEventId: text({ max: 64 }).optional().meta({
    description:
      "The same as the `Last-Event-ID` header, for clients that cannot set it (EventSource polyfills).",
  }),
});

export const listenRoutes = [
  defineRoute({
    operationId: "createListenSession",
    method: "POST",
    path: "/v1/listen_sessions",
    summary:
      "Opens a `marea listen` session: the key's account's events (what `GET /v1/events` lists for this key) are streamed to it from now on. Answers the session's signing secret, this once.",
    tags,
    auth: "key",
    body: CreateListenSessionInput,
    responses: {
      201: { description: "The session and its signing secret", schema: ListenSessionWithSecretDto },
    },
    errors: ["listen_session_limit_reached"],
    handler: async (ctx, { body }) => ({ status: 201, body: await createListenSession(ctx, body) }),
  }),
  defineRoute({
    operationId: "listListenSessions",
    method: "GET",
    path: "/v1/listen_sessions",
    summary: "The account's listen sessions, newest first: the open ones and those closed in the last day.",
    tags,
    auth: "key",
    responses: { 200: { description: "The sessions", schema: ListenSessionList } },
    handler: async (ctx) => ({ status: 200, body: await listListenSessions(ctx) }),
  }),
  defineRoute({
    operationId: "closeListenSession",
    method: "DELETE",
    path: "/v1/listen_sessions/{sessionId}",
    summary: "Closes a listen session: its stream ends and it receives nothing more.",
    tags,
    auth: "key",
    params: ListenSessionIdParams,
    responses: { 200: { description: "The closed session", schema: ListenSessionDto } },
    handler: async (ctx, { params }) => ({
      status: 200,
      body: await closeListenSession(ctx, { sessionId: params.sessionId }),
    }),
  }),
  defineRoute({
    operationId: "streamListenSession",
    method: "GET",
    path: "/v1/listen_sessions/{sessionId}/stream",
    summary:
      "The session's events as Server-Sent Events (`event: webhook`, `id:` the event's `evt_` id, `data:` the envelope with its delivery headers). Reconnect with `Last-Event-ID` to resume: nothing is lost or sent twice.",
    tags,
    auth: "key",
    params: ListenSessionIdParams,
    query: StreamQuery,
    responses: {
      200: {
        description:
          "`text/event-stream`. Each `event: webhook` message's `data` is `{id, eventId, type, headers, payload}`: `payload` is the exact envelope a delivery sends, `headers` the delivery's headers but `X-Service-Signature`, which the CLI computes with the session's secret when it forwards. `event: closed` ends the stream.",
        schema: z.string(),
        contentType: "text/event-stream",
      },
    },
    errors: ["listen_session_closed"],
    handler: async (ctx, { params, query, headers }) => {
      const stream = await openListenStream(ctx, {
        sessionId: params.sessionId,
        lastEventId: headers.get("last-event-id")?.slice(0, 64) || query.lastEventId || null,
      });
      return {
        status: 200,
        body: null,
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache, no-transform",
          // nginx and others buffer responses unless told not to.
          "x-accel-buffering": "no",
        },
        stream: toEventStream(params.sessionId, stream.messages),
      };
    },
  }),
  defineRoute({
    operationId: "triggerListenEvent",
    method: "POST",
    path: "/v1/listen_sessions/trigger",
    summary:
      "Fires a test event (`__test: true`) of `type` to the account's open listen sessions (`marea trigger`), with optional `data` overrides checked against the type's schema. No webhook endpoint receives it.",
    tags,
    auth: "key",
    body: TriggerListenEventInput,
    responses: { 202: { description: "Sent to the open sessions", schema: TriggeredListenEvent } },
    errors: ["listen_session_none_open", "webhook_action_rate_limited"],
    handler: async (ctx, { body }) => ({ status: 202, body: await triggerListenEvent(ctx, body) }),
  }),
];
