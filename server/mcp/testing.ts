import {
  Client,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import {
  handleAuthorizationServerMetadata,
  handleAuthorize,
  handleProtectedResourceMetadata,
  handleRegister,
  handleRevoke,
  handleToken,
} from "@/server/oauth/http";
import { mcpUrl } from "@/server/oauth/urls";
import { handleMcpRequest } from "@/server/wiring/mcp";
import { handleV1Request } from "@/server/wiring/rest";

/**
 * The service's HTTP doors in-process, as `fetch`: what the official MCP client SDK talks to in tests that need
 * no running server. Routes as the Next route files do.
 */
export async function inProcessFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = input instanceof Request ? input : new Request(input, init);
  const path = new URL(request.url).pathname;
  if (path === "/mcp") return handleMcpRequest(request);
  if (path.startsWith("/.well-known/oauth-protected-resource"))
    return handleProtectedResourceMetadata(request);
  if (path.startsWith("/.well-known/oauth-authorization-server"))
    return handleAuthorizationServerMetadata(request);
  if (path === "/oauth/authorize") return handleAuthorize(request);
  if (path === "/oauth/token") return handleToken(request);
  if (path === "/oauth/register") return handleRegister(request);
  if (path === "/oauth/revoke") return handleRevoke(request);
  if (path.startsWith("/v1/")) return handleV1Request(request);
  return new Response("not found", { status: 404 });
}

/**
 * The protocol eras a client of the official SDK speaks (docs/mcp.md, "Protocol versions"): `legacy`, the 2025
 * `initialize` handshake (the client's default, what today's clients send); `modern`, pinned to the stateless
 * 2026-07-28 revision; `auto`, probing with `server/discover` first.
 */
export type ClientEra = "legacy" | "modern" | "auto";

export const CLIENT_ERAS: readonly ClientEra[] = ["legacy", "modern"];

function negotiationOf(era: ClientEra) {
  if (era === "modern") return { mode: { pin: "2026-07-28" } } as const;
  return { mode: era } as const;
}

/** An MCP client of the official SDK, connected to `{mcp_url}` with a bearer credential (a key or a token). */
export async function connectClient(
  bearer: string,
  options: {
    fetch?: typeof inProcessFetch;
    url?: string;
    headers?: Record<string, string>;
    era?: ClientEra;
  } = {},
): Promise<Client> {
  const client = new Client(
    { name: "marea-tests", version: "1.0.0" },
    { versionNegotiation: negotiationOf(options.era ?? "legacy") },
  );
  const transport = new StreamableHTTPClientTransport(new URL(options.url ?? mcpUrl()), {
    requestInit: { headers: { authorization: `Bearer ${bearer}`, ...options.headers } },
    fetch: options.fetch ?? inProcessFetch,
  });
  await client.connect(transport);
  return client;
}

/**
 * An `OAuthClientProvider` for tests: keeps what the SDK saves in memory and records where it sends the person
 * (`authorizationUrl`), so the test can play the browser.
 */
export class TestOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | null = null;
  private saved: {
    client?: OAuthClientInformationMixed;
    tokens?: OAuthTokens;
    verifier?: string;
    discovery?: OAuthDiscoveryState;
  } = {};

  constructor(
    private readonly options: {
      redirectUrl: string;
      clientName?: string;
      /** Use a client ID metadata document at this https URL instead of dynamic registration. */
      clientMetadataUrl?: string;
    },
  ) {}

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName ?? "SDK Test Client",
      redirect_uris: [this.options.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    return "sdk-state";
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.saved.client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.saved.client = client;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved.tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved.tokens = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.saved.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.saved.verifier) throw new Error("no code verifier saved");
    return this.saved.verifier;
  }

  /** Kept with the verifier, so the SDK checks the callback's issuer against the server it started with. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.saved.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.saved.discovery;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") delete this.saved.client;
    if (scope === "all" || scope === "tokens") delete this.saved.tokens;
    if (scope === "all" || scope === "verifier") delete this.saved.verifier;
    if (scope === "all" || scope === "discovery") delete this.saved.discovery;
  }
}
