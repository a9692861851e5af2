import { z } from "zod";
import { jsonValue, pathId, text } from "@/server/validation";
import { EndpointScope, EVENT_TYPES, EventType } from "@/server/webhooks/schema";

/**
 * `marea listen` and `marea trigger` (docs/webhooks.md, "Local development: marea listen"; docs/api.md, "Listen
 * sessions"): a session streams the events of the key's account to the developer's machine, where the CLI forwards
 * each one to a local URL signed with the session's own secret.
 */

/** `lsn_` + a lowercase ULID. */
export const LISTEN_SESSION_ID_PATTERN = /^lsn_[0-9a-z]{26}$/;

/** Open sessions per account at a time (a developer runs one or two; a loop that never closes them stops here). */
export const MAX_OPEN_LISTEN_SESSIONS = 10;

/**
 * A session whose stream has not been connected for an hour stops receiving events and is closed (`idle`) when next
 * seen: a laptop closed overnight does not pile events up.
 */
export const LISTEN_IDLE_MS = 60 * 60 * 1000;

export function listenIdleSince(now: Date): Date {
  return new Date(now.getTime() - LISTEN_IDLE_MS);
}

const Events = z
  .array(EventType)
  .min(1)
  .max(EVENT_TYPES.length * 4)
  .meta({
    description:
      "Only these event types (duplicates ignored). Default: every type the key receives: a developer key user.* " +
      "and order.*, a user key order.*.",
  });

/** POST /v1/listen_sessions. */
export const CreateListenSessionInput = z
  .strictObject({
    forwardTo: text({ min: 1, max: 2048 }).meta({
      description:
        "Where the CLI forwards the events (shown in the dashboard; Marea never calls it). Usually a local URL.",
      example: "http://localhost:4000/hooks",
    }),
    events: Events.optional(),
  })
  .meta({ id: "CreateListenSessionInput" });
export type CreateListenSessionInput = z.infer<typeof CreateListenSessionInput>;

export const ListenSessionStatus = z.enum(["open", "closed"]);

export const ListenSessionDto = z
  .object({
    id: z.string().meta({ description: "`lsn_` + ULID.", example: "lsn_01jd8x4w6y3k2m9q7r5t1v0z8a" }),
    scope: EndpointScope.meta({
      description:
        "`developer` (a developer key's events) or `merchant` (a user key's: order.* of its storefronts).",
    }),
    forwardTo: z.string(),
    events: z.array(EventType),
    status: ListenSessionStatus,
    /** True while a stream of this session is connected (seen in the last minute). */
    connected: z.boolean(),
    keyId: z.string().nullable().meta({ description: "The API key that opened it." }),
    createdAt: z.string(),
    lastSeenAt: z.string(),
    closedAt: z.string().nullable(),
    closedReason: z.enum(["cli", "dashboard", "idle", "key_revoked"]).nullable(),
  })
  .meta({ id: "ListenSession" });
export type ListenSessionDto = z.infer<typeof ListenSessionDto>;

export const ListenSessionWithSecretDto = z
  .object({
    session: ListenSessionDto,
    signingSecret: z.string().meta({
      description:
        "64 hex characters, returned this once: the CLI signs each forwarded event with it (`X-Service-Signature`, " +
        "as a real delivery), and your local receiver verifies with it. Marea keeps no copy.",
    }),
  })
  .meta({ id: "ListenSessionWithSecret" });
export type ListenSessionWithSecretDto = z.infer<typeof ListenSessionWithSecretDto>;

export const ListenSessionList = z
  .object({ data: z.array(ListenSessionDto) })
  .meta({ id: "ListenSessionList" });
export type ListenSessionList = z.infer<typeof ListenSessionList>;

export const ListenSessionIdParams = z.strictObject({
  sessionId: pathId("listen_session_not_found", "The session's id (`lsn_…`)."),
});

/** The service's input of the stream: `Last-Event-ID` is the last event the CLI received (resume point). */
export type StreamListenSessionInput = { sessionId: string; lastEventId: string | null };

/** POST /v1/listen_sessions/trigger. */
export const TriggerListenEventInput = z
  .strictObject({
    type: EventType,
    data: z
      .record(text({ max: 64 }), jsonValue())
      .optional()
      .meta({
        description:
          "Overrides merged into the sample `data` of `type` (objects merged key by key, arrays and values replaced), " +
          "then checked against the type's schema (`/v1/openapi.json`, `webhooks`). An unknown field is refused.",
        example: { totalPrice: 99.5, customer: { name: "Test Customer" } },
      }),
  })
  .meta({ id: "TriggerListenEventInput" });
export type TriggerListenEventInput = z.infer<typeof TriggerListenEventInput>;

export const TriggeredListenEvent = z
  .object({
    id: z.string().meta({ description: "The event's own id (`evt_…`): the stream's `id:`." }),
    eventId: z.string().meta({ description: "The envelope's `eventId` (UUID v4)." }),
    type: EventType,
    sessionIds: z.array(z.string()).meta({ description: "The open listen sessions it was sent to." }),
  })
  .meta({ id: "TriggeredListenEvent" });
export type TriggeredListenEvent = z.infer<typeof TriggeredListenEvent>;

/**
 * One event of a stream, the `data:` of an SSE `event: webhook` message: the envelope exactly as a delivery sends
 * it and the delivery's headers without the signature, which the CLI adds at the moment it forwards.
 */
export type ListenStreamEvent = {
  id: string;
  eventId: string;
  type: EventType;
  headers: Record<string, string>;
  payload: string;
};
