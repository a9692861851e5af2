import { READ_ONLY, toolsFor } from "@/server/mcp/tool";
import { EVENT_OPERATIONS } from "./operations";
import { EventList, ListEventsInput } from "./schema";
import { listEvents } from "./service";

const tool = toolsFor(EVENT_OPERATIONS);

/**
 * The events list as a tool (docs/mcp.md, "Tools"), read-only: a developer key reads the events of its developer
 * endpoints, a user key or an OAuth app those of the account's merchant endpoints. Nothing is sent again.
 */
export const eventTools = [
  tool(
    "marea.list_events",
    {
      title: "List webhook events",
      description:
        "The events your webhook endpoints are entitled to, newest first (30 days), each with the exact envelope JSON its deliveries carry. `undeliveredTo` (an endpoint id) lists what that endpoint was due and has not answered 2xx for. Filters: `types`, `createdGte`, `createdLt`. Pass `nextCursor` as `cursor` for the next page. Reading sends nothing.",
      operation: "listEvents",
      input: ListEventsInput,
      output: EventList,
      annotations: READ_ONLY,
    },
    (ctx, input) => listEvents(ctx, input),
  ),
];
