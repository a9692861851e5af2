import { beforeAll, describe, expect, it } from "vitest";
import { connectTestApp } from "@/server/oauth/testing";
import { createMerchant, createTestStorefront, type Merchant } from "@/server/storefronts/testing";
import { call } from "@/server/testing/api";
import { handleMcpRequest } from "@/server/wiring/mcp";
import { connectClient } from "./testing";

// docs/mcp.md, "Protocol versions": the stateless revision 2026-07-28 beside the handshake-based ones, on the same
// endpoint, with the same tools, errors and authorization.

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers are read loosely here
type RpcBody = Record<string, any>;

const VERSION = "2026-07-28";
let merchant: Merchant;
let storefrontId: string;

beforeAll(async () => {
  merchant = await createMerchant({ verified: true, plan: "PRO" });
  storefrontId = (await createTestStorefront(merchant.userKey)).id;
});

function modern(
  method: string,
  params: Record<string, unknown> = {},
  options: { bearer?: string; headers?: Record<string, string>; version?: string; id?: number | null } = {},
): Request {
  const version = options.version ?? VERSION;
  const name =
    typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : null;
  const body: Record<string, unknown> = {
    jsonrpc: "2.0",
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": { name: "modern-test", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  };
  if (options.id !== null) body.id = options.id ?? 1;
  return new Request("http://localhost:3000/mcp", {
    method: "POST",
    headers: {
      authorization: `Bearer ${options.bearer ?? merchant.userKey}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": version,
      "mcp-method": method,
      ...(name ? { "mcp-name": name } : {}),
      ...options.headers,
    },
    body: JSON.stringify(body),
  });
}

async function answer(request: Request) {
  const res = await handleMcpRequest(request);
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: text ? (JSON.parse(text) as RpcBody) : null,
  };
}

describe("MCP 2026-07-28 (stateless, no handshake)", () => {
  it("server/discover names every supported version, the capabilities and the server", async () => {
    const { status, body } = await answer(modern("server/discover"));
    expect(status).toBe(200);
    expect(body?.result).toMatchObject({
      resultType: "complete",
      supportedVersions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
      capabilities: { tools: {}, resources: {} },
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "marea" } },
    });
  });

  it("tools/list and tools/call work without initialize, with cache hints on lists", async () => {
    const list = await answer(modern("tools/list"));
    expect(list.body?.result.tools).toHaveLength(17);
    expect(list.body?.result).toMatchObject({ resultType: "complete", cacheScope: "private" });
    expect(list.body?.result.ttlMs).toBeGreaterThan(0);
    const got = await answer(
      modern("tools/call", { name: "marea.get_storefront", arguments: { storefrontId } }),
    );
    expect(got.status).toBe(200);
    expect(got.headers.get("x-ratelimit-limit")).toBeTruthy();
    const rest = await call("GET", `/v1/storefronts/${storefrontId}`, { key: merchant.userKey });
    expect(got.body?.result.structuredContent).toEqual((rest.body as { storefront: unknown }).storefront);
    const failed = await answer(
      modern("tools/call", { name: "marea.get_storefront", arguments: { storefrontId: "stf_x" } }),
    );
    expect(failed.body?.result.isError).toBe(true);
    expect(JSON.parse(failed.body?.result.content[0].text).code).toBe("storefront_not_found");
  });

  it("resources: the storefront is readable as marea://storefronts/{id}", async () => {
    const listed = await answer(modern("resources/list"));
    expect(listed.body?.result.resources).toContainEqual(
      expect.objectContaining({ uri: `marea://storefronts/${storefrontId}`, mimeType: "application/json" }),
    );
    const read = await answer(modern("resources/read", { uri: `marea://storefronts/${storefrontId}` }));
    expect(JSON.parse(read.body?.result.contents[0].text).id).toBe(storefrontId);
    const templates = await answer(modern("resources/templates/list"));
    expect(templates.body?.result.resourceTemplates[0].uriTemplate).toBe(
      "marea://storefronts/{storefrontId}",
    );
  });

  it("Mcp-Method and Mcp-Name must match the body (HeaderMismatch -32020, 400)", async () => {
    const wrongMethod = await answer(modern("tools/list", {}, { headers: { "mcp-method": "tools/call" } }));
    expect(wrongMethod.status).toBe(400);
    expect(wrongMethod.body?.error.code).toBe(-32020);
    const wrongName = await answer(
      modern(
        "tools/call",
        { name: "marea.get_me", arguments: {} },
        { headers: { "mcp-name": "marea.list_orders" } },
      ),
    );
    expect(wrongName.body?.error.code).toBe(-32020);
    const encoded = await answer(
      modern(
        "tools/call",
        { name: "marea.get_me", arguments: {} },
        { headers: { "mcp-name": `=?base64?${Buffer.from("marea.get_me").toString("base64")}?=` } },
      ),
    );
    expect(encoded.status).toBe(200);
  });

  it("an unsupported version: 400 UnsupportedProtocolVersion (-32022) listing the supported ones", async () => {
    const res = await answer(modern("tools/list", {}, { version: "2099-01-01" }));
    expect(res.status).toBe(400);
    expect(res.body?.error).toMatchObject({ code: -32022, data: { requested: "2099-01-01" } });
    expect(res.body?.error.data.supported).toContain("2026-07-28");
  });

  it("an unknown method: 404 with -32601; a notification: 202", async () => {
    const unknown = await answer(modern("prompts/list"));
    expect(unknown.status).toBe(404);
    expect(unknown.body?.error.code).toBe(-32601);
    const notification = await answer(modern("notifications/progress", {}, { id: null }));
    expect(notification.status).toBe(202);
  });

  it("params a method's schema refuses: JSON-RPC invalid params (-32602), never an internal error", async () => {
    const res = await answer(modern("resources/read", { uri: 5 }, { headers: { "mcp-name": "5" } }));
    expect(res.status).toBe(200);
    expect(res.body?.error.code).toBe(-32602);
  });

  it("the official client probing with server/discover (auto) settles on 2026-07-28 and calls tools", async () => {
    const client = await connectClient(merchant.userKey, { era: "auto" });
    expect(client.getNegotiatedProtocolVersion()).toBe(VERSION);
    const got = await client.callTool({ name: "marea.get_storefront", arguments: { storefrontId } });
    expect((got.structuredContent as { id: string }).id).toBe(storefrontId);
    await client.close();
  });

  it("the same authorization: 401 challenge, and the OAuth step-up 403", async () => {
    const anonymous = await handleMcpRequest(
      new Request("http://localhost:3000/mcp", {
        method: "POST",
        headers: { "mcp-protocol-version": VERSION },
        body: "{}",
      }),
    );
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer resource_metadata="/);
    const owner = await createMerchant({ verified: true });
    const { tokens } = await connectTestApp(owner.userId, "marea.read");
    const refused = await answer(
      modern(
        "tools/call",
        { name: "marea.publish_storefront", arguments: { storefrontId } },
        { bearer: tokens.access_token },
      ),
    );
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('scope="marea.read marea.publish"');
  });
});
