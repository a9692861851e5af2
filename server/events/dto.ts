import type { EventType } from "@/server/webhooks/schema";
import type { EventDto } from "./schema";

/** A row of the events list's statements (server/events/service.ts). */
export type EventRow = {
  id: string;
  event_id: string;
  type: string;
  created_at: string | Date;
  payload: string;
};

/** The one mapper of an event: its ids, type, time and exact envelope text, nothing else of the row. */
export function toEventDto(row: EventRow): EventDto {
  return {
    id: row.id,
    eventId: row.event_id,
    type: row.type as EventType,
    createdAt: new Date(row.created_at).toISOString(),
    payload: row.payload,
  };
}
