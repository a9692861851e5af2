import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/server/db/client";
import { env } from "@/server/env";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/log";
import { classifyHost, normalizeHost, SafeFetchError, safeFetch } from "@/server/webhooks/url-guard";
import { type AuthorizePageReason, OAuthError } from "./errors";
import { consumeLimit, type WindowedLimit } from "./limits";
import { oauthClients } from "./tables";

/**
 * OAuth clients (docs/mcp.md, "Clients"): dynamic registration (RFC 7591) and client ID metadata documents, the
 * redirect URI policy, and how a presented redirect URI is matched against the registered ones.
 */

export type OAuthClientRow = typeof oauthClients.$inferSelect;

export const MAX_REDIRECT_URIS = 10;
export const MAX_URI_LENGTH = 2000;
/** Client ID metadata documents: at most 5 KB, answered within 5 s (docs/mcp.md, "Client ID metadata documents"). */
export const METADATA_DOCUMENT_MAX_BYTES = 5 * 1024;
export const METADATA_DOCUMENT_TIMEOUT_MS = 5000;
/** A document is reused for at most a day, whatever its Cache-Control says. */
export const METADATA_DOCUMENT_MAX_AGE_S = 86_400;
/**
 * `/oauth/register`, per fixed one-hour window (docs/security.md, "OAuth"): per client address, per network (/24,
 * /48), and a service-wide ceiling ten times the old one, kept only as a storage backstop: with the network
 * buckets, spending it takes 167 networks, not 50 addresses.
 */
export const REGISTRATION_LIMITS = {
  name: "register",
  windowSeconds: 3600,
  perIp: 20,
  perNetwork: 60,
  global: 10_000,
} as const satisfies WindowedLimit;
/**
 * Metadata documents fetched by `/oauth/authorize`, per fixed 10-minute window, per client address and network:
 * each fetch is an outbound request a stranger chose (docs/security.md, "OAuth").
 */
export const DOCUMENT_FETCH_LIMITS = {
  name: "authorize-fetch",
  windowSeconds: 600,
  perIp: 30,
  perNetwork: 100,
} as const satisfies WindowedLimit;

// Schemes a redirect must never use: they run code, read files or reach the network unchecked.
const FORBIDDEN_SCHEMES = new Set([
  "javascript:",
  "data:",
  "file:",
  "vbscript:",
  "about:",
  "blob:",
  "filesystem:",
  "ftp:",
  "ws:",
  "wss:",
  "mailto:",
  "tel:",
  "sms:",
]);
const SCHEME = /^[a-z][a-z0-9+.-]*:$/;

function isLoopbackHost(hostname: string): boolean {
  return classifyHost(normalizeHost(hostname)) === "loopback";
}

/**
 * The redirect policy (docs/mcp.md, "Redirect URIs"): `https:`; `http:` only to a loopback host (127.0.0.0/8,
 * [::1], localhost: a native app's local listener, RFC 8252 section 7.3); or a private-use scheme
 * (`com.example.app:/cb`, `cursor://…`, RFC 8252 section 7.1). No fragment, no credentials, at most 2,000
 * characters. Returns why a URI is refused, or null.
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_URI_LENGTH) return `is longer than ${MAX_URI_LENGTH} characters`;
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return "is not an absolute URI";
  }
  if (uri.includes("#")) return "must not contain a fragment";
  if (parsed.username !== "" || parsed.password !== "") return "must not contain credentials";
  const scheme = parsed.protocol;
  if (scheme === "https:") return parsed.hostname === "" ? "has no host" : null;
  if (scheme === "http:")
    return isLoopbackHost(parsed.hostname) ? null : "may use http only for a loopback address";
  if (!SCHEME.test(scheme) || FORBIDDEN_SCHEMES.has(scheme))
    return `uses the scheme ${scheme} which is not allowed`;
  return null;
}

function isLoopbackRedirect(url: URL): boolean {
  return url.protocol === "http:" && isLoopbackHost(url.hostname);
}

/**
 * Exact string comparison, with RFC 8252's one exception: an http loopback redirect may use any port (a native
 * app listens on whatever port is free), everything else equal.
 */
export function redirectUriMatches(registered: readonly string[], presented: string): boolean {
  if (registered.includes(presented)) return true;
  let asked: URL;
  try {
    asked = new URL(presented);
  } catch {
    return false;
  }
  if (!isLoopbackRedirect(asked) || presented.includes("#")) return false;
  return registered.some((uri) => {
    let known: URL;
    try {
      known = new URL(uri);
    } catch {
      return false;
    }
    return (
      isLoopbackRedirect(known) &&
      normalizeHost(known.hostname) === normalizeHost(asked.hostname) &&
      known.pathname === asked.pathname &&
      known.search === asked.search
    );
  });
}

const RegistrationRequest = z.looseObject({
  redirect_uris: z.array(z.string().max(MAX_URI_LENGTH)).min(1).max(MAX_REDIRECT_URIS),
  client_name: z.string().trim().min(1).max(100).optional(),
  client_uri: z.string().max(MAX_URI_LENGTH).optional(),
  logo_uri: z.string().max(MAX_URI_LENGTH).optional(),
  tos_uri: z.string().max(MAX_URI_LENGTH).optional(),
  policy_uri: z.string().max(MAX_URI_LENGTH).optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(100).optional(),
  contacts: z.array(z.string().max(200)).max(10).optional(),
  scope: z.string().max(500).optional(),
  grant_types: z.array(z.string().max(100)).max(10).optional(),
  response_types: z.array(z.string().max(100)).max(10).optional(),
  token_endpoint_auth_method: z.string().max(100).optional(),
  application_type: z.enum(["web", "native"]).optional(),
});

/** What `/oauth/register` answers (RFC 7591 section 3.2.1): the client as registered. */
export type RegisteredClient = {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: "none";
  application_type?: "web" | "native";
  client_uri?: string;
  logo_uri?: string;
  tos_uri?: string;
  policy_uri?: string;
  software_id?: string;
  software_version?: string;
  scope?: string;
};

const GRANT_TYPES = ["authorization_code", "refresh_token"];

function httpsUriProblem(value: string | undefined, field: string): void {
  if (value === undefined) return;
  let parsed: URL | null = null;
  try {
    parsed = new URL(value);
  } catch {
    parsed = null;
  }
  if (parsed?.protocol !== "https:")
    throw new OAuthError("invalid_client_metadata", `${field} must be an https URL.`);
}

/** The display name: the one given, else the first redirect URI's host (or scheme for a private-use one). */
function fallbackName(redirectUris: readonly string[]): string {
  const first = redirectUris[0];
  if (!first) return "MCP client";
  try {
    const url = new URL(first);
    return url.host || url.protocol.replace(/:$/, "");
  } catch {
    return "MCP client";
  }
}

/**
 * Checks client metadata (registered or fetched) and returns what is kept. Every client is public: a requested
 * `token_endpoint_auth_method` other than `none` is replaced by `none` (RFC 7591 section 3.2.1 lets the server
 * choose), since no client secret is ever issued.
 */
function validateClientMetadata(
  raw: unknown,
  source: "registration" | "document",
): z.infer<typeof RegistrationRequest> & { client_name: string } {
  const parsed = RegistrationRequest.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "metadata";
    const code = field.startsWith("redirect_uris") ? "invalid_redirect_uri" : "invalid_client_metadata";
    throw new OAuthError(code, `${field}: ${issue?.message ?? "invalid"}`);
  }
  const metadata = parsed.data;
  for (const uri of metadata.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError("invalid_redirect_uri", `The redirect URI ${uri} ${problem}.`);
  }
  for (const type of metadata.grant_types ?? GRANT_TYPES) {
    if (!GRANT_TYPES.includes(type))
      throw new OAuthError(
        "invalid_client_metadata",
        `grant_types: only authorization_code and refresh_token are supported, not ${type}.`,
      );
  }
  for (const type of metadata.response_types ?? ["code"]) {
    if (type !== "code")
      throw new OAuthError("invalid_client_metadata", `response_types: only code is supported, not ${type}.`);
  }
  httpsUriProblem(metadata.client_uri, "client_uri");
  httpsUriProblem(metadata.logo_uri, "logo_uri");
  httpsUriProblem(metadata.tos_uri, "tos_uri");
  httpsUriProblem(metadata.policy_uri, "policy_uri");
  if (source === "document") {
    if (!metadata.client_name)
      throw new OAuthError("invalid_client_metadata", "The metadata document must include client_name.");
    const method = metadata.token_endpoint_auth_method;
    if (method !== undefined && method !== "none")
      throw new OAuthError(
        "invalid_client_metadata",
        "The metadata document must use token_endpoint_auth_method none (no client secrets, no private_key_jwt).",
      );
    if ("client_secret" in metadata || "client_secret_expires_at" in metadata)
      throw new OAuthError(
        "invalid_client_metadata",
        "The metadata document must not contain a client secret.",
      );
  }
  return { ...metadata, client_name: metadata.client_name ?? fallbackName(metadata.redirect_uris) };
}

function keptMetadata(metadata: z.infer<typeof RegistrationRequest>): Record<string, unknown> {
  const keep: Record<string, unknown> = {};
  for (const field of [
    "client_uri",
    "logo_uri",
    "tos_uri",
    "policy_uri",
    "software_id",
    "software_version",
    "scope",
    "application_type",
  ] as const) {
    if (metadata[field] !== undefined) keep[field] = metadata[field];
  }
  return keep;
}

/**
 * RFC 7591 dynamic client registration (deprecated by the MCP revision 2026-07-28 in favour of client ID metadata
 * documents, and still what many clients use). Rate limited; the redirect policy applies to every URI.
 */
export async function registerClient(
  db: Db,
  input: { metadata: unknown; ip: string },
  now: Date,
): Promise<RegisteredClient> {
  await consumeLimit(
    db,
    REGISTRATION_LIMITS,
    input.ip,
    now,
    "Too many client registrations. Try again later.",
  );
  const metadata = validateClientMetadata(input.metadata, "registration");
  const id = newId("oac");
  await db.insert(oauthClients).values({
    id,
    kind: "dynamic",
    name: metadata.client_name,
    redirectUris: metadata.redirect_uris,
    metadata: keptMetadata(metadata),
    createdAt: now,
    updatedAt: now,
  });
  return {
    client_id: id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: metadata.client_name,
    redirect_uris: metadata.redirect_uris,
    grant_types: metadata.grant_types ?? GRANT_TYPES,
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...(keptMetadata(metadata) as Partial<RegisteredClient>),
  };
}

/** Whether a client id names a metadata document: an https URL (http to a loopback host in local test setups). */
export function isMetadataDocumentClientId(clientId: string): boolean {
  return clientId.startsWith("https://") || (allowLocalDocuments() && clientId.startsWith("http://"));
}

function allowLocalDocuments(): boolean {
  return env().UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS === "1";
}

/**
 * A metadata document's URL (the client id) must be https, with a path other than `/`, no fragment, no
 * credentials, no dot segments, at most 2,000 characters (draft-ietf-oauth-client-id-metadata-document, section
 * 3). `UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS=1` also accepts http to a loopback host, for local tests only.
 */
export function metadataDocumentUrlProblem(clientId: string): string | null {
  if (clientId.length > MAX_URI_LENGTH) return "is too long";
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return "is not a URL";
  }
  const isLocalHttp = url.protocol === "http:" && allowLocalDocuments() && isLoopbackHost(url.hostname);
  if (url.protocol !== "https:" && !isLocalHttp) return "must use https";
  if (clientId.includes("#")) return "must not contain a fragment";
  if (url.username !== "" || url.password !== "") return "must not contain credentials";
  if (url.pathname === "/" || url.pathname === "") return "must have a path";
  const rawPath = clientId.replace(/^[a-z]+:\/\/[^/]*/i, "").split("?")[0] ?? "";
  if (rawPath.split("/").some((segment) => /^(\.|%2e){1,2}$/i.test(segment)))
    return "must not contain dot segments";
  return null;
}

/** `max-age` (or `s-maxage`) of a Cache-Control header; `no-store` and `no-cache` mean not reused (0). */
export function cacheSeconds(cacheControl: string | undefined): number {
  if (!cacheControl) return 0;
  const directives = cacheControl
    .toLowerCase()
    .split(",")
    .map((part) => part.trim());
  if (directives.some((d) => d === "no-store" || d === "no-cache")) return 0;
  const maxAge = directives.map((d) => /^(?:s-)?max-age=(\d+)$/.exec(d)?.[1]).find((v) => v !== undefined);
  return maxAge === undefined ? 0 : Math.min(Number(maxAge), METADATA_DOCUMENT_MAX_AGE_S);
}

/** A refusal of a fetched document: what the client and the person may see, never where the fetch went. */
function documentRefused(
  description: string,
  reason: AuthorizePageReason = "oauth_client_document_invalid",
): OAuthError {
  return new OAuthError("invalid_client", description, { reason });
}

/**
 * Fetches a client ID metadata document through the webhooks' SSRF-safe pinned fetch (public addresses only, no
 * redirects), 5 KB and 5 s at most, and checks it: a JSON object whose `client_id` is exactly the URL, with a
 * name and redirect URIs the policy accepts. Why a fetch failed (a resolved private address, a resolver error
 * code) is logged here and never put in the error: the caller is a stranger mapping our network
 * (docs/security.md, "OAuth").
 */
async function fetchMetadataDocument(
  clientId: string,
): Promise<{ metadata: ReturnType<typeof validateClientMetadata>; maxAgeSeconds: number }> {
  let response: Awaited<ReturnType<typeof safeFetch>>;
  try {
    response = await safeFetch(clientId, {
      method: "GET",
      headers: { accept: "application/json", "user-agent": "Marea-OAuth/1.0" },
      timeoutMs: METADATA_DOCUMENT_TIMEOUT_MS,
      maxBodyBytes: METADATA_DOCUMENT_MAX_BYTES + 1,
      allowLocal: allowLocalDocuments(),
    });
  } catch (error) {
    const kind = error instanceof SafeFetchError ? error.kind : "error";
    log("warn", "client metadata document not fetched", { clientId, kind, error });
    if (kind === "blocked")
      throw documentRefused(
        "The client metadata document could not be fetched (blocked: the host is not allowed).",
        "oauth_client_host_not_allowed",
      );
    throw documentRefused(
      kind === "timeout"
        ? "The client metadata document could not be fetched (timeout)."
        : "The client metadata document could not be fetched.",
      "oauth_client_document_unavailable",
    );
  }
  if (response.status !== 200)
    throw documentRefused(
      `The client metadata document answered HTTP ${response.status} (redirects are not followed).`,
      "oauth_client_document_unavailable",
    );
  if (Buffer.byteLength(response.body, "utf8") > METADATA_DOCUMENT_MAX_BYTES)
    throw documentRefused("The client metadata document is larger than 5 KB.");
  let document: unknown;
  try {
    document = JSON.parse(response.body);
  } catch {
    throw documentRefused("The client metadata document is not valid JSON.");
  }
  if (typeof document !== "object" || document === null || Array.isArray(document))
    throw documentRefused("The client metadata document is not a JSON object.");
  if ((document as { client_id?: unknown }).client_id !== clientId)
    throw documentRefused("The client metadata document's client_id is not its own URL.");
  let metadata: ReturnType<typeof validateClientMetadata>;
  try {
    metadata = validateClientMetadata(document, "document");
  } catch (error) {
    if (error instanceof OAuthError) throw documentRefused(error.description);
    throw error;
  }
  return { metadata, maxAgeSeconds: cacheSeconds(response.headers["cache-control"]) };
}

function unknownClient(description = "Unknown client_id."): OAuthError {
  return new OAuthError("invalid_client", description, { reason: "oauth_client_unknown" });
}

/**
 * The client a `client_id` names, or `invalid_client`. A registered client is read from the table. A metadata
 * document is fetched unless a copy fetched within its Cache-Control lifetime is kept; each fetch is counted in
 * the client address's `DOCUMENT_FETCH_LIMITS` first. `fetch: false` (the token and revocation endpoints, which
 * need the id only) reads whatever copy exists and never fetches: a client reaches them after an authorization,
 * which kept a copy, so a stranger cannot make them fetch URLs.
 */
export async function resolveClient(
  db: Db,
  clientId: string,
  now: Date,
  options: { fetch: false } | { fetch?: true; ip?: string | null } = {},
): Promise<OAuthClientRow> {
  if (clientId.length === 0 || clientId.length > MAX_URI_LENGTH) throw unknownClient();
  const [known] = await db.select().from(oauthClients).where(eq(oauthClients.id, clientId)).limit(1);
  if (known?.kind === "dynamic") return known;
  if (!isMetadataDocumentClientId(clientId)) throw unknownClient();
  if (known && (options.fetch === false || (known.documentExpiresAt && known.documentExpiresAt > now)))
    return known;
  if (options.fetch === false) throw unknownClient();
  const problem = metadataDocumentUrlProblem(clientId);
  if (problem) throw unknownClient(`A client_id metadata document URL ${problem}.`);
  await consumeLimit(
    db,
    DOCUMENT_FETCH_LIMITS,
    options.ip ?? null,
    now,
    "Too many client metadata documents fetched for this address. Try again later.",
  );
  const { metadata, maxAgeSeconds } = await fetchMetadataDocument(clientId);
  const values = {
    name: metadata.client_name,
    redirectUris: metadata.redirect_uris,
    metadata: keptMetadata(metadata),
    updatedAt: now,
    documentExpiresAt: new Date(now.getTime() + maxAgeSeconds * 1000),
  };
  const [row] = await db
    .insert(oauthClients)
    .values({ id: clientId, kind: "metadata_document", createdAt: now, ...values })
    .onConflictDoUpdate({
      target: oauthClients.id,
      set: values,
      where: eq(oauthClients.kind, "metadata_document"),
    })
    .returning();
  if (!row) throw unknownClient();
  log("info", "client metadata document fetched", { clientId, cacheSeconds: maxAgeSeconds });
  return row;
}

/** The host a person can recognise the client by: the metadata document's host (null for a registered client). */
export function clientHost(row: Pick<OAuthClientRow, "id" | "kind">): string | null {
  if (row.kind !== "metadata_document") return null;
  try {
    return new URL(row.id).host;
  } catch {
    return null;
  }
}
