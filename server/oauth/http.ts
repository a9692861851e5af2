import { dbReady } from "@/server/db/client";
import { isAppError, messageFor } from "@/server/errors";
import { BODY_LIMITS, readBoundedBody } from "@/server/kit/body";
import { toAppError } from "@/server/kit/errors";
import { mediaTypeOf, readFormBody } from "@/server/kit/form";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/log";
import { clientIp } from "@/server/sessions/client-ip";
import { isCleanText, jsonValue } from "@/server/validation";
import { startAuthorization } from "./authorization";
import { registerClient } from "./clients";
import { isOAuthError, OAuthError } from "./errors";
import { authorizationServerMetadata, protectedResourceMetadata } from "./metadata";
import { exchangeToken, revokeToken } from "./tokens";
import { authorizeErrorPageUrl, issuer, mcpUrl } from "./urls";

/**
 * The HTTP side of the authorization server (docs/mcp.md, "Authorization server"): each handler reads the
 * request, calls one function of `authorization.ts`, `tokens.ts` or `clients.ts`, and answers in the RFCs' shapes.
 * The endpoints a client calls from a browser (metadata, register, token, revoke) allow any origin: they use no
 * cookie. Bodies are read through the door kit's capped reader (64 KiB; docs/security.md, "Request bodies and
 * door limits"), and text the service could not store as sent (a NUL) is refused here, in the RFCs' shapes.
 */

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-max-age": "86400",
} as const;

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" } as const;

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

/**
 * Every OAuth endpoint's answer to a failure, in RFC 6749's shape: its own errors as they are; the kit's refusals
 * of the body (413 over the cap, 400 when the client hangs up mid-body) as `invalid_request` with their status;
 * a lost database as 503 `temporarily_unavailable`; anything else logged and answered as 500 `server_error`.
 */
async function guarded(work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (isOAuthError(error)) return oauthErrorResponse(error);
    const failure = toAppError(error, { requestId: newId("req"), door: "oauth" });
    if (failure.status < 500)
      return json(failure.status, { error: "invalid_request", error_description: messageFor(failure, "en") });
    if (failure.code === "service_unavailable") {
      return json(
        503,
        { error: "temporarily_unavailable", error_description: "The service is temporarily unavailable." },
        { "retry-after": "5" },
      );
    }
    return json(500, { error: "server_error", error_description: "Something went wrong on our side." });
  }
}

/** A preflight for the endpoints clients may call from a browser. */
export function handlePreflight(): Response {
  return new Response(null, { status: 204, headers: CORS });
}

/**
 * The form of a token, revocation or authorization request (`application/x-www-form-urlencoded`, RFC 6749
 * section 4.1.3), capped; a parameter that is not clean text (a NUL) is refused.
 */
async function readForm(request: Request): Promise<URLSearchParams> {
  if (mediaTypeOf(request) !== "application/x-www-form-urlencoded")
    throw new OAuthError("invalid_request", "Send the parameters as application/x-www-form-urlencoded.");
  return cleanParams(await readFormBody(request, BODY_LIMITS.oauth));
}

/** The parameters, when every name and value is text the service can keep as sent (no NUL). */
function cleanParams(params: URLSearchParams): URLSearchParams {
  for (const [name, value] of params) {
    if (!isCleanText(name) || !isCleanText(value))
      throw new OAuthError("invalid_request", `The parameter ${JSON.stringify(name)} holds a NUL character.`);
  }
  return params;
}

/**
 * Public clients send `client_id` in the form; some send it as HTTP Basic with an empty secret. A secret is never
 * checked (none is ever issued), and a client_id in both places must agree. A header that does not decode (bad
 * base64, a `%` escape that is not UTF-8, a NUL) is the client's failure to authenticate: 401 `invalid_client`.
 */
function basicClientId(request: Request, form: URLSearchParams): string | null {
  const header = request.headers.get("authorization");
  if (!header) return null;
  const match = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header);
  if (!match?.[1]) throw new OAuthError("invalid_client", "Only public clients are supported.");
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  let id: string;
  try {
    id = decodeURIComponent((decoded.split(":")[0] ?? "").replace(/\+/g, " "));
  } catch {
    throw new OAuthError("invalid_client", "The Basic credentials are not valid form-encoded UTF-8.");
  }
  if (!isCleanText(id) || decoded.includes("\ufffd"))
    throw new OAuthError("invalid_client", "The Basic credentials are not valid form-encoded UTF-8.");
  const inForm = form.get("client_id");
  if (inForm !== null && inForm !== id)
    throw new OAuthError("invalid_client", "Two different client_id values.");
  return id;
}

/** `GET|POST /oauth/authorize`: to the consent page, back to the client with an error, or to the error page. */
export async function handleAuthorize(request: Request): Promise<Response> {
  try {
    let params: URLSearchParams | null;
    try {
      params =
        request.method === "POST" ? await readForm(request) : cleanQuery(new URL(request.url).searchParams);
    } catch (error) {
      // A body over the cap is refused as it arrives (413); any other unreadable form goes to the error page.
      if (isAppError(error) && error.code === "payload_too_large")
        return json(413, { error: "invalid_request", error_description: messageFor(error, "en") });
      params = null;
    }
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

/** The query of a GET authorization request, or null when a parameter is not clean text (a NUL). */
function cleanQuery(params: URLSearchParams): URLSearchParams | null {
  try {
    return cleanParams(params);
  } catch {
    return null;
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

const CLEAN_JSON = jsonValue();

/** `POST /oauth/register` (RFC 7591): 201 with the client as registered. */
export async function handleRegister(request: Request): Promise<Response> {
  return guarded(async () => {
    if (mediaTypeOf(request) !== "application/json")
      throw new OAuthError("invalid_client_metadata", "Send the client metadata as application/json.");
    const raw = await readBoundedBody(request, BODY_LIMITS.oauth);
    let metadata: unknown;
    try {
      metadata = JSON.parse(raw);
    } catch {
      throw new OAuthError("invalid_client_metadata", "The body is not JSON.");
    }
    // Text the service could not keep as sent (NUL, an unpaired surrogate), anywhere in the document.
    if (!CLEAN_JSON.safeParse(metadata).success)
      throw new OAuthError("invalid_client_metadata", "The metadata holds text that is not valid Unicode.");
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
