import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as checkout } from "@/app/s/[slug]/orders/route";
import { createDeveloper } from "@/server/accounts/testing";
import { env } from "@/server/env";
import { ErrorEnvelope } from "@/server/errors";
import { handleAuthorize, handleRegister, handleRevoke, handleToken } from "@/server/oauth/http";
import { registerTestClient, TEST_REDIRECT_URI } from "@/server/oauth/testing";
import { mcpUrl } from "@/server/oauth/urls";
import { createStorefrontWithProduct } from "@/server/orders/testing";
import { publishStorefront } from "@/server/storefronts/publish";
import { serviceContextFor } from "@/server/testing/context";
import { verifiedMerchantOf } from "@/server/testing/hostile-run";
import { handleMcpRequest } from "@/server/wiring/mcp";
import { BODY_LIMITS } from "./body";

// docs/security.md, "Request bodies and door limits", and docs/api.md, "Hostile and malformed input": generated
// hostile requests at the doors outside /v1 (server/http/hostile.test.ts covers /v1): the public checkout, the
// OAuth endpoints and /mcp. Whatever is sent (NUL and lone surrogates, bad JSON, bad content types, batches,
// bodies over the cap declared, chunked or endless), no answer is a 5xx and every error has its door's shape.
// Seeded; HOSTILE_DOOR_RUNS and HOSTILE_DOOR_SEED change the run.

const RUNS = Number(process.env.HOSTILE_DOOR_RUNS ?? 400);
const SEED = Number(process.env.HOSTILE_DOOR_SEED ?? 2411);
const APP = new URL(env().APP_URL).origin;

// ---------------------------------------------------------------------------------------------------------------
// Values and bodies

const HOSTILE_STRINGS = [
  "",
  " ",
  "a\u0000b",
  "\u0000",
  "a\ud800b",
  "\udc00",
  "%ZZ",
  "%00",
  "%E0%A4%A",
  "\u202eevil",
  "x".repeat(5000),
  "<script>alert(1)</script>",
  "' or 1=1 --",
  "Ω≈ç√∫ 🍕",
  "\\u0000",
];

const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(0, -1, 1.5, 1e308, 2 ** 53 + 2, null, true, [], {}, [null], { "": 1 }),
  fc.jsonValue({ maxDepth: 2 }),
);

const RAW_BODIES = [
  "",
  "{",
  "null",
  "[]",
  "[{}]",
  '"text"',
  "1",
  '{"a":1,}',
  "\ufeff{}",
  '{"x":"\\ud800"}',
  '{"x":"a\\u0000b"}',
  '{"__proto__":{"polluted":true}}',
  `${"[".repeat(5000)}${"]".repeat(5000)}`,
  "a=1&b=%ZZ&c=%00",
];

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/octet-stream",
  "",
];

/** What a request carries as its body. */
type Body =
  | { kind: "none" }
  | { kind: "text"; text: string; contentLength?: string }
  | { kind: "chunked"; bytes: number }
  | { kind: "endless" };

type Sent = { method: string; path: string; headers: Record<string, string>; body: Body; note: string };

/** Bodies over a door's cap: declared, chunked and finite, chunked and never ending; and a lying length. */
function oversized(cap: number): fc.Arbitrary<{ body: Body; note: string }> {
  return fc.constantFrom<{ body: Body; note: string }>(
    {
      body: { kind: "text", text: "a".repeat(cap + 1), contentLength: String(cap + 1) },
      note: "declared over cap",
    },
    { body: { kind: "chunked", bytes: cap + 1 }, note: "chunked over cap" },
    { body: { kind: "endless" }, note: "endless" },
    { body: { kind: "text", text: "{}", contentLength: String(cap * 10) }, note: "lying content-length" },
  );
}

function streamOf(body: Extract<Body, { kind: "chunked" | "endless" }>): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(16 * 1024).fill(0x61);
  let left = body.kind === "chunked" ? body.bytes : Number.POSITIVE_INFINITY;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setImmediate(resolve));
      if (left <= 0) {
        controller.close();
        return;
      }
      const part = chunk.slice(0, Math.min(chunk.byteLength, left));
      left -= part.byteLength;
      controller.enqueue(part);
    },
  });
}

function requestOf(sent: Sent): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(sent.headers)) headers.set(name, value);
  const hasBody = sent.method !== "GET" && sent.method !== "HEAD" && sent.body.kind !== "none";
  let body: BodyInit | undefined;
  if (hasBody && sent.body.kind === "text") {
    body = sent.body.text;
    if (sent.body.contentLength) headers.set("content-length", sent.body.contentLength);
  } else if (hasBody && (sent.body.kind === "chunked" || sent.body.kind === "endless")) {
    body = streamOf(sent.body);
  }
  return new Request(`${APP}${sent.path}`, {
    method: sent.method,
    headers,
    body,
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
}

/** A JSON value with the value at one place replaced by a hostile one, or a hostile key added there. */
function mutatedJson(base: unknown): fc.Arbitrary<{ text: string; note: string }> {
  return fc
    .record({ at: fc.nat(), value: hostileValue, asKey: fc.boolean(), key: hostileString })
    .map(({ at, value, asKey, key }) => {
      const copy = structuredClone(base) as unknown;
      const places: Array<{ parent: Record<string | number, unknown> | null; key: string | number | null }> =
        [{ parent: null, key: null }];
      const walk = (node: unknown) => {
        if (node && typeof node === "object") {
          for (const [k, child] of Object.entries(node)) {
            places.push({
              parent: node as Record<string, unknown>,
              key: Array.isArray(node) ? Number(k) : k,
            });
            walk(child);
          }
        }
      };
      walk(copy);
      const place = places[at % places.length] ?? { parent: null, key: null };
      if (place.parent === null) return { text: JSON.stringify(value), note: "body replaced" };
      if (asKey && !Array.isArray(place.parent)) {
        place.parent[key] = value;
        return { text: JSON.stringify(copy), note: `key ${JSON.stringify(key).slice(0, 20)} added` };
      }
      place.parent[place.key as string | number] = value;
      return {
        text: JSON.stringify(copy),
        note: `${String(place.key)} = ${JSON.stringify(value)?.slice(0, 30)}`,
      };
    });
}

/** A form with one parameter replaced, removed, doubled or added, hostile. */
function mutatedForm(base: Record<string, string>): fc.Arbitrary<{ params: URLSearchParams; note: string }> {
  const names = Object.keys(base);
  return fc
    .record({
      at: fc.nat(),
      how: fc.constantFrom("keep", "replace", "remove", "double", "add"),
      value: hostileString,
      name: fc.oneof(fc.constantFrom(...names), hostileString),
    })
    .map(({ at, how, value, name }) => {
      const params = new URLSearchParams(base);
      const target = names[at % Math.max(1, names.length)] ?? "x";
      if (how === "replace") params.set(target, value);
      else if (how === "remove") params.delete(target);
      else if (how === "double") params.append(target, value);
      else if (how === "add") params.append(name, value);
      return { params, note: how === "keep" ? "" : `${how} ${target}` };
    });
}

function randomIp(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.ipV4() },
    { weight: 1, arbitrary: fc.ipV6() },
    { weight: 1, arbitrary: fc.constantFrom("", "x", "1.2.3.4, garbage", "::ffff:10.0.0.1", "%00") },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// What an answer must look like, door by door

type Answer = { status: number; headers: Headers; text: string };

/** The catalogue's envelope (docs/api.md, "Errors"), with its request id also in X-Request-Id. */
function envelopeProblem(answer: Answer): string | null {
  try {
    const { error } = ErrorEnvelope.parse(JSON.parse(answer.text));
    if (answer.headers.get("x-request-id") !== error.requestId) return "X-Request-Id differs from requestId";
    if (error.code === "internal_error" || error.code === "service_unavailable")
      return `5xx code ${error.code}`;
    return null;
  } catch (error) {
    return `not the error envelope: ${String(error).slice(0, 200)}`;
  }
}

/** RFC 6749 section 5.2's error object (and RFC 7591's): `error` and `error_description`, nothing else. */
function oauthErrorProblem(answer: Answer): string | null {
  try {
    const body = JSON.parse(answer.text) as Record<string, unknown>;
    if (typeof body.error !== "string") return "no `error`";
    if (typeof body.error_description !== "string") return "no `error_description`";
    if (Object.keys(body).some((key) => key !== "error" && key !== "error_description"))
      return "extra fields";
    if (body.error === "server_error") return "server_error";
    if (answer.headers.get("cache-control") !== "no-store") return "not no-store";
    return null;
  } catch {
    return "not JSON";
  }
}

function checkoutProblem(answer: Answer): string | null {
  if (answer.status === 201) {
    const body = JSON.parse(answer.text) as { order?: { id?: string }; statusUrl?: string };
    return /^ord_/.test(body.order?.id ?? "") && body.statusUrl ? null : "201 without the order";
  }
  return envelopeProblem(answer);
}

function oauthProblem(path: string, answer: Answer): string | null {
  if (path.startsWith("/oauth/authorize")) {
    if (answer.status === 413) return oauthErrorProblem(answer);
    if (answer.status !== 302) return `authorize answered ${answer.status}`;
    const location = answer.headers.get("location") ?? "";
    let url: URL;
    try {
      url = new URL(location);
    } catch {
      return `a Location that is not a URL: ${location.slice(0, 80)}`;
    }
    if (url.pathname === "/oauth/error" && url.searchParams.get("error") === "server_error")
      return "server_error page";
    return null;
  }
  if (answer.status === 200 && path === "/oauth/revoke") return null;
  if (answer.status === 200) return /"access_token"/.test(answer.text) ? null : "200 without a token";
  if (answer.status === 201) return /"client_id"/.test(answer.text) ? null : "201 without a client_id";
  return oauthErrorProblem(answer);
}

/** MCP: JSON-RPC answers for messages; the catalogue's envelope for what HTTP refuses (docs/mcp.md, "Errors"). */
function mcpProblem(answer: Answer): string | null {
  if (answer.status === 202) return null;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    return "not JSON";
  }
  if (Array.isArray(body)) return "a batch answer";
  if ("jsonrpc" in body) {
    const error = body.error as { code?: unknown; message?: unknown } | undefined;
    if (body.jsonrpc !== "2.0") return "jsonrpc is not 2.0";
    if (!("result" in body) && !error) return "neither result nor error";
    if (error && (!Number.isInteger(error.code) || typeof error.message !== "string"))
      return "a JSON-RPC error without code and message";
    if (error && error.code === -32603) return "JSON-RPC internal error";
    return null;
  }
  if (answer.status < 400) return `${answer.status} without JSON-RPC`;
  return envelopeProblem(answer);
}

// ---------------------------------------------------------------------------------------------------------------
// The doors and their generators

let slug: string;
let productId: string;
let userKey: string;
let clientId: string;

beforeAll(async () => {
  const developer = await createDeveloper();
  const merchant = await verifiedMerchantOf(developer.key);
  userKey = merchant.userKey;
  const made = await createStorefrontWithProduct(merchant.userKey, { stock: null }, { pickup: true });
  productId = made.productId;
  const published = await publishStorefront(await serviceContextFor(merchant.userKey), {
    storefrontId: made.storefrontId,
  });
  slug = published.slug ?? "";
  clientId = (await registerTestClient({ client_name: "Hostile" })).client_id;
});

async function send(sent: Sent): Promise<Answer> {
  const request = requestOf(sent);
  const path = new URL(request.url).pathname;
  let response: Response;
  if (path.startsWith("/s/")) {
    // Next hands the route its decoded segment; one that does not decode reaches it as sent.
    const segment = path.split("/")[2] ?? "";
    let slugOf = segment;
    try {
      slugOf = decodeURIComponent(segment);
    } catch {}
    response = await checkout(request, { params: Promise.resolve({ slug: slugOf }) });
  } else if (path === "/oauth/token") response = await handleToken(request);
  else if (path === "/oauth/revoke") response = await handleRevoke(request);
  else if (path === "/oauth/register") response = await handleRegister(request);
  else if (path === "/oauth/authorize") response = await handleAuthorize(request);
  else response = await handleMcpRequest(request);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function validOrder() {
  return {
    items: [{ productId, amount: 1 }],
    customer: { name: "Ana", phone: "+5215512345678" },
    paymentMethod: { name: "Efectivo" },
  };
}

const checkoutRequests: fc.Arbitrary<Sent> = fc
  .record({
    slug: fc.oneof(
      { weight: 6, arbitrary: fc.constant<string | null>(null) },
      { weight: 2, arbitrary: hostileString },
      { weight: 1, arbitrary: fc.constantFrom("%ZZ", "%00", "..", "x".repeat(300)) },
    ),
    origin: fc.oneof(
      { weight: 8, arbitrary: fc.constant<string | undefined>(APP) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<string | undefined>("https://evil.example", "null", undefined),
      },
    ),
    type: fc.oneof(
      { weight: 8, arbitrary: fc.constant("application/json") },
      fc.constantFrom(...CONTENT_TYPES),
    ),
    language: fc.constantFrom("es", "en", "pt", "fr", ";;;,q=x", ""),
    ip: randomIp(),
    shape: fc.oneof(
      { weight: 3, arbitrary: fc.constant<"valid" | "mutated" | "raw" | "over">("valid") },
      { weight: 5, arbitrary: fc.constant<"valid" | "mutated" | "raw" | "over">("mutated") },
      fc.constantFrom<"valid" | "mutated" | "raw" | "over">("raw", "over"),
    ),
    // Built when the run starts: the product id exists only then.
    mutated: fc.constant(null).chain(() => mutatedJson({ ...validOrder(), website: "" })),
    raw: fc.constantFrom(...RAW_BODIES),
    over: oversized(BODY_LIMITS.checkout),
  })
  .map((r) => {
    const headers: Record<string, string> = { "accept-language": r.language, "x-forwarded-for": r.ip };
    if (r.origin) headers.origin = r.origin;
    if (r.type) headers["content-type"] = r.type;
    const path = `/s/${segmentOf(r.slug ?? slug)}/orders`;
    const body: Body =
      r.shape === "over"
        ? r.over.body
        : {
            kind: "text",
            text:
              r.shape === "valid" ? JSON.stringify(validOrder()) : r.shape === "raw" ? r.raw : r.mutated.text,
          };
    const note = r.shape === "over" ? r.over.note : r.shape === "mutated" ? r.mutated.note : r.shape;
    return { method: "POST", path, headers, body, note: `checkout ${(r.slug ?? "").slice(0, 20)} ${note}` };
  });

/** A path segment for `value`; a lone surrogate (which no URL can carry) as the UTF-8 of one. */
function segmentOf(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return "%ED%A0%80";
  }
}

function basicHeader(): fc.Arbitrary<string | undefined> {
  const basic = (text: string) => `Basic ${Buffer.from(text).toString("base64")}`;
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constant("CLIENT").map(() => basic(`${clientId}:`)),
        hostileString.map((s) => basic(`${s}:`)),
        fc.constantFrom("Basic !!!", "Basic", "Bearer x", basic("%ZZ:"), basic("a%00b:")),
      ),
    },
  );
}

const oauthFormRequests: fc.Arbitrary<Sent> = fc
  .record({
    path: fc.constantFrom("/oauth/token", "/oauth/revoke", "/oauth/authorize"),
    grant: fc.constantFrom("authorization_code", "refresh_token", "client_credentials", "x"),
    client: fc.oneof(
      { weight: 4, arbitrary: fc.constant("CLIENT") },
      fc.constantFrom("oac_nobody", "https://10.0.0.1/client.json", "http://127.0.0.1/c"),
      hostileString,
    ),
    mutation: fc.nat(),
    type: fc.oneof(
      { weight: 8, arbitrary: fc.constant("application/x-www-form-urlencoded") },
      fc.constantFrom(...CONTENT_TYPES),
    ),
    authorization: basicHeader(),
    ip: randomIp(),
    shape: fc.oneof(
      { weight: 8, arbitrary: fc.constant<"form" | "raw" | "over">("form") },
      fc.constantFrom<"form" | "raw" | "over">("raw", "over"),
    ),
    raw: fc.constantFrom(...RAW_BODIES),
    over: oversized(BODY_LIMITS.oauth),
    asGet: fc.boolean(),
  })
  .chain((r) => {
    const client = r.client === "CLIENT" ? clientId : r.client;
    const base: Record<string, string> =
      r.path === "/oauth/token"
        ? {
            grant_type: r.grant,
            client_id: client,
            code: "mcp_ac_unknown",
            code_verifier: "v".repeat(43),
            redirect_uri: TEST_REDIRECT_URI,
            refresh_token: "mcp_rt_unknown",
            resource: mcpUrl(),
          }
        : r.path === "/oauth/revoke"
          ? { token: "mcp_at_unknown", token_type_hint: "access_token", client_id: client }
          : {
              response_type: "code",
              client_id: client,
              redirect_uri: TEST_REDIRECT_URI,
              scope: "marea.read",
              state: "s",
              code_challenge: "c".repeat(43),
              code_challenge_method: "S256",
              resource: mcpUrl(),
            };
    return mutatedForm(base).map(({ params, note }) => {
      const headers: Record<string, string> = { "x-forwarded-for": r.ip };
      if (r.type) headers["content-type"] = r.type;
      if (r.authorization) headers.authorization = r.authorization;
      if (r.path === "/oauth/authorize" && r.asGet) {
        return {
          method: "GET",
          path: `${r.path}?${params}`,
          headers: {},
          body: { kind: "none" },
          note,
        } as Sent;
      }
      const body: Body =
        r.shape === "over"
          ? r.over.body
          : { kind: "text", text: r.shape === "raw" ? r.raw : params.toString() };
      return { method: "POST", path: r.path, headers, body, note: `${r.path} ${r.shape} ${note}` } as Sent;
    });
  });

const registerRequests: fc.Arbitrary<Sent> = fc
  .record({
    body: fc.oneof(
      {
        weight: 6,
        arbitrary: mutatedJson({ client_name: "Hostile app", redirect_uris: [TEST_REDIRECT_URI] }),
      },
      { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES).map((text) => ({ text, note: "raw" })) },
    ),
    over: fc.oneof(
      { weight: 6, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: oversized(BODY_LIMITS.oauth) },
    ),
    type: fc.oneof(
      { weight: 8, arbitrary: fc.constant("application/json") },
      fc.constantFrom(...CONTENT_TYPES),
    ),
    ip: randomIp(),
  })
  .map(({ body, over, type, ip }) => {
    const headers: Record<string, string> = { "x-forwarded-for": ip };
    if (type) headers["content-type"] = type;
    const payload: Body = over ? over.body : { kind: "text", text: body.text };
    return {
      method: "POST",
      path: "/oauth/register",
      headers,
      body: payload,
      note: `register ${over?.note ?? body.note}`,
    };
  });

const MCP_VERSIONS = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01", "garbage"];

function toolCall(id: number) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "marea.list_storefronts", arguments: { limit: 5 } },
  };
}

const mcpMessages: unknown[] = [
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
  toolCall(2),
  {
    jsonrpc: "2.0",
    id: 3,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "h", version: "1" } },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 4, method: "resources/read", params: { uri: "marea://storefronts/%ZZ" } },
  { jsonrpc: "2.0", id: 5, method: "resources/list", params: {} },
  { jsonrpc: "2.0", id: 6, method: "ping" },
  { jsonrpc: "2.0", id: 7, method: "no/such/method" },
  { jsonrpc: "2.0", id: "s", method: "tools/call", params: { name: "marea.get_storefront", arguments: {} } },
];

const mcpRequests: fc.Arbitrary<Sent> = fc
  .record({
    message: fc
      .constantFrom(...mcpMessages)
      .chain((message) =>
        fc.oneof(
          { weight: 2, arbitrary: fc.constant({ text: JSON.stringify(message), note: "message" }) },
          { weight: 3, arbitrary: mutatedJson(message) },
        ),
      ),
    shape: fc.oneof(
      { weight: 6, arbitrary: fc.constant<"single" | "batch" | "raw" | "over">("single") },
      { weight: 2, arbitrary: fc.constant<"single" | "batch" | "raw" | "over">("batch") },
      fc.constantFrom<"single" | "batch" | "raw" | "over">("raw", "over"),
    ),
    batchSize: fc.nat({ max: 3 }),
    raw: fc.constantFrom(...RAW_BODIES),
    over: oversized(BODY_LIMITS.api),
    auth: fc.oneof(
      { weight: 8, arbitrary: fc.constant("KEY") },
      fc.constantFrom("", "Bearer garbage", "Basic Zm9vOmJhcg==", "Bearer mcp_at_unknown"),
    ),
    method: fc.oneof({ weight: 12, arbitrary: fc.constant("POST") }, fc.constantFrom("GET", "DELETE", "PUT")),
    type: fc.oneof(
      { weight: 8, arbitrary: fc.constant("application/json") },
      fc.constantFrom(...CONTENT_TYPES),
    ),
    accept: fc.oneof(
      { weight: 8, arbitrary: fc.constant("application/json, text/event-stream") },
      fc.constantFrom("application/json", "text/html", ""),
    ),
    version: fc.oneof(
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 3, arbitrary: fc.constantFrom(...MCP_VERSIONS) },
    ),
    origin: fc.oneof(
      { weight: 8, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom(APP, "https://evil.example", "null") },
    ),
  })
  .map((r) => {
    const headers: Record<string, string> = { host: new URL(APP).host };
    if (r.auth === "KEY") headers.authorization = `Bearer ${userKey}`;
    else if (r.auth) headers.authorization = r.auth;
    if (r.type) headers["content-type"] = r.type;
    if (r.accept) headers.accept = r.accept;
    if (r.version) headers["mcp-protocol-version"] = r.version;
    if (r.origin) headers.origin = r.origin;
    let body: Body;
    if (r.shape === "over") body = r.over.body;
    else if (r.shape === "raw") body = { kind: "text", text: r.raw };
    else if (r.shape === "batch") {
      const batch = Array.from({ length: r.batchSize }, (_, i) => toolCall(100 + i));
      body = { kind: "text", text: JSON.stringify(batch) };
    } else body = { kind: "text", text: r.message.text };
    const note = `mcp ${r.method} ${r.shape} ${r.shape === "single" ? r.message.note : ""}`;
    return { method: r.method, path: "/mcp", headers, body, note } as Sent;
  });

// ---------------------------------------------------------------------------------------------------------------

describe("hostile input at the doors outside /v1 (fast-check, seeded)", () => {
  const doors: Array<[string, fc.Arbitrary<Sent>, (sent: Sent, answer: Answer) => string | null]> = [
    ["the public checkout POST /s/{slug}/orders", checkoutRequests, (_, answer) => checkoutProblem(answer)],
    [
      "/oauth/token, /oauth/revoke, /oauth/authorize (GET and POST)",
      oauthFormRequests,
      (sent, answer) => oauthProblem(sent.path, answer),
    ],
    ["/oauth/register", registerRequests, (_, answer) => oauthProblem("/oauth/register", answer)],
    [
      "/mcp (batches, bad JSON, bad content types, bodies over the cap)",
      mcpRequests,
      (_, answer) => mcpProblem(answer),
    ],
  ];

  for (const [name, requests, problemOf] of doors) {
    it(`${name}: ${RUNS} requests, no 5xx, every error in the door's shape`, {
      timeout: 120_000,
    }, async () => {
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(requests, async (sent) => {
          const answer = await send(sent);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          const context = `${sent.method} ${sent.path.slice(0, 80)} (${sent.note}) -> ${answer.status} ${answer.text.slice(0, 300)}`;
          expect(answer.status, context).toBeLessThan(500);
          expect(problemOf(sent, answer), context).toBeNull();
        }),
        { seed: SEED, numRuns: RUNS },
      );
      // The run reached past the first checks: something was accepted, something refused.
      expect(
        [...statuses.keys()].some((status) => status < 400),
        JSON.stringify([...statuses]),
      ).toBe(true);
      expect(
        [...statuses.keys()].some((status) => status >= 400),
        JSON.stringify([...statuses]),
      ).toBe(true);
    });
  }
});
