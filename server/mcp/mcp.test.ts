import type { Client } from "@modelcontextprotocol/client";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import type { Actor } from "@/server/context";
import { dbReady } from "@/server/db/client";
import { ERROR_CATALOGUE } from "@/server/errors";
import { KEY_SCOPE_FOR, MCP_SCOPES, type McpScope } from "@/server/gate/oauth-scopes";
import { apiKeys } from "@/server/gate/tables";
import { assertOAuthScopes, type McpAuth, McpHttpError, requiredScopeOf } from "@/server/mcp/auth";
import { connectTestApp } from "@/server/oauth/testing";
import { protectedResourceMetadataUrl } from "@/server/oauth/urls";
import type { OperationDefinition } from "@/server/operations";
import { createStorefrontWithProduct } from "@/server/orders/testing";
import { createMerchant, type Merchant } from "@/server/storefronts/testing";
import { awayFromMinuteEdge, call } from "@/server/testing/api";
import { createTestEndpoint } from "@/server/webhooks/testing";
import { handleMcpRequest, TOOLS } from "@/server/wiring/mcp";
import { OPERATIONS, type OperationName } from "@/server/wiring/operations";
import { CLIENT_ERAS, connectClient } from "./testing";

// docs/mcp.md, "Tools" and "Authentication": the MCP endpoint in-process, driven by the official client SDK.

let merchant: Merchant;
let developer: Awaited<ReturnType<typeof createDeveloper>>;
let storefrontId: string;
let productId: string;
let orderId: string;
let endpointId: string;

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: unknown };

async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

function errorOf(result: ToolResult): Record<string, unknown> {
  expect(result.isError).toBe(true);
  const [first] = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(first?.text ?? "{}") as Record<string, unknown>;
}

beforeAll(async () => {
  merchant = await createMerchant({ verified: true, plan: "PRO" });
  developer = await createDeveloper();
  ({ storefrontId, productId } = await createStorefrontWithProduct(merchant.userKey, { stock: 50 }));
  const order = await call("POST", `/v1/storefronts/${storefrontId}/orders`, {
    key: merchant.userKey,
    body: {
      items: [{ productId, amount: 2 }],
      customer: { name: "Ana", phone: "+5215512345678" },
      paymentMethod: { name: "Cash" },
    },
  });
  orderId = (order.body as { order: { id: string } }).order.id;
  endpointId = (await createTestEndpoint(developer.key, { url: "https://hooks.example.com/marea" }))
    .endpointId;
  const fired = await call("POST", `/v1/webhook_endpoints/${endpointId}/test`, {
    key: developer.key,
    body: { type: "order.created" },
  });
  expect(fired.status).toBe(202);
});

describe("the tool registry", () => {
  it("each tool's OAuth scope maps to a key scope its operation accepts (merchant webhooks: catalog:read)", () => {
    for (const definition of TOOLS) {
      if (definition.scope === null) {
        expect(OPERATIONS.bootstrapUser.via, definition.name).toEqual(["api_key"]);
        expect(definition.operation).toBe("bootstrapUser");
        continue;
      }
      const operation =
        definition.name.includes("webhook") || definition.name.includes("deliveries")
          ? OPERATIONS.readMerchantWebhookEndpoints
          : OPERATIONS[definition.operation as OperationName];
      const scopes: readonly string[] = operation.scopes;
      if (scopes.length > 0) expect(scopes, definition.name).toContain(KEY_SCOPE_FOR[definition.scope]);
      expect(definition.annotations.readOnlyHint, definition.name).toBe(operation.access === "read");
    }
  });

  it("the step-up challenge asks for what the operations table names for the tool's operation, and nothing else", () => {
    const auth = (oauthScopes: McpScope[]): McpAuth => ({ actor: {} as Actor, headers: {}, oauthScopes });
    for (const definition of TOOLS) {
      const message = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: definition.name } };
      const operation: OperationDefinition<string, McpScope> =
        OPERATIONS[definition.operation as OperationName];
      const needed =
        operation.via && !operation.via.includes("oauth") ? null : (operation.oauthScope ?? null);
      expect(requiredScopeOf(message), definition.name).toBe(needed);
      if (needed === null) continue;
      let refusal: unknown;
      try {
        assertOAuthScopes(auth(MCP_SCOPES.filter((scope) => scope !== needed)), [message]);
      } catch (error) {
        refusal = error;
      }
      expect(refusal, definition.name).toBeInstanceOf(McpHttpError);
      const { error, headers } = refusal as McpHttpError;
      expect(error.options.requiredScopes, definition.name).toEqual([needed]);
      expect(headers["www-authenticate"], definition.name).toMatch(/^Bearer error="insufficient_scope"/);
      expect(() => assertOAuthScopes(auth([needed]), [message]), definition.name).not.toThrow();
    }
  });
});

// The same suites for each era a client of the official SDK speaks: the 2025 handshake and the stateless 2026-07-28
// revision must answer alike (docs/mcp.md, "Protocol versions").
describe.each(CLIENT_ERAS)("the official client, %s era", (era) => {
  let userClient: Client;
  let developerClient: Client;

  beforeAll(async () => {
    userClient = await connectClient(merchant.userKey, { era });
    developerClient = await connectClient(developer.key, { era });
  });

  afterAll(async () => {
    await userClient?.close();
    await developerClient?.close();
  });

  describe("tools/list", () => {
    it("a user key sees every tool but marea.bootstrap_user; a developer key sees it too", async () => {
      const names = (await userClient.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(TOOLS.map((t) => t.name).filter((name) => name !== "marea.bootstrap_user"));
      expect(names).toHaveLength(17);
      const developerNames = (await developerClient.listTools()).tools.map((t) => t.name);
      expect(developerNames).toContain("marea.bootstrap_user");
      expect(developerNames).toHaveLength(18);
    });

    it("every tool has an object input schema, an output schema and truthful annotations", async () => {
      const { tools } = await developerClient.listTools();
      for (const listed of tools) {
        expect(listed.inputSchema.type, listed.name).toBe("object");
        expect(listed.outputSchema?.type, listed.name).toBe("object");
        const annotations = listed.annotations ?? {};
        const isRead = /^marea\.(get|list)_/.test(listed.name);
        expect(annotations.readOnlyHint, listed.name).toBe(isRead);
        if (isRead) expect(annotations.destructiveHint, listed.name).toBe(false);
      }
      const byName = new Map(tools.map((t) => [t.name, t.annotations]));
      expect(byName.get("marea.delete_product")).toMatchObject({
        destructiveHint: true,
        idempotentHint: true,
      });
      expect(byName.get("marea.create_storefront")).toMatchObject({
        destructiveHint: false,
        idempotentHint: false,
      });
      expect(byName.get("marea.publish_storefront")).toMatchObject({
        destructiveHint: false,
        idempotentHint: true,
      });
    });
  });

  describe("each read tool answers what the same read over /v1 answers", () => {
    const reads: Array<
      [string, () => Record<string, unknown>, () => string, (body: Record<string, unknown>) => unknown]
    > = [
      [
        "marea.list_storefronts",
        () => ({}),
        () => "/v1/storefronts",
        (body: Record<string, unknown>) => body,
      ],
      [
        "marea.get_storefront",
        () => ({ storefrontId }),
        () => `/v1/storefronts/${storefrontId}`,
        (body: Record<string, unknown>) => body.storefront,
      ],
      [
        "marea.list_products",
        () => ({ storefrontId, limit: 5 }),
        () => `/v1/storefronts/${storefrontId}/products?limit=5`,
        (body: Record<string, unknown>) => body,
      ],
      [
        "marea.list_orders",
        () => ({ storefrontId }),
        () => `/v1/storefronts/${storefrontId}/orders`,
        (body: Record<string, unknown>) => body,
      ],
    ];
    it.each(reads)("%s", async (name, args, path, shape) => {
      const result = await tool(userClient, name, args());
      expect(result.isError).toBeFalsy();
      const rest = await call("GET", path(), { key: merchant.userKey });
      expect(rest.status).toBe(200);
      expect(result.structuredContent).toEqual(shape(rest.body));
    });

    it("marea.get_me: the same identity and limits as GET /v1/me", async () => {
      const result = await tool(userClient, "marea.get_me");
      const rest = await call("GET", "/v1/me", { key: merchant.userKey });
      const withoutBudget = (me: Record<string, unknown>) => ({ ...me, rateLimit: undefined });
      expect(withoutBudget(result.structuredContent ?? {})).toEqual(withoutBudget(rest.body));
      expect(result.structuredContent?.rateLimit).toMatchObject({ rpm: 100_000 });
    });

    it("marea.list_webhook_endpoints and marea.list_deliveries (a developer key: its developer endpoints)", async () => {
      const endpoints = await tool(developerClient, "marea.list_webhook_endpoints");
      const rest = await call("GET", "/v1/webhook_endpoints", { key: developer.key });
      expect(endpoints.structuredContent).toEqual(rest.body);
      expect((endpoints.structuredContent?.data as unknown[] | undefined)?.length).toBe(1);
      const deliveries = await tool(developerClient, "marea.list_deliveries", { endpointId });
      const restDeliveries = await call("GET", `/v1/webhook_endpoints/${endpointId}/deliveries`, {
        key: developer.key,
      });
      expect(restDeliveries.status).toBe(200);
      expect(deliveries.structuredContent).toEqual(restDeliveries.body);
      expect((deliveries.structuredContent?.data as unknown[] | undefined)?.length).toBe(1);
    });

    it("a user key reads the account's merchant endpoints (none here)", async () => {
      const endpoints = await tool(userClient, "marea.list_webhook_endpoints");
      expect(endpoints.structuredContent).toEqual({ data: [], nextCursor: null });
    });
  });

  describe("write tools change what /v1 then reads", () => {
    it("create, update, publish and unpublish a storefront", async () => {
      const created = await tool(userClient, "marea.create_storefront", {
        name: "Café Marea",
        currency: "MXN",
        products: [{ title: "Latte", price: 45 }],
      });
      expect(created.isError).toBeFalsy();
      const storefront = created.structuredContent?.storefront as { id: string; updatedAt: string };
      expect((created.structuredContent?.products as unknown[] | undefined)?.length).toBe(1);

      const updated = await tool(userClient, "marea.update_storefront", {
        storefrontId: storefront.id,
        patch: { name: "Café Marea Centro" },
        expectedUpdatedAt: storefront.updatedAt,
      });
      expect(updated.structuredContent?.name).toBe("Café Marea Centro");
      const stale = errorOf(
        await tool(userClient, "marea.update_storefront", {
          storefrontId: storefront.id,
          patch: { name: "Late" },
          expectedUpdatedAt: storefront.updatedAt,
        }),
      );
      expect(stale.code).toBe("storefront_conflict");

      const published = await tool(userClient, "marea.publish_storefront", { storefrontId: storefront.id });
      expect(published.structuredContent?.published).toBe(true);
      const rest = await call("GET", `/v1/storefronts/${storefront.id}`, { key: merchant.userKey });
      expect((rest.body as { storefront: unknown }).storefront).toEqual(published.structuredContent);
      const unpublished = await tool(userClient, "marea.unpublish_storefront", {
        storefrontId: storefront.id,
      });
      const restAfter = await call("GET", `/v1/storefronts/${storefront.id}`, { key: merchant.userKey });
      expect((restAfter.body as { storefront: unknown }).storefront).toEqual(unpublished.structuredContent);
    });

    it("create, update and delete a product; update an order's status", async () => {
      const created = await tool(userClient, "marea.create_product", {
        storefrontId,
        product: { title: "Gringa", price: 60 },
      });
      const product = created.structuredContent as { id: string };
      const updated = await tool(userClient, "marea.update_product", {
        storefrontId,
        productId: product.id,
        patch: { price: 65 },
      });
      expect(updated.structuredContent?.price).toBe(65);
      const rest = await call("GET", `/v1/storefronts/${storefrontId}/products/${product.id}`, {
        key: merchant.userKey,
      });
      expect((rest.body as { product: unknown }).product).toEqual(updated.structuredContent);
      const deleted = await tool(userClient, "marea.delete_product", { storefrontId, productId: product.id });
      expect(deleted.structuredContent).toEqual({ id: product.id, deleted: true });
      expect(
        (
          await call("GET", `/v1/storefronts/${storefrontId}/products/${product.id}`, {
            key: merchant.userKey,
          })
        ).status,
      ).toBe(404);

      const order = await tool(userClient, "marea.update_order_status", {
        orderId,
        change: { orderStatus: "accepted" },
      });
      expect(order.isError).toBeFalsy();
      const restOrder = await call("GET", `/v1/orders/${orderId}`, { key: merchant.userKey });
      expect((restOrder.body as { order: unknown }).order).toEqual(order.structuredContent);
    });
  });

  describe("errors are isError results carrying the catalogue's code, localized message and param", () => {
    it("an unknown storefront: storefront_not_found", async () => {
      const error = errorOf(await tool(userClient, "marea.get_storefront", { storefrontId: "stf_nope" }));
      expect(error).toMatchObject({
        code: "storefront_not_found",
        type: "not_found",
        message: ERROR_CATALOGUE.storefront_not_found.messages.en,
      });
      expect(error.requestId).toMatch(/^req_/);
    });

    it("a bad argument: invalid_request with the JSON path in param, in the caller's language", async () => {
      const spanish = await connectClient(merchant.userKey, { era, headers: { "accept-language": "es" } });
      const error = errorOf(
        await tool(spanish, "marea.update_storefront", {
          storefrontId,
          patch: { delivery: { ranges: [{ fromKm: "x" }] } },
        }),
      );
      expect(error.code).toBe("invalid_request");
      expect(error.param).toMatch(/^patch\.delivery/);
      expect(String(error.message)).toMatch(/^La solicitud no es válida\./);
      await spanish.close();
    });

    it("a tool the key has no scope for: insufficient_scope with requiredScopes", async () => {
      const error = errorOf(await tool(developerClient, "marea.list_storefronts"));
      expect(error).toMatchObject({ code: "insufficient_scope", requiredScopes: ["catalog:read"] });
    });

    it("an unknown tool is a protocol error, not a tool result", async () => {
      await expect(tool(userClient, "marea.nope")).rejects.toThrow(/Unknown tool/);
    });
  });

  describe("marea.bootstrap_user: developer keys only, never over OAuth", () => {
    it("a developer key bootstraps a merchant", async () => {
      const result = await tool(developerClient, "marea.bootstrap_user", {
        email: `mcp-boot-${era}@example.com`,
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ user: { email: `mcp-boot-${era}@example.com` } });
      expect(result.structuredContent?.userKey).toMatch(/^mk_user_/);
    });

    it("a user key gets insufficient_scope", async () => {
      const error = errorOf(await tool(userClient, "marea.bootstrap_user", { email: "nope@example.com" }));
      expect(error.code).toBe("insufficient_scope");
    });

    it("a user key never sees or reaches it, even holding developer:bootstrap (the operation's kinds)", async () => {
      const owner = await createMerchant({ verified: true });
      await (await dbReady())
        .update(apiKeys)
        .set({ scopes: ["catalog:read", "catalog:write", "developer:bootstrap"] })
        .where(eq(apiKeys.accountId, owner.userId));
      const client = await connectClient(owner.userKey, { era });
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("marea.bootstrap_user");
      const error = errorOf(
        await tool(client, "marea.bootstrap_user", { email: `kind-boot-${era}@example.com` }),
      );
      expect(error.code).toBe("insufficient_scope");
      await client.close();
      const rest = await call("POST", "/v1/users", {
        key: owner.userKey,
        body: { email: `kind-boot-rest-${era}@example.com` },
      });
      expect(rest.status).toBe(403);
      expect((rest.body as { error: { code: string } }).error.code).toBe("insufficient_scope");
    });

    it("an OAuth app never sees or reaches it, even when its key holds developer:bootstrap", async () => {
      const owner = await createMerchant({ verified: true });
      const { tokens } = await connectTestApp(owner.userId);
      const db = await dbReady();
      await db
        .update(apiKeys)
        .set({
          scopes: ["catalog:read", "catalog:write", "storefront:publish", "developer:bootstrap"],
          rpm: 100_000,
        })
        .where(eq(apiKeys.source, "oauth"));
      const app = await connectClient(tokens.access_token, { era });
      expect((await app.listTools()).tools.map((t) => t.name)).not.toContain("marea.bootstrap_user");
      const error = errorOf(await tool(app, "marea.bootstrap_user", { email: "oauth-boot@example.com" }));
      expect(error.code).toBe("insufficient_scope");
      await app.close();
    });
  });
});

async function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return handleMcpRequest(
    new Request("http://localhost:3000/mcp", {
      method: "POST",
      headers: {
        host: "localhost:3000",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
        ...headers,
      },
      body: JSON.stringify(body),
    }),
  );
}

const listTools = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };

describe("authentication and the RFC 9728 challenge", () => {
  it("no credentials: 401 with resource_metadata and the three scopes", async () => {
    const res = await post(listTools);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${protectedResourceMetadataUrl()}", scope="marea.read marea.write marea.publish"`,
    );
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("missing_authorization");
  });

  it.each([
    ["a made-up token", "mcp_at_0000000000000000000000000000000000000000000"],
    ["garbage", "abc"],
    ["a revoked key", "revoked"],
  ])("%s: 401 invalid_token with the challenge", async (_, credential) => {
    let bearer = credential;
    if (credential === "revoked") {
      const other = await createMerchant();
      await (await dbReady())
        .update(apiKeys)
        .set({ revokedAt: new Date() })
        .where(eq(apiKeys.accountId, other.userId));
      bearer = other.userKey;
    }
    const res = await post(listTools, { authorization: `Bearer ${bearer}` });
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain(`resource_metadata="${protectedResourceMetadataUrl()}"`);
    expect(challenge).toContain('error="invalid_token"');
  });

  it("an OAuth token without the scope a tool needs: 403 insufficient_scope naming it (step-up)", async () => {
    const owner = await createMerchant({ verified: true });
    const { tokens } = await connectTestApp(owner.userId, "marea.read");
    const res = await post(
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "marea.create_storefront", arguments: {} },
      },
      { authorization: `Bearer ${tokens.access_token}` },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toMatch(
      /^Bearer error="insufficient_scope", scope="marea.read marea.write", resource_metadata="[^"]+"/,
    );
    const body = (await res.json()) as {
      error: { code: string; requiredScopes: string[]; heldScopes: string[] };
    };
    expect(body.error).toMatchObject({
      code: "insufficient_scope",
      requiredScopes: ["marea.write"],
      heldScopes: ["marea.read"],
    });
    // What it holds keeps working.
    const read = await post(
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "marea.list_storefronts", arguments: {} },
      },
      { authorization: `Bearer ${tokens.access_token}` },
    );
    expect(read.status).toBe(200);
  });

  it("Origin and Host are checked (DNS rebinding)", async () => {
    const fromElsewhere = await post(listTools, {
      authorization: `Bearer ${merchant.userKey}`,
      origin: "https://evil.example",
    });
    expect(fromElsewhere.status).toBe(403);
    const rebound = await post(listTools, {
      authorization: `Bearer ${merchant.userKey}`,
      host: "evil.example",
    });
    expect(rebound.status).toBe(403);
    expect(((await rebound.json()) as { error: { code: string } }).error.code).toBe("host_not_allowed");
    const sameSite = await post(listTools, {
      authorization: `Bearer ${merchant.userKey}`,
      origin: "http://localhost:3000",
    });
    expect(sameSite.status).toBe(200);
  });

  it("GET and DELETE are authenticated, then 405", async () => {
    const res = await handleMcpRequest(
      new Request("http://localhost:3000/mcp", {
        method: "GET",
        headers: { authorization: `Bearer ${merchant.userKey}` },
      }),
    );
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("params a method's schema refuses are the client's mistake (docs/mcp.md, \"Errors\")", () => {
  it.each([
    ["resources/read", { uri: 5 }],
    ["tools/call", { name: 5 }],
    ["tools/call", { name: "marea.get_me", arguments: [1] }],
    ["initialize", { protocolVersion: 5, capabilities: {}, clientInfo: { name: "t", version: "1" } }],
  ])("%s %j: JSON-RPC invalid params (-32602), never an internal error", async (method, params) => {
    const res = await post(
      { jsonrpc: "2.0", id: 7, method, params },
      { authorization: `Bearer ${merchant.userKey}` },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: unknown; error: { code: number } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32602);
  });
});

describe("H2: one message per request (JSON-RPC batches were removed in 2025-06-18)", () => {
  it("H2: an array of two tools/call is refused whole (400, JSON-RPC -32600) and neither call runs", async () => {
    const owner = await createMerchant({ verified: true, plan: "PRO" });
    const create = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "marea.create_storefront", arguments: { name: `Batch ${id}`, currency: "MXN" } },
    });
    const storefronts = async () =>
      ((await call("GET", "/v1/storefronts", { key: owner.userKey })).body as { data: unknown[] }).data
        .length;
    for (const version of ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]) {
      const res = await post([create(1), create(2)], {
        authorization: `Bearer ${owner.userKey}`,
        "mcp-protocol-version": version,
      });
      expect(res.status, version).toBe(400);
      expect(res.headers.get("x-request-id")).toMatch(/^req_/);
      expect(await res.json()).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Invalid Request: batches are not supported; send one message." },
      });
    }
    // An empty array and a batch of one are batches too.
    for (const batch of [[], [listTools]]) {
      const res = await post(batch, { authorization: `Bearer ${owner.userKey}` });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600);
    }
    expect(await storefronts()).toBe(0);
    // One message still runs.
    const single = await post(create(3), { authorization: `Bearer ${owner.userKey}` });
    expect(single.status).toBe(200);
    expect(await storefronts()).toBe(1);
  });

  it("H2: a batch is refused after authentication: without credentials it is the 401 challenge", async () => {
    const res = await post([listTools, listTools]);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain("resource_metadata=");
  });
});

describe("rate limits: a static key's calls count in its bucket", () => {
  it("/mcp and /v1 share the key's minute bucket, with X-RateLimit-* on every answer, then 429", async () => {
    await awayFromMinuteEdge();
    const limited = await createMerchant();
    await (await dbReady()).update(apiKeys).set({ rpm: 4 }).where(eq(apiKeys.accountId, limited.userId));
    const auth = { authorization: `Bearer ${limited.userKey}` };
    const first = await post(listTools, auth);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit")).toBe("4");
    const remaining = Number(first.headers.get("x-ratelimit-remaining"));
    const rest = await call("GET", "/v1/me", { key: limited.userKey });
    expect(Number(rest.headers.get("x-ratelimit-remaining"))).toBe(remaining - 1);
    const third = await post(listTools, auth);
    expect(Number(third.headers.get("x-ratelimit-remaining"))).toBe(remaining - 2);
    await post(listTools, auth);
    const over = await post(listTools, auth);
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toBeTruthy();
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
  });

  it("an OAuth app counts in its per-user key's bucket", async () => {
    const owner = await createMerchant({ verified: true });
    const { tokens } = await connectTestApp(owner.userId);
    const res = await post(listTools, { authorization: `Bearer ${tokens.access_token}` });
    expect(res.headers.get("x-ratelimit-limit")).toBe("60");
    const [key] = (
      await (await dbReady()).select().from(apiKeys).where(eq(apiKeys.accountId, owner.userId))
    ).filter((row) => row.source === "oauth");
    const me = await post(
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "marea.get_me", arguments: {} } },
      { authorization: `Bearer ${tokens.access_token}` },
    );
    const result = (
      (await me.json()) as { result: { structuredContent: { keyId: string; scopes: string[] } } }
    ).result;
    expect(result.structuredContent.keyId).toBe(key?.id);
    expect(result.structuredContent.scopes).toEqual(["catalog:read", "catalog:write", "storefront:publish"]);
  });
});
