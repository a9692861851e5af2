import { and, asc, eq, gt, isNotNull, isNull, lt, notExists, or, sql } from "drizzle-orm";
import type { ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { type McpScope, normalizeScopes } from "@/server/gate/oauth-scopes";
import { apiKeys } from "@/server/gate/tables";
import { log } from "@/server/lib/log";
import { clientHost } from "./clients";
import type { ConnectedAppDto } from "./dto";
import { authorize } from "./operations";
import {
  oauthAuthorizationRequests,
  oauthClients,
  oauthGrants,
  oauthRateLimits,
  oauthTokens,
} from "./tables";
import { hashOf, isOurResource, PREFIX, REFRESH_REUSE_GRACE_MS, TOKEN_PATTERN } from "./tokens";

/**
 * The resource side of Marea's OAuth server (docs/mcp.md, "Authorization server"): what an access token stands for
 * at the MCP endpoint, the apps connected to an account (the keys and account pages), and the hourly purge.
 */

export type AccessGrant = {
  tokenId: string;
  clientId: string;
  /** The SHA-256 of the per-user key the consent made: the request is counted in that key's bucket. */
  keyHash: string;
  scopes: McpScope[];
};

/**
 * The grant behind an access token presented at the MCP endpoint, or null: unknown, expired, revoked, issued for
 * another resource (audience), or its app disconnected (the per-user key revoked or deleted, the grant gone).
 */
export async function resolveAccessToken(db: Db, token: string, now: Date): Promise<AccessGrant | null> {
  if (!TOKEN_PATTERN.test(token) || !token.startsWith(PREFIX.access)) return null;
  const [row] = await db
    .select({
      tokenId: oauthTokens.id,
      clientId: oauthTokens.clientId,
      keyHash: apiKeys.hash,
      scopes: oauthTokens.scopes,
      resource: oauthTokens.resource,
    })
    .from(oauthTokens)
    .innerJoin(
      oauthGrants,
      and(
        eq(oauthGrants.accountId, oauthTokens.accountId),
        eq(oauthGrants.clientId, oauthTokens.clientId),
        eq(oauthGrants.keyId, oauthTokens.keyId),
      ),
    )
    .innerJoin(apiKeys, eq(apiKeys.id, oauthTokens.keyId))
    .where(
      and(
        eq(oauthTokens.hash, hashOf(token)),
        eq(oauthTokens.kind, "access"),
        isNull(oauthTokens.revokedAt),
        gt(oauthTokens.expiresAt, now),
        isNull(apiKeys.revokedAt),
      ),
    )
    .limit(1);
  if (!row || !isOurResource(row.resource)) return null;
  return {
    tokenId: row.tokenId,
    clientId: row.clientId,
    keyHash: row.keyHash,
    scopes: normalizeScopes(row.scopes),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Connected apps (the keys and account pages)

/** The apps connected to the signed-in account: one per client whose per-user key is live. */
export async function listConnectedApps(ctx: ServiceContext): Promise<ConnectedAppDto[]> {
  const actor = authorize(ctx, "listConnectedApps");
  const rows = await ctx.db
    .select({ grant: oauthGrants, client: oauthClients, keyPrefix: apiKeys.prefix, keyName: apiKeys.name })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .innerJoin(apiKeys, eq(apiKeys.id, oauthGrants.keyId))
    .where(and(eq(oauthGrants.accountId, actor.accountId), isNull(apiKeys.revokedAt)))
    .orderBy(asc(oauthGrants.createdAt), asc(oauthGrants.clientId));
  return rows.map(({ grant, client, keyPrefix, keyName }) => ({
    clientId: client.id,
    clientName: keyName ?? client.name,
    clientHost: clientHost(client),
    clientKind: client.kind,
    keyId: grant.keyId,
    keyPrefix,
    scopes: normalizeScopes(grant.scopes),
    connectedAt: grant.createdAt.toISOString(),
    updatedAt: grant.updatedAt.toISOString(),
  }));
}

/**
 * Disconnects an app at once: its per-user key is revoked (the next MCP call answers 401), every token it holds
 * is revoked (the next refresh answers `invalid_grant`), and the grant is forgotten.
 */
export async function disconnectApp(
  ctx: ServiceContext,
  input: { clientId: string },
): Promise<{ clientId: string; disconnected: true }> {
  const actor = authorize(ctx, "disconnectApp");
  const now = ctx.now();
  return inTransaction(ctx.db, async (db) => {
    const [grant] = await db
      .delete(oauthGrants)
      .where(and(eq(oauthGrants.accountId, actor.accountId), eq(oauthGrants.clientId, input.clientId)))
      .returning();
    if (!grant) throw new AppError("connected_app_not_found", { param: "clientId" });
    await db
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.id, grant.keyId), isNull(apiKeys.revokedAt)));
    await db
      .update(oauthTokens)
      .set({ revokedAt: now })
      .where(
        and(
          eq(oauthTokens.accountId, actor.accountId),
          eq(oauthTokens.clientId, input.clientId),
          isNull(oauthTokens.revokedAt),
        ),
      );
    log("info", "oauth app disconnected", { accountId: actor.accountId, clientId: input.clientId });
    return { clientId: input.clientId, disconnected: true as const };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Housekeeping

/** A registered client no person allowed is dropped this long after its registration. */
export const UNUSED_CLIENT_TTL_MS = 30 * 86_400_000;
/** A metadata document's copy no grant relies on is dropped this long after it was last fetched. */
export const UNUSED_DOCUMENT_CLIENT_TTL_MS = 86_400_000;

/**
 * The hourly purge (docs/mcp.md, "Authorization server"): codes and tokens expired a day ago, stale
 * authorization requests, old rate-limit windows, the sealed answers of rotations whose reuse grace is over, and
 * clients nobody uses (docs/security.md, "OAuth"): a metadata document's copy with no grant a day after it was
 * fetched (it is fetched again when needed), a registered client nobody ever allowed 30 days after it
 * registered. A client some grant names is never dropped.
 */
export async function purgeExpiredOAuthData(
  db: Db,
  now: Date,
): Promise<{ tokens: number; requests: number; rateLimitWindows: number; replays: number; clients: number }> {
  const dayAgo = new Date(now.getTime() - 86_400_000);
  const tokens = await db
    .delete(oauthTokens)
    .where(lt(oauthTokens.expiresAt, dayAgo))
    .returning({ id: oauthTokens.id });
  const replays = await db
    .update(oauthTokens)
    .set({ replay: null })
    .where(
      and(
        isNotNull(oauthTokens.replay),
        lt(oauthTokens.usedAt, new Date(now.getTime() - REFRESH_REUSE_GRACE_MS)),
      ),
    )
    .returning({ id: oauthTokens.id });
  const requests = await db
    .delete(oauthAuthorizationRequests)
    .where(lt(oauthAuthorizationRequests.expiresAt, now))
    .returning({ id: oauthAuthorizationRequests.id });
  const windows = await db
    .delete(oauthRateLimits)
    .where(lt(oauthRateLimits.windowStart, Math.floor(dayAgo.getTime() / 1000)))
    .returning({ key: oauthRateLimits.key });
  const isUnused = and(
    notExists(db.select({ one: sql`1` }).from(oauthGrants).where(eq(oauthGrants.clientId, oauthClients.id))),
    notExists(
      db
        .select({ one: sql`1` })
        .from(oauthAuthorizationRequests)
        .where(eq(oauthAuthorizationRequests.clientId, oauthClients.id)),
    ),
  );
  const clients = await db
    .delete(oauthClients)
    .where(
      and(
        isUnused,
        or(
          and(
            eq(oauthClients.kind, "metadata_document"),
            lt(oauthClients.updatedAt, new Date(now.getTime() - UNUSED_DOCUMENT_CLIENT_TTL_MS)),
          ),
          and(
            eq(oauthClients.kind, "dynamic"),
            isNull(oauthClients.grantedAt),
            lt(oauthClients.createdAt, new Date(now.getTime() - UNUSED_CLIENT_TTL_MS)),
          ),
        ),
      ),
    )
    .returning({ id: oauthClients.id });
  return {
    tokens: tokens.length,
    requests: requests.length,
    rateLimitWindows: windows.length,
    replays: replays.length,
    clients: clients.length,
  };
}
