import { env } from "@/server/env";
import { MCP_SCOPES } from "@/server/gate/oauth-scopes";
import { issuer, mcpUrl, oauthEndpoint } from "./urls";

/**
 * RFC 8414 authorization server metadata (docs/mcp.md, "Discovery"): PKCE with S256 only, public clients
 * (`none`), dynamic registration and client ID metadata documents, revocation, and `iss` in every authorization
 * response (RFC 9207).
 */
export function authorizationServerMetadata() {
  return {
    issuer: issuer(),
    authorization_endpoint: oauthEndpoint("authorize"),
    token_endpoint: oauthEndpoint("token"),
    registration_endpoint: oauthEndpoint("register"),
    revocation_endpoint: oauthEndpoint("revoke"),
    scopes_supported: [...MCP_SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    code_challenge_methods_supported: ["S256"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${env().DOCS_URL}/mcp`,
  };
}

/** RFC 9728 protected resource metadata: `resource` is exactly the MCP URL, the issuer its one authorization server. */
export function protectedResourceMetadata() {
  return {
    resource: mcpUrl(),
    authorization_servers: [issuer()],
    scopes_supported: [...MCP_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Marea",
    resource_documentation: `${env().DOCS_URL}/mcp`,
  };
}
