import type { McpScope } from "@/server/gate/oauth-scopes";

/**
 * What the OAuth pages show (docs/mcp.md, "Authorization server"): the consent request and a connected app.
 */

export type ConsentRequestDto = {
  requestId: string;
  clientId: string;
  clientName: string;
  /** The metadata document's host; null for a dynamically registered client. */
  clientHost: string | null;
  clientKind: "dynamic" | "metadata_document";
  clientUri: string | null;
  redirectUri: string;
  /** The host the answer goes to, or the app's scheme (`cursor:`) for a private-use redirect. */
  redirectHost: string;
  scopes: McpScope[];
  /** Scopes asked for that this account cannot grant yet (publishing needs a verified email). */
  unavailableScopes: McpScope[];
  /** True when the app is connected already (approving updates its key). */
  isConnected: boolean;
  expiresAt: string;
};

export type ConnectedAppDto = {
  clientId: string;
  clientName: string;
  clientHost: string | null;
  clientKind: "dynamic" | "metadata_document";
  /** The per-user key the consent made (its name is the app's). */
  keyId: string;
  keyPrefix: string;
  scopes: McpScope[];
  connectedAt: string;
  updatedAt: string;
};
