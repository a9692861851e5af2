import { builder } from "@/server/graphql/builder";
import { connectionType, listQueryOf, toConnection } from "@/server/graphql/connections";
import type { GraphQLContext } from "@/server/graphql/context";
import { parseArg, parseId } from "@/server/graphql/input";
import { NodeRef, registerNodeType } from "@/server/graphql/node";
import { DeletedPayloadRef } from "@/server/graphql/payloads";
import { loadDeliveries, loadDeliveriesByEndpoint } from "./delivery-log";
import {
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  loadEndpoints,
  rotateSigningSecret,
  sendTestEvent,
  updateEndpoint,
} from "./endpoints";
import {
  CreateWebhookEndpointInput,
  TestFireInput,
  UpdateWebhookEndpointInput,
  type WebhookDeliveryDto,
  type WebhookEndpointDto,
  type WebhookEndpointWithSecretDto,
} from "./schema";

/**
 * Developer webhook endpoints over GraphQL (docs/graphql.md), as /v1's: the WebhookEndpoint type (never its
 * signing secret: only the create and rotate payloads carry it), its delivery log, queries and mutations.
 */

/**
 * Every webhook field acts on developer endpoints, whoever calls (docs/graphql.md): GraphQL also admits user keys
 * and sessions, whose default is merchant (server/webhooks/endpoint-scope.ts), and they get 403 here as over /v1.
 */
const DEVELOPER = { scope: "developer" } as const;

const DeliveryAttemptRef = builder
  .objectRef<WebhookDeliveryDto["attempts"][number]>("DeliveryAttempt")
  .implement({
    fields: (t) => ({
      n: t.exposeInt("n"),
      at: t.exposeString("at"),
      httpStatus: t.exposeInt("httpStatus", { nullable: true }),
      durationMs: t.exposeInt("durationMs"),
      error: t.exposeString("error", { nullable: true }),
    }),
  });

const DeliveryRef = builder.objectRef<WebhookDeliveryDto>("Delivery").implement({
  description: "One webhook delivery of the endpoint's log (/v1's delivery log entry), with its attempts.",
  interfaces: [NodeRef],
  fields: (t) => ({
    endpointId: t.exposeString("endpointId"),
    eventId: t.exposeString("eventId"),
    type: t.exposeString("type"),
    status: t.exposeString("status", {
      description: "`pending`, `delivered`, `failed` or `max_attempts_reached`.",
    }),
    attempts: t.field({ type: [DeliveryAttemptRef], resolve: (delivery) => delivery.attempts }),
    nextAttemptAt: t.exposeString("nextAttemptAt", { nullable: true }),
    createdAt: t.exposeString("createdAt"),
    lastResponseBody: t.exposeString("lastResponseBody", { nullable: true }),
    test: t.exposeBoolean("test", { description: "True for test fires." }),
  }),
});

const DeliveryConnectionRef = connectionType("Delivery", DeliveryRef);

export const WebhookEndpointRef = builder.objectRef<WebhookEndpointDto>("WebhookEndpoint").implement({
  description:
    "/v1's webhook endpoint, field for field, without `signingSecret` (its `id` is its `endpointId`).",
  interfaces: [NodeRef],
  fields: (t) => ({
    endpointId: t.exposeString("endpointId"),
    scope: t.exposeString("scope", { description: "`developer` or `merchant`." }),
    url: t.exposeString("url"),
    description: t.exposeString("description"),
    enabled: t.exposeBoolean("enabled"),
    subscribedEvents: t.exposeStringList("subscribedEvents"),
    signingSecretVersion: t.exposeInt("signingSecretVersion"),
    createdAt: t.exposeString("createdAt"),
    updatedAt: t.exposeString("updatedAt"),
    lastDeliveryAt: t.exposeString("lastDeliveryAt", { nullable: true }),
    lastDeliveryStatus: t.exposeString("lastDeliveryStatus", { nullable: true }),
    consecutiveFailures: t.exposeInt("consecutiveFailures"),
    deliveries: t.field({
      type: DeliveryConnectionRef,
      nullable: true,
      description:
        "The delivery log, newest first: the last 50 at most (30 days). `first` above 50 gives 50.",
      args: { first: t.arg.int() },
      resolve: async (endpoint, args, ctx) => {
        const { limit } = listQueryOf(args, ctx);
        const page = await ctx
          .loader(`deliveriesByEndpoint:${limit}`, (ids) =>
            loadDeliveriesByEndpoint(ctx.service, { ...DEVELOPER, endpointIds: ids, limit }),
          )
          .load(endpoint.endpointId);
        return toConnection(page, (delivery) => delivery.id);
      },
    }),
  }),
});

const WebhookEndpointConnectionRef = connectionType("WebhookEndpoint", WebhookEndpointRef);

function endpointLoader(ctx: GraphQLContext) {
  return ctx.loader<WebhookEndpointDto>("webhookEndpoints", (ids) =>
    loadEndpoints(ctx.service, { ...DEVELOPER, endpointIds: ids }),
  );
}
registerNodeType({
  prefix: "mk_we_",
  typeName: "WebhookEndpoint",
  load: (ctx, id) => endpointLoader(ctx).load(id),
});
registerNodeType({
  prefix: "dlv_",
  typeName: "Delivery",
  load: (ctx, id) =>
    ctx
      .loader<WebhookDeliveryDto>("deliveries", (ids) =>
        loadDeliveries(ctx.service, { ...DEVELOPER, deliveryIds: ids }),
      )
      .load(id),
});

builder.queryField("webhookEndpoint", (t) =>
  t.field({
    type: WebhookEndpointRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => endpointLoader(ctx).load(parseId(args.id, ctx)),
  }),
);

builder.queryField("webhookEndpoints", (t) =>
  t.field({
    type: WebhookEndpointConnectionRef,
    nullable: true,
    description:
      "The account's developer webhook endpoints, by id (`developer:webhooks` or `developer:bootstrap`).",
    args: { first: t.arg.int(), after: t.arg.string() },
    resolve: async (_, args, ctx) =>
      toConnection(
        await listEndpoints(ctx.service, { ...DEVELOPER, ...listQueryOf(args, ctx) }),
        (endpoint) => endpoint.endpointId,
      ),
  }),
);

const WebhookEndpointInputFields = (t: Parameters<Parameters<typeof builder.inputType>[1]["fields"]>[0]) => ({
  url: t.string({ description: "HTTPS, at most 2048 characters; private and internal hosts are refused." }),
  subscribedEvents: t.stringList({ description: "Event types (`order.created`...)." }),
  description: t.string(),
  enabled: t.boolean({ description: "false pauses the endpoint." }),
});

const CreateWebhookEndpointInputRef = builder.inputType("CreateWebhookEndpointInput", {
  fields: (t) => WebhookEndpointInputFields(t),
});
const UpdateWebhookEndpointInputRef = builder.inputType("UpdateWebhookEndpointInput", {
  description: "Only the fields sent change.",
  fields: (t) => WebhookEndpointInputFields(t),
});

type WithSecret = { webhookEndpoint: WebhookEndpointDto; signingSecret: string };

function withSecret(created: WebhookEndpointWithSecretDto): WithSecret {
  const { signingSecret, ...webhookEndpoint } = created;
  return { webhookEndpoint, signingSecret };
}

function secretPayload(name: string) {
  return builder.objectRef<WithSecret>(name).implement({
    fields: (t) => ({
      webhookEndpoint: t.field({ type: WebhookEndpointRef, resolve: (payload) => payload.webhookEndpoint }),
      signingSecret: t.exposeString("signingSecret", {
        description: "64 lowercase hex characters. Shown this once: store it now.",
      }),
    }),
  });
}

const CreateWebhookEndpointPayloadRef = secretPayload("CreateWebhookEndpointPayload");
const RotateWebhookSigningSecretPayloadRef = secretPayload("RotateWebhookSigningSecretPayload");

const SendTestEventPayloadRef = builder.objectRef<{ eventId: string }>("SendTestEventPayload").implement({
  fields: (t) => ({ eventId: t.exposeString("eventId") }),
});

builder.mutationField("createWebhookEndpoint", (t) =>
  t.field({
    type: CreateWebhookEndpointPayloadRef,
    nullable: true,
    description: "Register an endpoint (16 per account); the payload carries its signing secret, shown once.",
    args: { input: t.arg({ type: CreateWebhookEndpointInputRef, required: true }) },
    resolve: async (_, args, ctx) =>
      withSecret(
        await createEndpoint(ctx.service, {
          ...DEVELOPER,
          endpoint: parseArg(CreateWebhookEndpointInput, args.input, ctx),
        }),
      ),
  }),
);

builder.mutationField("updateWebhookEndpoint", (t) =>
  t.field({
    type: WebhookEndpointRef,
    nullable: true,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateWebhookEndpointInputRef, required: true }),
    },
    resolve: (_, args, ctx) =>
      updateEndpoint(ctx.service, {
        ...DEVELOPER,
        endpointId: parseId(args.id, ctx),
        patch: parseArg(UpdateWebhookEndpointInput, args.input, ctx),
      }),
  }),
);

builder.mutationField("rotateWebhookSigningSecret", (t) =>
  t.field({
    type: RotateWebhookSigningSecretPayloadRef,
    nullable: true,
    description: "A new signing secret (version + 1); the old one stops at once.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_, args, ctx) =>
      withSecret(await rotateSigningSecret(ctx.service, { ...DEVELOPER, endpointId: parseId(args.id, ctx) })),
  }),
);

builder.mutationField("deleteWebhookEndpoint", (t) =>
  t.field({
    type: DeletedPayloadRef,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) =>
      deleteEndpoint(ctx.service, { ...DEVELOPER, endpointId: parseId(args.id, ctx) }),
  }),
);

builder.mutationField("sendTestEvent", (t) =>
  t.field({
    type: SendTestEventPayloadRef,
    nullable: true,
    description: "A sample event of `type`, with `__test: true`, to this endpoint only.",
    args: { endpointId: t.arg.id({ required: true }), type: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) =>
      sendTestEvent(ctx.service, {
        ...DEVELOPER,
        endpointId: parseId(args.endpointId, ctx, "endpointId"),
        ...parseArg(TestFireInput, { type: args.type }, ctx),
      }),
  }),
);
