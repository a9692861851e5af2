import { defineRoute } from "@/server/http/route";
import { EventDto, EventIdParams, EventList, ListEventsQuery } from "./schema";
import { getEvent, listEvents } from "./service";

const tags = ["events"];

/** The events list over /v1 (docs/api.md, "Events"): reads only, counted like every /v1 call. */
export const eventRoutes = [
  defineRoute({
    operationId: "listEvents",
    method: "GET",
    path: "/v1/events",
    summary:
      "The events your webhook endpoints are entitled to, newest first, for 30 days, each with the exact envelope its deliveries carry. `undeliveredTo` lists what one endpoint missed. A read: nothing is sent again.",
    tags,
    auth: "key",
    query: ListEventsQuery,
    responses: { 200: { description: "A page of events, newest first", schema: EventList } },
    errors: ["webhook_endpoint_not_found"],
    handler: async (ctx, { query }) => ({
      status: 200,
      body: await listEvents(ctx, {
        limit: query.limit,
        cursor: query.cursor,
        types: query.type,
        createdGte: query["created[gte]"],
        createdLt: query["created[lt]"],
        undeliveredTo: query.undeliveredTo,
      }),
    }),
  }),
  defineRoute({
    operationId: "getEvent",
    method: "GET",
    path: "/v1/events/{eventId}",
    summary:
      "One event by its `id` (`evt_…`) or its envelope's `eventId`, with the exact envelope its deliveries carry.",
    tags,
    auth: "key",
    params: EventIdParams,
    responses: { 200: { description: "The event", schema: EventDto } },
    handler: async (ctx, { params }) => ({
      status: 200,
      body: await getEvent(ctx, { eventId: params.eventId }),
    }),
  }),
];
