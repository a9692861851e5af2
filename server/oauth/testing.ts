import { createHash, randomBytes } from "node:crypto";
import { dbReady } from "@/server/db/client";
import { sessionContextFor } from "@/server/testing/context";
import { decideConsent, startAuthorization } from "./authorization";
import { type RegisteredClient, registerClient } from "./clients";
import { exchangeToken, type TokenResponse } from "./tokens";
import { mcpUrl } from "./urls";

/** A PKCE verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** A client IP of its own per call, so tests never share a registration bucket by accident. */
export function uniqueClientIp(): string {
  return `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${1 + ((randomBytes(1)[0] ?? 0) % 250)}`;
}

export const TEST_REDIRECT_URI = "http://127.0.0.1:8976/callback";

/** A client registered through RFC 7591, as an MCP client does it. */
export async function registerTestClient(metadata: Record<string, unknown> = {}): Promise<RegisteredClient> {
  return registerClient(
    await dbReady(),
    {
      metadata: { client_name: "Test MCP Client", redirect_uris: [TEST_REDIRECT_URI], ...metadata },
      ip: uniqueClientIp(),
    },
    new Date(),
  );
}

export function authorizeParams(
  clientId: string,
  challenge: string,
  overrides: Record<string, string | null> = {},
): URLSearchParams {
  const values: Record<string, string | null> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: TEST_REDIRECT_URI,
    scope: "marea.read marea.write marea.publish",
    state: "state-123",
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: mcpUrl(),
    ...overrides,
  };
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== null) params.set(name, value);
  return params;
}

/** The authorization request id in a consent page URL. */
export function requestIdOf(location: string): string {
  const id = new URL(location).searchParams.get("request");
  if (!id) throw new Error(`no request id in ${location}`);
  return id;
}

/**
 * The whole browser part of a flow, through the services: authorize, then the account's approval on the consent
 * page. Answers the client's redirect (with the code).
 */
export async function authorizeAndApprove(input: {
  accountId: string;
  clientId: string;
  challenge: string;
  params?: Record<string, string | null>;
  approve?: boolean;
}): Promise<URL> {
  const db = await dbReady();
  const outcome = await startAuthorization(
    db,
    { params: authorizeParams(input.clientId, input.challenge, input.params), ip: uniqueClientIp() },
    new Date(),
  );
  if (outcome.kind !== "consent") throw new Error(`authorize refused: ${JSON.stringify(outcome)}`);
  const { redirectTo } = await decideConsent(await sessionContextFor(input.accountId), {
    requestId: requestIdOf(outcome.location),
    approve: input.approve ?? true,
  });
  return new URL(redirectTo);
}

export function tokenForm(values: Record<string, string>): URLSearchParams {
  return new URLSearchParams(values);
}

/** An app connected to `accountId` with `scopes`: registered, authorized, approved, code redeemed. */
export async function connectTestApp(
  accountId: string,
  scopes = "marea.read marea.write marea.publish",
): Promise<{ client: RegisteredClient; tokens: TokenResponse }> {
  const client = await registerTestClient();
  const { verifier, challenge } = pkcePair();
  const redirect = await authorizeAndApprove({
    accountId,
    clientId: client.client_id,
    challenge,
    params: { scope: scopes },
  });
  const code = redirect.searchParams.get("code");
  if (!code) throw new Error(`no code: ${redirect}`);
  const tokens = await exchangeToken(
    await dbReady(),
    {
      form: tokenForm({
        grant_type: "authorization_code",
        client_id: client.client_id,
        code,
        code_verifier: verifier,
        redirect_uri: TEST_REDIRECT_URI,
        resource: mcpUrl(),
      }),
      clientId: null,
    },
    new Date(),
  );
  return { client, tokens };
}
