import { z } from "zod";
import { createDocument, type ZodOpenApiPathsObject } from "zod-openapi";
import type { Messages } from "@/server/errors";
import { ORDER_STATUSES } from "@/server/orders/schema";
import { API_VERSION, EVENT_TYPES, type EventType } from "./schema";

// The `data` schemas carry no component id: nested ids would be rendered twice (input and output) beside the
// envelopes, which are the components (`OrderPaidEvent`); each envelope holds its `data` inline.

/**
 * The event contract (docs/webhooks.md, "Events"): ONE zod schema per event type. `emitEvent` parses every
 * envelope it stores with these schemas, `/v1/openapi.json` publishes them as its `webhooks` section, and
 * `GET /v1/event_types` serves them to tools, so what is sent, what is documented and what tools read cannot
 * drift apart. This file imports nothing that touches the database: SDKs and tools can import it as is.
 */

const Timestamp = z.iso
  .datetime({ offset: true })
  .meta({ description: "ISO 8601 timestamp, UTC.", example: "2026-05-12T10:00:00.000Z" });

const id = (prefix: string, description: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_[0-9a-z]{26}$`))
    .meta({ description: `${description} (\`${prefix}_\` + a lowercase ULID).` });

const UserId = id("usr", "The user's account id");
const DeveloperKeyId = id("key", "The developer key that bootstrapped the user");
const OrderId = id("ord", "The order's id");
const StorefrontId = id("stf", "The storefront's id");

const CustomStatus = z.object({ id: z.string(), label: z.string() }).meta({
  description:
    "The status the customer sees: the merchant's own custom status, else the order status with its label in the storefront's language.",
});

const OrderStatus = z.enum(ORDER_STATUSES);

export const UserVerifiedData = z
  .object({ userId: UserId, developerKeyId: DeveloperKeyId, verifiedAt: Timestamp })
  .meta({ description: "`data` of `user.verified`." });

export const CancelReason = z
  .enum(["user_clicked_cancel", "squatting_defense", "30d_unverified", "90d_no_tos", "key_revoked"])
  .meta({
    description:
      "`user_clicked_cancel`: the user cancelled from the dashboard; `squatting_defense`: an unverified bootstrapped account was " +
      "cleaned up so a real person could sign up with the same email; `30d_unverified`: never verified, cleaned up after 30 days; " +
      "`90d_no_tos`: did not accept updated terms within 90 days; `key_revoked`: the bootstrapping developer key was revoked.",
  });

export const UserCancelledData = z
  .object({ userId: UserId, developerKeyId: DeveloperKeyId, cancelledAt: Timestamp, reason: CancelReason })
  .meta({ description: "`data` of `user.cancelled`." });

const orderFields = {
  orderId: OrderId,
  publicOrderId: z.int().min(1).meta({ description: "The order's number within its storefront, from 1." }),
  userId: id("usr", "The account that owns the storefront"),
  menuId: StorefrontId,
};

export const OrderCreatedData = z
  .object({
    ...orderFields,
    orderStatus: OrderStatus,
    customStatus: CustomStatus,
    totalPrice: z.number().min(0).meta({ description: "subtotalPrice + deliveryPrice." }),
    subtotalPrice: z.number().min(0),
    deliveryPrice: z.number().min(0),
    currency: z.string().meta({ description: "ISO 4217 code of the storefront's currency.", example: "USD" }),
    items: z.array(
      z.object({
        title: z.string().meta({
          description:
            "The product's title; chosen options are named in parentheses: `Pizza (Large, Extra cheese)`.",
        }),
        amount: z.int().min(1).meta({ description: "Units ordered." }),
        price: z.number().min(0).meta({ description: "Price per unit, options included." }),
      }),
    ),
    customer: z.object({ name: z.string(), phone: z.string() }),
    paymentMethod: z.object({ name: z.string() }),
    paymentStatus: z.enum(["pending", "paid"]),
    createdAt: Timestamp,
  })
  .meta({ description: "`data` of `order.created`." });

export const OrderPaidData = OrderCreatedData.extend({
  paymentMethod: z.object({
    id: z.string().meta({ description: "The payment's reference, as given when the order was paid." }),
    name: z.string(),
  }),
  paidAt: Timestamp,
}).meta({
  description: "`data` of `order.paid`: `order.created`'s fields with `paymentMethod.id` and `paidAt`.",
});

const OrderState = z.object({ orderStatus: OrderStatus, customStatus: CustomStatus });

export const OrderStatusUpdatedData = z
  .object({
    ...orderFields,
    previousState: OrderState,
    newState: OrderState,
    updatedAt: Timestamp,
  })
  .meta({
    description:
      "`data` of `order.status_updated`, a slim payload: merge it into what `order.created` told you, by `orderId`. Events can arrive out of order: compare `updatedAt`.",
  });

/** The `data` schema of each event type. */
export const EVENT_DATA_SCHEMAS = {
  "user.verified": UserVerifiedData,
  "user.cancelled": UserCancelledData,
  "order.created": OrderCreatedData,
  "order.status_updated": OrderStatusUpdatedData,
  "order.paid": OrderPaidData,
} as const satisfies Record<EventType, z.ZodObject>;

/** What a builder passes as `data` for `type`: checked (and unknown keys dropped) when the envelope is made. */
export type EventData<T extends EventType> = z.input<(typeof EVENT_DATA_SCHEMAS)[T]>;

/** The envelope of one event type: the same five fields for every type, its own `data` (docs/webhooks.md, "Envelope"). */
function envelopeOf<T extends EventType, D extends z.ZodObject>(type: T, data: D, schemaId: string) {
  return z
    .object({
      type: z.literal(type).meta({ description: "The event type, as in `X-Service-Event-Type`." }),
      eventId: z.uuid({ version: "v4" }).meta({
        description:
          "Unique per event and the same on every retry: your dedupe key (processing a repeat must be a no-op).",
      }),
      timestamp: Timestamp.meta({ description: "When the event happened (ISO 8601, UTC)." }),
      apiVersion: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}$/)
        .meta({
          description: `The payload format's date-form version; currently \`${API_VERSION}\`.`,
          example: API_VERSION,
        }),
      data,
      __test: z.literal(true).optional().meta({ description: "Present, and true, only on test fires." }),
    })
    .meta({ id: schemaId });
}

export const EVENT_ENVELOPE_SCHEMAS = {
  "user.verified": envelopeOf("user.verified", UserVerifiedData, "UserVerifiedEvent"),
  "user.cancelled": envelopeOf("user.cancelled", UserCancelledData, "UserCancelledEvent"),
  "order.created": envelopeOf("order.created", OrderCreatedData, "OrderCreatedEvent"),
  "order.status_updated": envelopeOf(
    "order.status_updated",
    OrderStatusUpdatedData,
    "OrderStatusUpdatedEvent",
  ),
  "order.paid": envelopeOf("order.paid", OrderPaidData, "OrderPaidEvent"),
} as const satisfies Record<EventType, z.ZodObject>;

/** The envelope POSTed to receivers; `EventEnvelope<"order.paid">` is exactly what an `order.paid` delivery carries. */
export type EventEnvelope<T extends EventType = EventType> = z.output<(typeof EVENT_ENVELOPE_SCHEMAS)[T]>;

/** Which `X-Service-Source` an event type is delivered with. */
export type EventSource = "merchant" | "developer";

export type EventContract = {
  type: EventType;
  source: EventSource;
  /** When it fires, in the interface languages; English is the one `/v1` serves. */
  description: Messages;
};

/** When each event fires and its source (docs/webhooks.md, "Events"), in catalogue order. */
export const EVENT_CATALOG: Record<EventType, EventContract> = {
  "user.verified": {
    type: "user.verified",
    source: "developer",
    description: {
      en: "A user you bootstrapped verified their email.",
      es: "Un usuario que diste de alta verificó su correo electrónico.",
      pt: "Um usuário que você cadastrou verificou o e-mail.",
    },
  },
  "user.cancelled": {
    type: "user.cancelled",
    source: "developer",
    description: {
      en: "A user you bootstrapped cancelled, or was removed by the service (`reason` says why).",
      es: "Un usuario que diste de alta canceló su cuenta, o el servicio la eliminó (`reason` dice por qué).",
      pt: "Um usuário que você cadastrou cancelou a conta, ou o serviço a removeu (`reason` diz por quê).",
    },
  },
  "order.created": {
    type: "order.created",
    source: "merchant",
    description: {
      en: "An order was placed on a storefront.",
      es: "Se hizo un pedido en una tienda.",
      pt: "Um pedido foi feito em uma loja.",
    },
  },
  "order.status_updated": {
    type: "order.status_updated",
    source: "merchant",
    description: {
      en: "An order's `orderStatus` or `customStatus` changed.",
      es: "Cambió el `orderStatus` o el `customStatus` de un pedido.",
      pt: "O `orderStatus` ou o `customStatus` de um pedido mudou.",
    },
  },
  "order.paid": {
    type: "order.paid",
    source: "merchant",
    description: {
      en: "An order was paid.",
      es: "Se pagó un pedido.",
      pt: "Um pedido foi pago.",
    },
  },
};

/** The headers of every delivery (docs/webhooks.md, "Delivery"), as OpenAPI header parameters of each webhook. */
function deliveryHeaders(type: EventType) {
  const source = EVENT_CATALOG[type].source;
  return z.object({
    "X-Service-Signature": z
      .string()
      .regex(/^t=\d+,v1=[0-9a-f]{64}$/)
      .meta({
        description:
          '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with the endpoint\'s signingSecret (its 64 hex ' +
          "characters as ASCII bytes). Reject when |now - t| > 300 s; compare in constant time.",
        example: "t=1778580000,v1=5f0c9a3e1b7d2c4f6a8e0b1d3c5f7a9e2b4d6f8a0c1e3b5d7f9a1c3e5b7d9f0a",
      }),
    "X-Service-Event-Type": z.literal(type).meta({ description: "The event type." }),
    "X-Service-Event-Id": z.uuid({ version: "v4" }).meta({ description: "The envelope's `eventId`." }),
    "X-Service-Endpoint-Id": z
      .string()
      .regex(/^(mk_we_[0-9a-f]{16}|lsn_[0-9a-z]{26})$/)
      .meta({
        description:
          "The endpoint this delivery is for; the listen session's id (`lsn_…`) when `marea listen` forwards it.",
      }),
    "X-Service-Signing-Version": z
      .string()
      .regex(/^[1-9]\d*$/)
      .meta({ description: "The endpoint's `signingSecretVersion` that signed this attempt." }),
    "X-Service-Source": z
      .literal(source)
      .meta({ description: "`merchant` for `order.*`, `developer` for `user.*`." }),
    "User-Agent": z.literal("service-webhook/1.0"),
  });
}

/**
 * The `webhooks` section of `/v1/openapi.json` (OpenAPI 3.1): one POST per event type, its body the type's envelope
 * (a `$ref` to `components.schemas`, so the schema is the one `emitEvent` enforces) and its headers.
 */
export function webhooksOpenApi(): ZodOpenApiPathsObject {
  const webhooks: ZodOpenApiPathsObject = {};
  for (const type of EVENT_TYPES) {
    const contract = EVENT_CATALOG[type];
    webhooks[type] = {
      post: {
        operationId: `${type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase())}Webhook`,
        summary: contract.description.en,
        description:
          `Sent to enabled endpoints subscribed to \`${type}\` (\`X-Service-Source: ${contract.source}\`). ` +
          "Answer 2xx within 5 seconds; other answers and timeouts are retried at +30 s and +5 min. " +
          "Verify `X-Service-Signature` against the raw body before parsing it.",
        tags: ["events"],
        requestParams: { header: deliveryHeaders(type) },
        requestBody: {
          required: true,
          // A reference, not the zod schema: a request body would be rendered as input, and this body is what Marea
          // sends (output: exact keys, `additionalProperties: false`). `eventSchemaComponents` registers it.
          content: {
            "application/json": { schema: { $ref: `#/components/schemas/${envelopeSchemaId(type)}` } },
          },
        },
        responses: {
          "2XX": { description: "Received. Any 2xx within 5 seconds counts as delivered." },
        },
      },
    };
  }
  return webhooks;
}

/** The component name of `type`'s envelope (`OrderPaidEvent`). */
export function envelopeSchemaId(type: EventType): string {
  const schemaId = z.globalRegistry.get(EVENT_ENVELOPE_SCHEMAS[type])?.id;
  if (typeof schemaId !== "string") throw new Error(`the ${type} envelope has no schema id`);
  return schemaId;
}

/** The envelope schemas for `components.schemas`, rendered as output (what Marea sends). */
export function eventSchemaComponents(): Record<string, z.ZodType> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [envelopeSchemaId(type), EVENT_ENVELOPE_SCHEMAS[type]]),
  );
}

/** One entry of `GET /v1/event_types` (docs/webhooks.md, "Event types for tools"). */
export const EventTypeInfo = z
  .object({
    type: z.enum(EVENT_TYPES),
    description: z.string(),
    source: z
      .enum(["merchant", "developer"])
      .meta({ description: "The `X-Service-Source` header it arrives with." }),
    schema: z.record(z.string(), z.unknown()).meta({
      description:
        "JSON Schema (draft 2020-12) of the whole envelope, self-contained: the same schema as this type's request body " +
        "in the `webhooks` section of /v1/openapi.json.",
    }),
  })
  .meta({ id: "EventTypeInfo" });

export const EventTypeList = z.object({ data: z.array(EventTypeInfo) }).meta({ id: "EventTypeList" });
export type EventTypeList = z.infer<typeof EventTypeList>;

let eventTypeList: EventTypeList | undefined;

/**
 * The five event types with their envelope schemas, for tools (`GET /v1/event_types`). The schemas are rendered by the
 * same generator, from the same zod schemas, as the components of /v1/openapi.json; built once per process.
 */
export function listEventTypes(): EventTypeList {
  eventTypeList ??= buildEventTypeList();
  return eventTypeList;
}

function buildEventTypeList(): EventTypeList {
  const document = createDocument({
    openapi: "3.1.0",
    info: { title: "Marea events", version: "1.0.0" },
    components: { schemas: eventSchemaComponents() },
  });
  const schemas = (document.components?.schemas ?? {}) as Record<string, Record<string, unknown>>;
  return {
    data: EVENT_TYPES.map((type) => {
      const schemaId = envelopeSchemaId(type);
      return {
        type,
        description: EVENT_CATALOG[type].description.en,
        source: EVENT_CATALOG[type].source,
        schema: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          title: schemaId,
          ...schemas[schemaId],
        },
      };
    }),
  };
}
