import type { ErrorCode } from "@/server/errors";

/**
 * The errors of the OAuth protocol endpoints (RFC 6749 section 5.2, RFC 7009, RFC 7591, RFC 8707). Their shape is
 * fixed by those RFCs (`{"error", "error_description"}`), so they are not the catalogue's envelope; pages and
 * tools keep using the catalogue (docs/mcp.md, "Errors").
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "temporarily_unavailable";

/**
 * Why an authorization request ended on `/oauth/error`: catalogue codes, the only texts that page shows
 * (docs/mcp.md, "Authorize"). Anything else in its query string is ignored.
 */
export const AUTHORIZE_PAGE_REASONS = [
  "oauth_client_unknown",
  "oauth_client_host_not_allowed",
  "oauth_client_document_unavailable",
  "oauth_client_document_invalid",
  "oauth_redirect_uri_unregistered",
  "oauth_request_malformed",
  "oauth_rate_limited",
  "internal_error",
] as const satisfies readonly ErrorCode[];

export type AuthorizePageReason = (typeof AUTHORIZE_PAGE_REASONS)[number];

export function isAuthorizePageReason(value: unknown): value is AuthorizePageReason {
  return typeof value === "string" && (AUTHORIZE_PAGE_REASONS as readonly string[]).includes(value);
}

const STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 403,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  temporarily_unavailable: 429,
};

export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  readonly description: string;
  readonly retryAfterSeconds: number | null;
  /**
   * What a person is shown when the error ends on `/oauth/error`: a catalogue code, never the description (which
   * may name what the client sent). Unset: the page's general text only.
   */
  readonly reason: AuthorizePageReason | null;

  constructor(
    code: OAuthErrorCode,
    description: string,
    options: { retryAfterSeconds?: number; reason?: AuthorizePageReason } = {},
  ) {
    super(`${code}: ${description}`);
    this.name = "OAuthError";
    this.code = code;
    this.description = description;
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
    this.reason = options.reason ?? null;
  }

  get status(): number {
    return STATUS[this.code];
  }

  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}

export function isOAuthError(value: unknown): value is OAuthError {
  return value instanceof OAuthError;
}

/** An RFC error code `/oauth/error` may print beside the reason (`server_error` included); nothing else. */
export function isShownOAuthErrorCode(value: unknown): value is OAuthErrorCode | "server_error" {
  return typeof value === "string" && (value === "server_error" || Object.hasOwn(STATUS, value));
}
