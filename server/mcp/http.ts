import { dbReady } from "@/server/db/client";
import { env } from "@/server/env";
import { AppError, type Language } from "@/server/errors";
import { BODY_LIMITS, readBoundedBody } from "@/server/kit/body";
import { envelopeResponse } from "@/server/kit/envelope";
import { toAppError } from "@/server/kit/errors";
import { acceptLanguageOf } from "@/server/kit/language";
import { newId } from "@/server/lib/ids";
import { mcpUrl } from "@/server/oauth/urls";
import { assertOAuthScopes, authenticateMcpRequest, McpHttpError } from "./auth";
import type { McpCall } from "./handlers";
import { installMcpCatalogue, type McpCatalogue } from "./registry";
import { serveMcp } from "./server";

/**
 * `{mcp_url}` (docs/mcp.md): MCP over Streamable HTTP, stateless, in a route handler. In this order: Host and
 * Origin (DNS-rebinding protection) -> authentication and rate limiting (a static key or an OAuth token) -> body
 * (1 MiB at most, read through the capped reader, JSON; one message: a batch is refused) -> over OAuth, the scope
 * the method needs (403 step-up) -> the official SDK (`server.ts`: both protocol eras) -> the handlers.
 */

export const MAX_MCP_BODY_BYTES = BODY_LIMITS.api;

type State = { requestId: string; language: Language; headers: Record<string, string> };

function hostOf(url: string): string {
  return new URL(url).host.toLowerCase();
}

function originOf(url: string): string {
  return new URL(url).origin;
}

/** The Host header must name this service (APP_URL's or MCP_URL's host): a rebound DNS name is refused. */
function isAllowedHost(request: Request): boolean {
  const host = (request.headers.get("host") ?? new URL(request.url).host).toLowerCase();
  return host === hostOf(mcpUrl()) || host === hostOf(env().APP_URL);
}

/** A browser's Origin, when sent, must be this service's own. Clients outside browsers send none. */
function isAllowedOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  return origin === originOf(mcpUrl()) || origin === originOf(env().APP_URL);
}

function jsonResponse(status: number, body: unknown, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

function refusal(error: AppError, state: State, headers: Record<string, string> = {}): Response {
  return envelopeResponse(error, { ...state, headers: { ...state.headers, ...headers } });
}

/** JSON-RPC's "Invalid Request": the body is JSON, but not one message. */
const INVALID_REQUEST = -32600;

/** A JSON-RPC error without an id, for a message that could not be read. */
function rpcRefusal(status: number, code: number, message: string, state: State): Response {
  return jsonResponse(
    status,
    { jsonrpc: "2.0", id: null, error: { code, message } },
    { ...state.headers, "x-request-id": state.requestId },
  );
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: merged,
  });
}

/** The MCP door over a catalogue of tools and resources (server/wiring/mcp.ts gives the app's). */
export function createMcpDoor(
  catalogue: McpCatalogue,
): (request: Request, options?: { now?: () => Date }) => Promise<Response> {
  installMcpCatalogue(catalogue);
  return handleMcpRequest;
}

async function handleMcpRequest(request: Request, options: { now?: () => Date } = {}): Promise<Response> {
  const now = options.now ?? (() => new Date());
  const state: State = {
    requestId: newId("req"),
    language: acceptLanguageOf(request),
    headers: {},
  };
  try {
    if (!isAllowedHost(request)) return refusal(new AppError("host_not_allowed"), state);
    if (!isAllowedOrigin(request)) return refusal(new AppError("cross_site_request"), state);
    const db = await dbReady();
    const auth = await authenticateMcpRequest(db, request, now());
    state.headers = auth.headers;
    if (request.method !== "POST")
      return refusal(new AppError("method_not_allowed"), state, { allow: "POST" });

    const raw = await readBoundedBody(request, MAX_MCP_BODY_BYTES);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return rpcRefusal(400, -32700, "Parse error: the body is not JSON.", state);
    }
    // One message per request (docs/mcp.md, "Batches"): JSON-RPC batching left MCP in 2025-06-18, and a batch
    // would run any number of calls for one counted request. Refused whole, before any of it runs.
    if (Array.isArray(body))
      return rpcRefusal(
        400,
        INVALID_REQUEST,
        "Invalid Request: batches are not supported; send one message.",
        state,
      );
    assertOAuthScopes(auth, [body]);

    const call: McpCall = {
      db,
      actor: auth.actor,
      requestId: state.requestId,
      language: state.language,
      now,
      usage: auth.usage,
    };
    const response = await serveMcp(request, body, call);
    return withHeaders(response, { ...state.headers, "x-request-id": state.requestId });
  } catch (error) {
    if (error instanceof McpHttpError) return refusal(error.error, state, error.headers);
    return refusal(toAppError(error, { requestId: state.requestId, door: "mcp" }), state);
  }
}
