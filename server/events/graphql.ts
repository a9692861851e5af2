import { builder } from "@/server/graphql/builder";
import { connectionType, listQueryOf, toConnection } from "@/server/graphql/connections";
import type { GraphQLContext } from "@/server/graphql/context";
import { parseArg, parseId } from "@/server/graphql/input";
import { NodeRef, registerNodeType } from "@/server/graphql/node";
import { type EventDto, ListEventsInput } from "./schema";
import { listEvents, loadEvents } from "./service";

/**
 * The events list over GraphQL (docs/graphql.md), as /v1's `GET /v1/events`: the same service function, the same
 * authorization, the same items.
 */

const EventRef = builder.objectRef<EventDto>("Event").implement({
  description:
    "An event your webhook endpoints are entitled to (/v1's event): its id is the `evt_` id; `payload` is the exact envelope its deliveries carry.",
  interfaces: [NodeRef],
  fields: (t) => ({
    eventId: t.exposeString("eventId", {
      description: "The envelope's `eventId` (UUID v4, `X-Service-Event-Id`): the receivers' dedupe key.",
    }),
    type: t.exposeString("type"),
    createdAt: t.exposeString("createdAt"),
    payload: t.exposeString("payload", {
      description:
        "The envelope JSON exactly as delivered, byte for byte (the raw body every attempt sends and signs).",
    }),
  }),
});

const EventConnectionRef = connectionType("Event", EventRef);

function eventLoader(ctx: GraphQLContext) {
  return ctx.loader<EventDto>("events", (ids) => loadEvents(ctx.service, { eventIds: ids }));
}
registerNodeType({ prefix: "evt_", typeName: "Event", load: (ctx, id) => eventLoader(ctx).load(id) });

builder.queryField("event", (t) =>
  t.field({
    type: EventRef,
    nullable: true,
    description: "One event by its `evt_` id or its envelope's `eventId`.",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => eventLoader(ctx).load(parseId(args.id, ctx)),
  }),
);

builder.queryField("events", (t) =>
  t.field({
    type: EventConnectionRef,
    nullable: true,
    description:
      "The events your webhook endpoints are entitled to, newest first, for 30 days (`developer:read` or `developer:webhooks` for a developer key, `catalog:read` otherwise). `undeliveredTo` lists what one endpoint missed. A read: nothing is sent again.",
    args: {
      first: t.arg.int(),
      after: t.arg.string(),
      types: t.arg.stringList({ description: "Only these event types (`order.created`...)." }),
      createdGte: t.arg.string({ description: "Only events created at or after this time (ISO 8601)." }),
      createdLt: t.arg.string({ description: "Only events created before this time (ISO 8601)." }),
      undeliveredTo: t.arg.id({
        description: "An endpoint of yours: only the events it was due and has not answered 2xx for.",
      }),
    },
    resolve: async (_, args, ctx) => {
      const { limit, cursor } = listQueryOf(args, ctx);
      const input = parseArg(
        ListEventsInput,
        {
          limit,
          cursor,
          types: args.types ?? undefined,
          createdGte: args.createdGte ?? undefined,
          createdLt: args.createdLt ?? undefined,
          undeliveredTo: args.undeliveredTo ?? undefined,
        },
        ctx,
      );
      return toConnection(await listEvents(ctx.service, input), (event) => event.id);
    },
  }),
);
