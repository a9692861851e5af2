import { beforeAll, describe, expect, it } from "vitest";
import { acceptCurrentTerms } from "@/server/accounts/cancellation";
import { env } from "@/server/env";
import { currentTerms } from "@/server/gate/terms";
import { gql } from "@/server/graphql/testing";
import { signInThroughMail } from "@/server/sessions/testing";
import { createMerchant, type Merchant } from "@/server/storefronts/testing";
import { call } from "@/server/testing/api";
import { sessionContextFor } from "@/server/testing/context";
import { handleMcpRequest } from "@/server/wiring/mcp";
import { handleTrpcRequest } from "@/server/wiring/trpc";

// docs/api.md, "Hostile and malformed input": one id rule (`id()`, server/validation.ts) at every door. An id the
// rule refuses is refused on tRPC, GraphQL and MCP alike (400 invalid_request naming the argument), and is the
// resource's 404 on /v1 (a path that names no row); an id it accepts is looked up everywhere.

const APP = new URL(env().APP_URL).origin;
const UNKNOWN = "stf_01zzzzzzzzzzzzzzzzzzzzzzzz";
const NOT_IDS: Array<[string, string]> = [
  ["empty", ""],
  ["65 characters", "x".repeat(65)],
  ["a control character", "stf_\u0001"],
  ["a NUL", "stf_\u0000"],
  ["a lone surrogate", "stf_\ud800"],
];

let merchant: Merchant;
let cookie: string;

beforeAll(async () => {
  merchant = await createMerchant({ verified: true });
  const signedIn = await signInThroughMail(merchant.email);
  if (signedIn.kind !== "signed_in") throw new Error("expected a session");
  await acceptCurrentTerms(await sessionContextFor(signedIn.accountId), { version: currentTerms().version });
  cookie = `marea_session=${signedIn.session.token}`;
});

/** The catalogue code and param each door answers for `storefrontId`. */
async function outcomes(id: string) {
  const trpc = await handleTrpcRequest(
    new Request(
      `${APP}/api/trpc/storefronts.get?input=${encodeURIComponent(JSON.stringify({ storefrontId: id }))}`,
      {
        headers: { cookie },
      },
    ),
  );
  const trpcError = ((await trpc.json()) as { error: { data: { error: { code: string; param: string } } } })
    .error.data.error;
  const graphql = await gql<{ storefront: unknown }>("query($id: ID!) { storefront(id: $id) { id } }", {
    key: merchant.userKey,
    variables: { id },
  });
  const graphqlError = graphql.body.errors?.[0]?.extensions as { code: string; param: string } | undefined;
  const mcp = await handleMcpRequest(
    new Request(`${APP}/mcp`, {
      method: "POST",
      headers: {
        host: new URL(APP).host,
        authorization: `Bearer ${merchant.userKey}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "marea.get_storefront", arguments: { storefrontId: id } },
      }),
    }),
  );
  const mcpResult = ((await mcp.json()) as { result: { content: Array<{ text: string }> } }).result;
  const mcpError = JSON.parse(mcpResult.content[0]?.text ?? "{}") as { code: string; param: string };
  return {
    trpc: [trpcError.code, trpcError.param],
    graphql: [graphqlError?.code, graphqlError?.param],
    mcp: [mcpError.code, mcpError.param],
  };
}

describe("one id rule at every door", () => {
  it("a well-formed id that names nothing is looked up everywhere: not found", async () => {
    expect(await outcomes(UNKNOWN)).toEqual({
      trpc: ["storefront_not_found", "storefrontId"],
      graphql: ["storefront_not_found", "storefrontId"],
      mcp: ["storefront_not_found", "storefrontId"],
    });
    const rest = await call("GET", `/v1/storefronts/${UNKNOWN}`, { key: merchant.userKey });
    expect(rest.status).toBe(404);
  });

  it.each(NOT_IDS)("%s: refused alike on tRPC, GraphQL and MCP, the resource's 404 on /v1", async (_, id) => {
    expect(await outcomes(id)).toEqual({
      trpc: ["invalid_request", "storefrontId"],
      graphql: ["invalid_request", "id"],
      mcp: ["invalid_request", "storefrontId"],
    });
    if (id === "") return; // An empty segment is another path on /v1, not an id.
    let segment: string;
    try {
      segment = encodeURIComponent(id);
    } catch {
      segment = "%ED%A0%80"; // A lone surrogate's UTF-8, which is not valid UTF-8.
    }
    const rest = await call("GET", `/v1/storefronts/${segment}`, { key: merchant.userKey });
    expect(rest.status).toBe(404);
    expect((rest.body as { error: { code: string; param: string } }).error).toMatchObject({
      code: "storefront_not_found",
      param: "storefrontId",
    });
  });
});
