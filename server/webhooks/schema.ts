import { z } from "zod";
import { id, pathId, text } from "@/server/validation";

/** The five event types (docs/webhooks.md, "Events"). */
export const EVENT_TYPES = [
  "user.verified",
  "user.cancelled",
  "order.created",
  "order.status_updated",
  "order.paid",
] as const;
export const EventType = z.enum(EVENT_TYPES).meta({ id: "WebhookEventType" });
export type EventType = z.infer<typeof EventType>;

export const ORDER_EVENT_TYPES = [
  "order.created",
  "order.status_updated",
  "order.paid",
] as const satisfies readonly EventType[];
export const USER_EVENT_TYPES = ["user.verified", "user.cancelled"] as const satisfies readonly EventType[];

export function isOrderEvent(type: EventType): boolean {
  return type.startsWith("order.");
}

/** The envelope's `apiVersion` (docs/webhooks.md, "Envelope"; docs/api.md, "Versioning"). */
export const API_VERSION = "2026-05-12";

export const EndpointScope = z.enum(["developer", "merchant"]);
export type EndpointScope = z.infer<typeof EndpointScope>;

/** `mk_we_` + 16 lowercase hex (docs/api.md, "Identifiers"). */
export const ENDPOINT_ID_PATTERN = /^mk_we_[0-9a-f]{16}$/;
export const SIGNING_SECRET_PATTERN = /^[0-9a-f]{64}$/;

// ---------------------------------------------------------------------------------------------------------------
// Inputs

// The 2048-character limit is checked by the URL guard, so it answers `invalid_webhook_url` like every URL rule.
// `maxLength` is declared for /v1/openapi.json; the guard (which runs on every URL before anything is stored) refuses
// it.
const Url = text({ min: 1 }).meta({
  description: "HTTPS URL, at most 2048 characters; private and internal hosts are refused.",
  maxLength: 2048,
  example: "https://example.com/webhooks/marea",
});
const SubscribedEvents = z
  .array(EventType)
  .min(1)
  .max(EVENT_TYPES.length * 4)
  .meta({ description: "Event types delivered to this endpoint. Duplicates are ignored." });
const Description = text({ max: 500 });

/** POST /v1/webhook_endpoints (docs/webhooks.md, "Endpoints"). */
export const CreateWebhookEndpointInput = z
  .strictObject({
    url: Url,
    subscribedEvents: SubscribedEvents.optional().meta({
      description: "Default: every event type the endpoint's scope can receive.",
    }),
    description: Description.optional(),
    enabled: z.boolean().optional(),
  })
  .meta({ id: "CreateWebhookEndpointInput" });
export type CreateWebhookEndpointInput = z.infer<typeof CreateWebhookEndpointInput>;

/** POST /v1/webhook_endpoints/{id}: only present fields change; the secret cannot be set or rotated here. */
export const UpdateWebhookEndpointInput = z
  .strictObject({
    url: Url.optional(),
    subscribedEvents: SubscribedEvents.optional(),
    description: Description.optional(),
    enabled: z.boolean().optional(),
  })
  .meta({ id: "UpdateWebhookEndpointInput" });
export type UpdateWebhookEndpointInput = z.infer<typeof UpdateWebhookEndpointInput>;

export const EndpointIdParams = z.strictObject({
  id: pathId("webhook_endpoint_not_found", "Webhook endpoint id, `mk_we_` + 16 hex."),
});

export const ListDeliveriesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(50).default(50),
});

/** POST /v1/webhook_endpoints/{id}/test */
export const TestFireInput = z.strictObject({ type: EventType }).meta({ id: "TestWebhookInput" });
export type TestFireInput = z.infer<typeof TestFireInput>;

// ---------------------------------------------------------------------------------------------------------------
// Outputs

/**
 * Every field of the endpoint object except `signingSecret`, shown by create and rotate only
 * (docs/webhooks.md, "Endpoints").
 */
export const WebhookEndpointDto = z
  .object({
    endpointId: z.string().regex(ENDPOINT_ID_PATTERN),
    scope: EndpointScope,
    url: z.string(),
    description: z.string(),
    enabled: z.boolean(),
    subscribedEvents: z.array(EventType),
    signingSecretVersion: z.number().int().min(1),
    createdAt: z.string(),
    updatedAt: z.string(),
    lastDeliveryAt: z.string().nullable(),
    lastDeliveryStatus: z.enum(["success", "failure"]).nullable(),
    consecutiveFailures: z.number().int().min(0),
  })
  .meta({ id: "WebhookEndpoint" });
export type WebhookEndpointDto = z.infer<typeof WebhookEndpointDto>;

export const WebhookEndpointWithSecretDto = WebhookEndpointDto.extend({
  signingSecret: z.string().regex(SIGNING_SECRET_PATTERN).meta({
    description: "64 lowercase hex characters. Shown by create and rotate-secret only; store it now.",
  }),
}).meta({ id: "WebhookEndpointWithSecret" });
export type WebhookEndpointWithSecretDto = z.infer<typeof WebhookEndpointWithSecretDto>;

export const WebhookEndpointList = z
  .object({ data: z.array(WebhookEndpointDto), nextCursor: z.string().nullable() })
  .meta({ id: "WebhookEndpointList" });
export type WebhookEndpointList = z.infer<typeof WebhookEndpointList>;

export const DeletedWebhookEndpoint = z
  .object({ id: z.string(), deleted: z.literal(true) })
  .meta({ id: "DeletedWebhookEndpoint" });

export const DeliveryAttemptDto = z
  .object({
    n: z.number().int().min(1),
    at: z.string(),
    httpStatus: z.number().int().nullable(),
    durationMs: z.number().int(),
    error: z.string().nullable(),
  })
  .meta({ id: "WebhookDeliveryAttempt" });

export const DeliveryStatus = z.enum(["pending", "delivered", "failed", "max_attempts_reached"]);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

/**
 * The delivery log entry, with the first 2 KiB of the last response body (docs/webhooks.md, "Delivery log and
 * test fires").
 */
export const WebhookDeliveryDto = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    eventId: z.string(),
    type: EventType,
    status: DeliveryStatus.meta({
      description:
        "`pending`: no attempt made yet; `failed`: the last attempt failed (`nextAttemptAt` is the retry, or null " +
        "when the endpoint was paused); `delivered`; `max_attempts_reached`: the third attempt failed.",
    }),
    attempts: z.array(DeliveryAttemptDto),
    nextAttemptAt: z.string().nullable(),
    createdAt: z.string(),
    lastResponseBody: z.string().nullable(),
    test: z.boolean().meta({ description: "True for test fires (`__test` in the envelope)." }),
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDeliveryDto = z.infer<typeof WebhookDeliveryDto>;

export const WebhookDeliveryList = z
  .object({ data: z.array(WebhookDeliveryDto), nextCursor: z.null() })
  .meta({ id: "WebhookDeliveryList" });
export type WebhookDeliveryList = z.infer<typeof WebhookDeliveryList>;

export const TestFireResponse = z.object({ eventId: z.string() }).meta({ id: "TestWebhookResponse" });

// ---------------------------------------------------------------------------------------------------------------
// The dashboard's delivery log (docs/webhooks.md, "Delivery log and test fires"; docs/ui.md, "Webhooks"). Resend
// and Recover are dashboard actions only: no /v1 route, no GraphQL field, no MCP tool.

/** `dlv_` + a lowercase ULID (docs/api.md, "Identifiers"). */
export const DELIVERY_ID_PATTERN = /^dlv_[0-9a-z]{26}$/;

const EndpointIdInput = id();
const DeliveryIdInput = id();

/** One endpoint of the dashboard; no `scope`: a session's default, merchant (server/webhooks/endpoint-scope.ts). */
export const DashboardEndpointRef = z.strictObject({
  scope: EndpointScope.optional(),
  endpointId: EndpointIdInput,
});

/** The log, newest first, at most 50, optionally only one status and one event type. */
export const DeliveryLogQuery = DashboardEndpointRef.extend({
  status: DeliveryStatus.optional(),
  type: EventType.optional(),
});
export type DeliveryLogQuery = z.infer<typeof DeliveryLogQuery>;

export const DeliveryRef = DashboardEndpointRef.extend({ deliveryId: DeliveryIdInput });
export type DeliveryRef = z.infer<typeof DeliveryRef>;

/** Recover: every failed or `max_attempts_reached` delivery created since `since` (within the 30 days kept). */
export const RecoverDeliveriesInput = DashboardEndpointRef.extend({
  since: z.iso.datetime({ offset: true }),
});
export type RecoverDeliveriesInput = z.infer<typeof RecoverDeliveriesInput>;

export const UpdateDashboardEndpointInput = DashboardEndpointRef.extend({
  patch: UpdateWebhookEndpointInput,
});
export const TestDashboardEndpointInput = DashboardEndpointRef.extend({ type: EventType });

/**
 * A log entry in the dashboard: the /v1 entry without `lastResponseBody` (up to 2 KiB per entry that the log never
 * shows, sent again with every refresh; the detail shows each attempt's answer), plus the delivery it sends again,
 * if it is a Resend.
 */
export const DashboardDeliveryDto = WebhookDeliveryDto.omit({ lastResponseBody: true }).extend({
  resendOf: z.string().nullable(),
});
export type DashboardDeliveryDto = z.infer<typeof DashboardDeliveryDto>;

export type DeliveryLog = { data: DashboardDeliveryDto[] };

/** One attempt with the exact request it sent (every header) and the first 2 KiB of the answer. */
export type DeliveryAttemptDetail = {
  n: number;
  at: string;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
  /** Null for attempts recorded before URLs were kept. */
  url: string | null;
  /** Header name and value, in the order sent; the signature is null when it was not recorded. */
  headers: Array<{ name: string; value: string | null }>;
  responseBody: string | null;
};

/** A delivery's detail: its log entry, the exact body sent (the same bytes every attempt) and each attempt. */
export type DeliveryDetailDto = Omit<DashboardDeliveryDto, "attempts"> & {
  body: string;
  attempts: DeliveryAttemptDetail[];
};

/** Attempts and successes in one hour (`hour`: its start, ISO). */
export type HealthBucket = { hour: string; attempts: number; successes: number };

/** An endpoint's last 24 hours: one bucket per hour, oldest first (24 of them), and the totals. */
export type EndpointHealthDto = {
  endpointId: string;
  since: string;
  hours: HealthBucket[];
  attempts: number;
  successes: number;
};

/** An endpoint in the dashboard's list, with its last 24 hours' attempts and successes. */
export type EndpointOverviewDto = WebhookEndpointDto & { last24h: { attempts: number; successes: number } };
