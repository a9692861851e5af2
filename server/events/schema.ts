import { z } from "zod";
import { ListQuery } from "@/server/lib/pagination";
import { pathId, text } from "@/server/validation";
import { EVENT_TYPES, EventType } from "@/server/webhooks/schema";

/**
 * The events list (docs/webhooks.md, "After an outage"; docs/api.md, "Events"): the events the caller's webhook
 * endpoints are entitled to, as recorded, for 30 days. A read: nothing is sent.
 */

/** `evt_` + a lowercase ULID: the event's own id, which orders the list (docs/api.md, "Identifiers"). */
export const EVENT_ID_PATTERN = /^evt_[0-9a-z]{26}$/;
/** The envelope's `eventId`, a UUID v4 (docs/webhooks.md, "Envelope"; Marea writes it lowercase). */
export const ENVELOPE_EVENT_ID_PATTERN =
  /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Events are listed for 30 days, the delivery log's retention (docs/webhooks.md, "Delivery log and test fires"). */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** At most this many `type` values in one request (each of the five types four times over is plenty). */
const MAX_TYPES = EVENT_TYPES.length * 4;

// 40 characters: the longest ISO 8601 timestamp with fractions and an offset fits (docs/api.md, "Maxima").
const Timestamp = z.iso.datetime({ offset: true }).max(40);

const TYPES_DESCRIPTION = "Only these event types (any of them).";
const CREATED_GTE_DESCRIPTION =
  "Only events created at or after this time (ISO 8601, e.g. `2026-05-12T10:00:00Z`). The list never goes back more than 30 days.";
const CREATED_LT_DESCRIPTION = "Only events created before this time (ISO 8601).";
const UNDELIVERED_TO_DESCRIPTION =
  "A webhook endpoint of yours (`mk_we_…`): only the events it was due and has not answered 2xx for, those that " +
  "reached `max_attempts_reached` included. A paused endpoint was never due the events of its pause.";

/** The service's input, the same for every door (REST maps its query parameters onto it). */
export const ListEventsInput = z.strictObject({
  limit: z.number().int().min(1).max(100).default(20),
  cursor: text({ max: 512 })
    .optional()
    .meta({ description: "`nextCursor` of the previous page. An unreadable cursor restarts at page one." }),
  types: z.array(EventType).min(1).max(MAX_TYPES).optional().meta({ description: TYPES_DESCRIPTION }),
  createdGte: Timestamp.optional().meta({ description: CREATED_GTE_DESCRIPTION }),
  createdLt: Timestamp.optional().meta({ description: CREATED_LT_DESCRIPTION }),
  undeliveredTo: text({ max: 64 }).optional().meta({ description: UNDELIVERED_TO_DESCRIPTION }),
});
export type ListEventsInput = z.infer<typeof ListEventsInput>;

/**
 * GET /v1/events. `type` repeats (`?type=order.created&type=order.paid`); the creation bounds are Stripe's
 * `created[gte]` and `created[lt]`.
 */
export const ListEventsQuery = z.strictObject({
  limit: ListQuery.shape.limit,
  cursor: ListQuery.shape.cursor,
  type: z
    .array(EventType)
    .min(1)
    .max(MAX_TYPES)
    .optional()
    .meta({
      description: `${TYPES_DESCRIPTION} Repeat the parameter for several: \`?type=order.created&type=order.paid\`.`,
    }),
  "created[gte]": Timestamp.optional().meta({ description: CREATED_GTE_DESCRIPTION }),
  "created[lt]": Timestamp.optional().meta({ description: CREATED_LT_DESCRIPTION }),
  undeliveredTo: text({ max: 64 }).optional().meta({ description: UNDELIVERED_TO_DESCRIPTION }),
});
export type ListEventsQuery = z.infer<typeof ListEventsQuery>;

export const EventIdParams = z.strictObject({
  eventId: pathId(
    "event_not_found",
    "The event's `id` (`evt_…`) or its envelope's `eventId` (the UUID of `X-Service-Event-Id`).",
  ),
});

/** One event as listed: its ids, type, time, and the exact envelope its deliveries carry. */
export const EventDto = z
  .object({
    id: z.string().regex(EVENT_ID_PATTERN).meta({
      description: "The event's own id (`evt_` + ULID). The list is newest first by this id.",
    }),
    eventId: z.string().meta({
      description:
        "The envelope's `eventId` (UUID v4, the `X-Service-Event-Id` header): the dedupe key your receiver already keeps.",
    }),
    type: EventType,
    createdAt: z.string(),
    payload: z.string().meta({
      description:
        "The envelope JSON exactly as delivered (or as it would have been), byte for byte: the raw body every " +
        "attempt sends and signs. Hand it to the same handler as a delivery's body.",
    }),
  })
  .meta({ id: "Event" });
export type EventDto = z.infer<typeof EventDto>;

export const EventList = z
  .object({ data: z.array(EventDto), nextCursor: z.string().nullable() })
  .meta({ id: "EventList" });
export type EventList = z.infer<typeof EventList>;
