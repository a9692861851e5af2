import type { Actor, ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { AppError, isAppError } from "@/server/errors";
import { KEY_PATTERN } from "@/server/gate/actors";
import { ALL_MCP_SCOPES, KEY_SCOPE_FOR, type McpScope, normalizeScopes } from "@/server/gate/oauth-scopes";
import { authenticateAndCount, authenticateAndCountKeyHash } from "@/server/gate/rate-limit";
import { resolveAccessToken } from "@/server/oauth/grants";
import { protectedResourceMetadataUrl } from "@/server/oauth/urls";
import { findTool, mcpResources } from "./registry";

/**
 * Who is calling `{mcp_url}` (docs/mcp.md, "Authentication"): a static key (`mk_user_*`, `mk_dev_*`) or an OAuth
 * access token, both as `Authorization: Bearer`, both counted in a key's rate-limit buckets (the static key's, or
 * the per-user key the app's consent made). No or bad credentials: 401 with the RFC 9728 challenge that starts
 * discovery.
 */

export type McpAuth = {
  actor: Actor;
  /** X-RateLimit-* of the key this request counted in. */
  headers: Record<string, string>;
  usage?: ServiceContext["usage"];
  /** The token's `marea.*` scopes; null for a static key (its key scopes decide, in the services). */
  oauthScopes: McpScope[] | null;
};

/** A refusal at the HTTP level: its status, the catalogue error it carries, and its headers. */
export class McpHttpError extends Error {
  readonly error: AppError;
  readonly headers: Record<string, string>;
  constructor(error: AppError, headers: Record<string, string> = {}) {
    super(error.message);
    this.name = "McpHttpError";
    this.error = error;
    this.headers = headers;
  }
}

function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, "")}"`;
}

/** `WWW-Authenticate` for 401: where the protected resource metadata is, and the scopes to ask for. */
export function unauthorizedChallenge(error?: { code: string; description: string }): string {
  const parts = [
    `resource_metadata=${quoted(protectedResourceMetadataUrl())}`,
    `scope=${quoted(ALL_MCP_SCOPES)}`,
  ];
  if (error) parts.push(`error=${quoted(error.code)}`, `error_description=${quoted(error.description)}`);
  return `Bearer ${parts.join(", ")}`;
}

function bearerOf(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? "";
}

function unauthorized(error: AppError, presented: boolean): McpHttpError {
  const challenge = presented
    ? unauthorizedChallenge({
        code: "invalid_token",
        description: "The credential is invalid, expired or revoked.",
      })
    : unauthorizedChallenge();
  return new McpHttpError(error, { "www-authenticate": challenge });
}

/** Rate-limit and account refusals keep their own status; credential problems become the 401 challenge. */
function rethrow(error: unknown, headers: Record<string, string> = {}): never {
  if (!isAppError(error)) throw error;
  if (error.status === 401) throw unauthorized(new AppError("invalid_token"), true);
  throw new McpHttpError(error, headers);
}

export async function authenticateMcpRequest(db: Db, request: Request, now: Date): Promise<McpAuth> {
  const bearer = bearerOf(request);
  if (bearer === null) throw unauthorized(new AppError("missing_authorization"), false);
  if (KEY_PATTERN.test(bearer)) {
    try {
      const { actor, limits } = await authenticateAndCount(db, bearer, now);
      return { actor, headers: limits.headers, usage: usageOf(limits), oauthScopes: null };
    } catch (error) {
      if (isAppError(error) && error.status === 401) throw unauthorized(error, true);
      return rethrow(error);
    }
  }
  const grant = await resolveAccessToken(db, bearer, now);
  if (!grant) throw unauthorized(new AppError("invalid_token"), true);
  let counted: Awaited<ReturnType<typeof authenticateAndCountKeyHash>>;
  try {
    counted = await authenticateAndCountKeyHash(db, grant.keyHash, now, {
      clientId: grant.clientId,
      tokenId: grant.tokenId,
    });
  } catch (error) {
    return rethrow(error);
  }
  // The app acts with what its token was granted, within what its key still holds.
  const granted: string[] = grant.scopes.map((scope) => KEY_SCOPE_FOR[scope]);
  const actor = { ...counted.actor, scopes: counted.actor.scopes.filter((scope) => granted.includes(scope)) };
  return {
    actor,
    headers: counted.limits.headers,
    usage: usageOf(counted.limits),
    oauthScopes: normalizeScopes(grant.scopes),
  };
}

function usageOf(limits: { remaining: number; remainingDay?: number }): ServiceContext["usage"] {
  return limits.remainingDay === undefined
    ? undefined
    : { remainingMinute: limits.remaining, remainingDay: limits.remainingDay };
}

/** The `marea.*` scope one JSON-RPC message needs over OAuth (null: none). */
export function requiredScopeOf(message: unknown): McpScope | null {
  if (typeof message !== "object" || message === null) return null;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  if (method === "tools/call" && typeof params?.name === "string")
    return findTool(params.name)?.scope ?? null;
  if (method === "resources/list") return mcpResources().listScope;
  if (method === "resources/read") return mcpResources().readScope;
  return null;
}

/**
 * Over OAuth, a request whose method needs a scope the token lacks is refused before it runs: 403
 * `insufficient_scope` with the step-up challenge (RFC 6750 section 3.1). The challenge's `scope` is what the
 * token holds plus what is missing, so a client that asks for exactly that keeps its other permissions.
 */
export function assertOAuthScopes(auth: McpAuth, messages: unknown[]): void {
  if (auth.oauthScopes === null) return;
  const held = auth.oauthScopes;
  const missing = normalizeScopes(
    messages
      .map(requiredScopeOf)
      .filter((scope): scope is McpScope => scope !== null && !held.includes(scope)),
  );
  if (missing.length === 0) return;
  const wanted = normalizeScopes([...held, ...missing]).join(" ");
  const description = `This call needs ${missing.join(" ")}.`;
  throw new McpHttpError(
    new AppError("insufficient_scope", { detail: description, requiredScopes: missing, heldScopes: held }),
    {
      ...auth.headers,
      "www-authenticate": `Bearer error="insufficient_scope", scope=${quoted(wanted)}, resource_metadata=${quoted(
        protectedResourceMetadataUrl(),
      )}, error_description=${quoted(description)}`,
    },
  );
}
