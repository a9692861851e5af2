import { dbReady } from "@/server/db/client";
import { log } from "@/server/lib/log";
import { clientIp } from "@/server/sessions/client-ip";
import { registerClient } from "./clients";
import { isOAuthError, OAuthError } from "./errors";
import { authorizationServerMetadata, protectedResourceMetadata } from "./metadata";
import { exchangeToken, revokeToken, startAuthorization } from "./service";
import { authorizeErrorPageUrl, issuer, mcpUrl } from "./urls";

/**
 * The HTTP side of the authorization server (docs/mcp.md, "Authorization server"): each handler reads the
 * request, calls one function of `service.ts` or `clients.ts`, and answers in the RFCs' shapes. The endpoints a
 * client calls from a browser (metadata, register, token, revoke) allow any origin: they use no cookie.
 */

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-max-age": "86400",
} as const;

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" } as const;
const MAX_FORM_BYTES = 64 * 1024;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...CORS, ...NO_STORE, ...headers },
  });
}

function oauthErrorResponse(error: OAuthError, headers: Record<string, string> = {}): Response {
  const extra: Record<string, string> = { ...headers };
  if (error.retryAfterSeconds !== null) extra["retry-after"] = String(error.retryAfterSeconds);
  return json(error.status, error.toJSON(), extra);
}

async function guarded(work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (isOAuthError(error)) return oauthErrorResponse(error);
    log("error", "oauth endpoint failed", { error });
    return json(500, { error: "server_error", error_description: "Something went wrong on our side." });
  }
}

/** A preflight for the endpoints clients may call from a browser. */
export function handlePreflight(): Response {
  return new Response(null, { status: 204, headers: CORS });
}

async function readText(request: Request): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_FORM_BYTES) throw new OAuthError("invalid_request", "The request body is too large.");
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_FORM_BYTES)
    throw new OAuthError("invalid_request", "The request body is too large.");
  return text;
}

/** The form of a token or revocation request (`application/x-www-form-urlencoded`, RFC 6749 section 4.1.3). */
async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded"))
    throw new OAuthError("invalid_request", "Send the parameters as application/x-www-form-urlencoded.");
  return new URLSearchParams(await readText(request));
}

/**
 * Public clients send `client_id` in the form; some send it as HTTP Basic with an empty secret. A secret is never
 * checked (none is ever issued), and a client_id in both places must agree.
 */
function basicClientId(request: Request, form: URLSearchParams): string | null {
  const header = request.headers.get("authorization");
  if (!header) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match?.[1]) throw new OAuthError("invalid_client", "Only public clients are supported.");
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const id = decodeURIComponent((decoded.split(":")[0] ?? "").replace(/\+/g, " "));
  const inForm = form.get("client_id");
  if (inForm !== null && inForm !== id)
    throw new OAuthError("invalid_client", "Two different client_id values.");
  return id;
}

/** `GET|POST /oauth/authorize`: to the consent page, back to the client with an error, or to the error page. */
export async function handleAuthorize(request: Request): Promise<Response> {
  try {
    const params =
      request.method === "POST"
        ? await readForm(request).catch(() => null)
        : new URL(request.url).searchParams;
    if (params === null) return redirect(authorizeErrorPageUrl("invalid_request", "oauth_request_malformed"));
    const db = await dbReady();
    const outcome = await startAuthorization(db, { params, ip: clientIp(request) }, new Date());
    if (outcome.kind === "error_page") {
      // The description stays in the log: the page shows only the catalogue's text for the reason.
      const { code, reason, description } = outcome.error;
      log("info", "authorization refused before redirect", { error: code, reason, description });
      return redirect(authorizeErrorPageUrl(code, reason));
    }
    return redirect(outcome.location);
  } catch (error) {
    // Nothing about the request is trusted yet: the person is told on our own page, never redirected.
    log("error", "authorization endpoint failed", { error });
    return redirect(authorizeErrorPageUrl("server_error", "internal_error"));
  }
}

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { location, ...NO_STORE } });
}

/** `POST /oauth/token`. */
export async function handleToken(request: Request): Promise<Response> {
  return guarded(async () => {
    const form = await readForm(request);
    const db = await dbReady();
    try {
      const tokens = await exchangeToken(db, { form, clientId: basicClientId(request, form) }, new Date());
      return json(200, tokens);
    } catch (error) {
      if (isOAuthError(error) && error.code === "invalid_client" && request.headers.get("authorization"))
        return oauthErrorResponse(error, { "www-authenticate": 'Basic realm="marea"' });
      throw error;
    }
  });
}

/** `POST /oauth/revoke` (RFC 7009): 200 with no body, also for a token that is unknown or already revoked. */
export async function handleRevoke(request: Request): Promise<Response> {
  return guarded(async () => {
    const form = await readForm(request);
    const db = await dbReady();
    await revokeToken(db, { form, clientId: basicClientId(request, form) }, new Date());
    return new Response(null, { status: 200, headers: { ...CORS, ...NO_STORE } });
  });
}

/** `POST /oauth/register` (RFC 7591): 201 with the client as registered. */
export async function handleRegister(request: Request): Promise<Response> {
  return guarded(async () => {
    const type = request.headers.get("content-type") ?? "";
    if (!type.toLowerCase().startsWith("application/json"))
      throw new OAuthError("invalid_client_metadata", "Send the client metadata as application/json.");
    let metadata: unknown;
    try {
      metadata = JSON.parse(await readText(request));
    } catch (error) {
      if (isOAuthError(error)) throw error;
      throw new OAuthError("invalid_client_metadata", "The body is not JSON.");
    }
    const db = await dbReady();
    const client = await registerClient(db, { metadata, ip: clientIp(request) }, new Date());
    return json(201, client);
  });
}

function notFound(): Response {
  return json(404, { error: "not_found", error_description: "No metadata document at this path." });
}

/** The path after a well-known prefix: "" for the root form, else the suffix (`/mcp`). */
function wellKnownSuffix(request: Request, prefix: string): string {
  return new URL(request.url).pathname.slice(prefix.length).replace(/\/$/, "");
}

/**
 * RFC 8414 metadata at `/.well-known/oauth-authorization-server` (and the suffixed form of the issuer's path, when
 * APP_URL has one).
 */
export function handleAuthorizationServerMetadata(request: Request): Response {
  const suffix = wellKnownSuffix(request, "/.well-known/oauth-authorization-server");
  if (suffix !== "" && suffix !== new URL(issuer()).pathname.replace(/\/$/, "")) return notFound();
  return json(200, authorizationServerMetadata(), { "cache-control": "public, max-age=3600" });
}

/** RFC 9728 metadata at the path-inserted form for the MCP URL (`/.well-known/oauth-protected-resource/mcp`) and the root form. */
export function handleProtectedResourceMetadata(request: Request): Response {
  const suffix = wellKnownSuffix(request, "/.well-known/oauth-protected-resource");
  if (suffix !== "" && suffix !== new URL(mcpUrl()).pathname.replace(/\/$/, "")) return notFound();
  return json(200, protectedResourceMetadata(), { "cache-control": "public, max-age=3600" });
}
