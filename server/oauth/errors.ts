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

  constructor(code: OAuthErrorCode, description: string, options: { retryAfterSeconds?: number } = {}) {
    super(`${code}: ${description}`);
    this.name = "OAuthError";
    this.code = code;
    this.description = description;
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
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
