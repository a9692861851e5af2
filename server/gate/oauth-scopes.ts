import { SCOPES, type Scope } from "./scopes";

/**
 * The scopes an MCP client asks for (docs/mcp.md, "Scopes"). They are identifiers of the interface: each maps to
 * the key scope the consent's per-user key gets. They are independent (`marea.write` does not imply
 * `marea.read`).
 */
export const MCP_SCOPES = ["marea.read", "marea.write", "marea.publish"] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

export const KEY_SCOPE_FOR: Record<McpScope, Scope> = {
  "marea.read": SCOPES.catalogRead,
  "marea.write": SCOPES.catalogWrite,
  "marea.publish": SCOPES.storefrontPublish,
};

/** The value of `scope` in the 401 challenge and in the metadata documents. */
export const ALL_MCP_SCOPES = MCP_SCOPES.join(" ");

export function isMcpScope(value: string): value is McpScope {
  return (MCP_SCOPES as readonly string[]).includes(value);
}

/** The key scopes that a set of granted `marea.*` scopes stands for. */
export function keyScopesFor(scopes: readonly string[]): Scope[] {
  return MCP_SCOPES.filter((scope) => scopes.includes(scope)).map((scope) => KEY_SCOPE_FOR[scope]);
}

/** Sorted in the canonical order, without duplicates. */
export function normalizeScopes(scopes: Iterable<string>): McpScope[] {
  const set = new Set(scopes);
  return MCP_SCOPES.filter((scope) => set.has(scope));
}

/**
 * Parses a space-separated `scope` parameter. `offline_access` is accepted and ignored: refresh tokens are issued
 * to every client anyway, and OpenID-minded clients send it. Anything else unknown is refused (null). No scope at
 * all asks for the three.
 */
export function parseScopeParameter(value: string | null | undefined): McpScope[] | null {
  if (value === null || value === undefined || value.trim() === "") return [...MCP_SCOPES];
  const requested = value.split(" ").filter((part) => part !== "");
  const unknown = requested.filter((scope) => !isMcpScope(scope) && scope !== "offline_access");
  if (unknown.length > 0) return null;
  const scopes = normalizeScopes(requested);
  return scopes.length > 0 ? scopes : [...MCP_SCOPES];
}
