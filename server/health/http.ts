import { checkHealth } from "./service";

/**
 * GET /healthz as a fetch-style handler: served by the App Router (app/healthz/route.ts) under `next dev`, and
 * straight from node:http by the production start (server/host/main.ts). docs/operations.md, "Health".
 */
export async function handleHealthRequest(): Promise<Response> {
  const { status, body } = await checkHealth();
  return Response.json(body, { status, headers: { "cache-control": "no-store" } });
}
