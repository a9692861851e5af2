import { env } from "@/server/env";
import type { AuthorizePageReason } from "./errors";

/**
 * Where the MCP server and its authorization server live (docs/mcp.md, "Endpoints"). The issuer is APP_URL;
 * the protected resource is MCP_URL (`{APP_URL}/mcp` unless set), exactly as configured.
 */
export function issuer(): string {
  return env().APP_URL;
}

/** The MCP endpoint, which is also the OAuth resource every token is bound to. */
export function mcpUrl(): string {
  return env().MCP_URL;
}

/**
 * RFC 9728's metadata URL for the MCP resource: `/.well-known/oauth-protected-resource` inserted before the
 * resource's path, on the resource's origin.
 */
export function protectedResourceMetadataUrl(): string {
  const resource = new URL(mcpUrl());
  const path = resource.pathname === "/" ? "" : resource.pathname;
  return `${resource.origin}/.well-known/oauth-protected-resource${path}`;
}

export function oauthEndpoint(name: "authorize" | "token" | "revoke" | "register"): string {
  return `${issuer()}/oauth/${name}`;
}

export function consentPageUrl(requestId: string): string {
  return `${issuer()}/dashboard/oauth/consent?${new URLSearchParams({ request: requestId })}`;
}

/**
 * The page that explains an authorization request that cannot be answered at the client's redirect URI: the
 * RFC error code and the catalogue code of the reason, nothing the request said (the page shows only the
 * catalogue's text for it).
 */
export function authorizeErrorPageUrl(error: string, reason?: AuthorizePageReason | null): string {
  const query = new URLSearchParams({ error });
  if (reason) query.set("reason", reason);
  return `${issuer()}/oauth/error?${query}`;
}
