import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { ERROR_CATALOGUE, type ErrorCode } from "@/server/errors";
import { createStorefrontWithProduct } from "@/server/orders/testing";
import { createMerchant, type Merchant } from "@/server/storefronts/testing";
import { handleMcpRequest, TOOLS } from "@/server/wiring/mcp";

// docs/mcp.md, "Errors": whatever a client sends as tool arguments, the answer is never a 5xx, and a refusal is an
// isError result carrying a catalogue error (a 4xx one), or a JSON-RPC protocol error for a malformed call.
// Seeded, so a failure reproduces; FUZZ_RUNS raises the count (CI runs the default).

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers are read loosely here
type RpcBody = Record<string, any>;

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

let merchant: Merchant;
let developerKey: string;
let ids: { storefrontId: string; productId: string };

beforeAll(async () => {
  merchant = await createMerchant({ verified: true, plan: "PRO" });
  developerKey = (await createDeveloper()).key;
  ids = await createStorefrontWithProduct(merchant.userKey);
});

/** Arguments each tool accepts, so mutations reach past the first check. */
function validArgs(name: string): Record<string, unknown> {
  const { storefrontId, productId } = ids;
  switch (name) {
    case "marea.get_storefront":
    case "marea.publish_storefront":
    case "marea.unpublish_storefront":
    case "marea.list_products":
    case "marea.list_orders":
      return { storefrontId };
    case "marea.create_storefront":
      return { name: "Fuzz", currency: "MXN", products: [{ title: "A", price: 1 }] };
    case "marea.update_storefront":
      return { storefrontId, patch: { name: "Fuzz" } };
    case "marea.create_product":
      return { storefrontId, product: { title: "B", price: 2 } };
    case "marea.update_product":
      return { storefrontId, productId, patch: { price: 3 } };
    case "marea.delete_product":
      return { storefrontId, productId: "prd_missing" };
    case "marea.update_order_status":
      return { orderId: "ord_missing", change: { orderStatus: "accepted" } };
    case "marea.list_deliveries":
      return { endpointId: "mk_we_0000000000000000" };
    case "marea.bootstrap_user":
      return { email: "fuzz@example.com" };
    case "marea.import_image":
      // A private address: the SSRF guard refuses it before any connection, whatever is spliced into it.
      return { url: "https://10.0.0.1/fuzz.jpg" };
    default:
      return {};
  }
}

// Strings of any UTF-16 code units: NUL, lone surrogates and control characters included.
const anyString = fc.string({ unit: "binary", maxLength: 40 });
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    anyString,
    fc.integer(),
    fc.double(),
    fc.constantFrom(0, -1, 1e308, 2 ** 53, Number.MAX_SAFE_INTEGER * 10),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(anyString, tie("value"), { maxKeys: 4 }),
  ),
})).value;

const SPECIAL = [
  "\u0000",
  "\ud800",
  "\udfff",
  "\u001f",
  "%00",
  "%ZZ",
  "\u202e",
  "😀",
  "x".repeat(5000),
  "<script>",
];

/** Every path to a leaf of a JSON value. */
function leafPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((item, index) => leafPaths(item, [...path, index]));
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([key, item]) => leafPaths(item, [...path, key]));
  return [path];
}

/** A valid argument object with one leaf, anywhere, given hostile text or any JSON value. */
function injected(base: Record<string, unknown>) {
  const paths = leafPaths(base).filter((path) => path.length > 0);
  return fc
    .tuple(fc.nat(), fc.constantFrom(...SPECIAL), fc.boolean(), jsonValue, fc.boolean())
    .map(([index, special, isText, value, atEnd]) => {
      const copy = structuredClone(base) as Record<string, unknown>;
      const path = paths[index % Math.max(1, paths.length)];
      if (!path) return copy;
      let parent: Record<string | number, unknown> = copy;
      for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
      const last = path.at(-1) as string | number;
      const current = String(parent[last]);
      parent[last] = isText ? (atEnd ? `${current}${special}` : `${special}${current}`) : value;
      return copy;
    });
}

/** A valid argument object with one field replaced, removed or added, deep or shallow. */
function mutated(base: Record<string, unknown>) {
  return fc
    .tuple(jsonValue, fc.nat(), anyString, fc.constantFrom("replace", "remove", "add", "nest"))
    .map(([value, index, key, how]) => {
      const copy = structuredClone(base) as Record<string, unknown>;
      const keys = Object.keys(copy);
      const target = keys[index % Math.max(1, keys.length)];
      if (how === "remove" && target) delete copy[target];
      else if (how === "add") copy[key] = value;
      else if (how === "nest" && target && typeof copy[target] === "object" && copy[target] !== null)
        (copy[target] as Record<string, unknown>)[key] = value;
      else if (target) copy[target] = value;
      return copy;
    });
}

const toolCall = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(...TOOLS.map((t) => t.name)).chain((name) =>
      fc.record({
        name: fc.constant(name),
        arguments: fc.oneof(
          { weight: 3, arbitrary: injected(validArgs(name)) },
          { weight: 2, arbitrary: mutated(validArgs(name)) },
          { weight: 1, arbitrary: jsonValue },
        ),
      }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({ name: anyString, arguments: fc.dictionary(anyString, jsonValue, { maxKeys: 3 }) }),
  },
);

async function callRaw(bearer: string, params: { name: unknown; arguments: unknown }) {
  const res = await handleMcpRequest(
    new Request("http://localhost:3000/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${bearer}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }),
    }),
  );
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as RpcBody };
}

describe("fuzzed tool arguments (fast-check, seeded)", () => {
  it(`${RUNS} calls: no 5xx; refusals are catalogue errors (4xx) or JSON-RPC invalid params`, {
    timeout: 240_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(toolCall, fc.boolean(), async (params, asDeveloper) => {
        const { status, body } = await callRaw(asDeveloper ? developerKey : merchant.userKey, params);
        expect(status).toBeLessThan(500);
        expect(status).toBe(200);
        if (body.error) {
          expect(body.error.code).toBe(-32602);
          return;
        }
        const result = body.result as { isError?: boolean; content: Array<{ text: string }> };
        if (!result.isError) return;
        const error = JSON.parse(result.content[0]?.text ?? "{}") as { code: string; requestId: string };
        expect(Object.keys(ERROR_CATALOGUE)).toContain(error.code);
        expect(ERROR_CATALOGUE[error.code as ErrorCode].status, error.code).toBeLessThan(500);
        expect(error.requestId).toMatch(/^req_/);
      }),
      { seed: 20261123, numRuns: RUNS },
    );
  });
});
