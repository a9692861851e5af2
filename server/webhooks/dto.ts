import type { EventType, WebhookDeliveryDto, WebhookEndpointDto } from "./schema";
import type { webhookDeliveries, webhookEndpoints } from "./tables";

/** The one mapping from each webhooks row to what callers see: an endpoint never shows its secret here. */

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** The columns of a delivery that its DTO shows (a log selects only these: server/webhooks/delivery-log.ts). */
export type DeliveryDtoRow = Pick<
  DeliveryRow,
  "id" | "endpointId" | "status" | "attempts" | "nextAttemptAt" | "createdAt" | "lastResponseBody"
>;

/** A delivery as the dashboard's log shows it: every field of the /v1 DTO but the last answer's body. */
export function toDeliveryEntry(
  row: Omit<DeliveryDtoRow, "lastResponseBody">,
  event: { eventId: string; type: string; isTest: boolean },
): Omit<WebhookDeliveryDto, "lastResponseBody"> {
  return {
    id: row.id,
    endpointId: row.endpointId,
    eventId: event.eventId,
    type: event.type as EventType,
    status: row.status,
    // Only the fields /v1 documents: the request details kept with each attempt are the dashboard's.
    attempts: row.attempts.map((a) => ({
      n: a.n,
      at: a.at,
      httpStatus: a.httpStatus,
      durationMs: a.durationMs,
      error: a.error,
    })),
    nextAttemptAt: row.nextAttemptAt ? row.nextAttemptAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    test: event.isTest,
  };
}

export function toDeliveryDto(
  row: DeliveryDtoRow,
  event: { eventId: string; type: string; isTest: boolean },
): WebhookDeliveryDto {
  return Object.assign(toDeliveryEntry(row, event), { lastResponseBody: row.lastResponseBody });
}

export function toEndpointDto(row: EndpointRow): WebhookEndpointDto {
  return {
    endpointId: row.id,
    scope: row.scope,
    url: row.url,
    description: row.description,
    enabled: row.enabled,
    subscribedEvents: row.subscribedEvents as EventType[],
    signingSecretVersion: row.signingSecretVersion,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    lastDeliveryAt: row.lastDeliveryAt ? row.lastDeliveryAt.toISOString() : null,
    lastDeliveryStatus: row.lastDeliveryStatus,
    consecutiveFailures: row.consecutiveFailures,
  };
}
