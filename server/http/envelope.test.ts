import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createDeveloper } from "@/server/accounts/testing";
import { closeDb, dbReady } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { ErrorEnvelope } from "@/server/errors";
import { checkHealth } from "@/server/health/service";
import { call } from "@/server/testing/api";
import { MAX_BODY_BYTES, newRequestState, runPipeline } from "./pipeline";
import { defineRoute } from "./route";

function expectEnvelope(
  res: { status: number; body: unknown; headers: Headers },
  status: number,
  code: string,
) {
  expect(res.status).toBe(status);
  const { error } = ErrorEnvelope.parse(res.body);
  expect(error.code).toBe(code);
  expect(res.headers.get("x-request-id")).toBe(error.requestId);
  expect(error.doc).toBe(`http://localhost:3000/docs/errors#${code}`);
  return error;
}

// docs/api.md, "Errors": every non-2xx uses the envelope with every field; X-Request-Id equals requestId.
describe("error envelope on every error path", () => {
  it("404 route_not_found for an unknown /v1 path", async () => {
    const error = expectEnvelope(await call("GET", "/v1/nope"), 404, "route_not_found");
    expect(error.type).toBe("not_found");
  });

  it("405 method_not_allowed with Allow for a known path", async () => {
    const res = await call("PUT", "/v1/me");
    expectEnvelope(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("GET, DELETE");
  });

  it("400 invalid_json for a body that is not JSON", async () => {
    const dev = await createDeveloper();
    expectEnvelope(
      await call("POST", "/v1/users", { key: dev.key, rawBody: "{not json" }),
      400,
      "invalid_json",
    );
  });

  it("400 invalid_request names the offending field in param", async () => {
    const dev = await createDeveloper();
    const error = expectEnvelope(
      await call("POST", "/v1/users", { key: dev.key, body: { email: "x@example.com", language: "fr" } }),
      400,
      "invalid_request",
    );
    expect(error.param).toBe("language");
    expect(error.type).toBe("invalid_request");
  });

  it("400 invalid_request for an unknown field names the field", async () => {
    const dev = await createDeveloper();
    const error = expectEnvelope(
      await call("POST", "/v1/users", { key: dev.key, body: { email: "x@example.com", admin: true } }),
      400,
      "invalid_request",
    );
    expect(error.param).toBe("admin");
  });

  it("413 payload_too_large for a body over 1 MiB, before parsing", async () => {
    const dev = await createDeveloper();
    const rawBody = `{"email":"${"a".repeat(MAX_BODY_BYTES)}"}`;
    expectEnvelope(await call("POST", "/v1/users", { key: dev.key, rawBody }), 413, "payload_too_large");
  });

  it("409 email_taken has type conflict and param email", async () => {
    const dev = await createDeveloper();
    await call("POST", "/v1/users", { key: dev.key, body: { email: "twice@example.com" } });
    const error = expectEnvelope(
      await call("POST", "/v1/users", { key: dev.key, body: { email: "TWICE@example.com" } }),
      409,
      "email_taken",
    );
    expect(error).toMatchObject({
      type: "conflict",
      param: "email",
      upgrade: null,
      retryAfterMs: null,
      nextActions: [],
    });
  });

  it("404 user_not_found when issuing a key for an account another developer bootstrapped", async () => {
    const a = await createDeveloper();
    const b = await createDeveloper();
    const made = await call<{ user: { id: string } }>("POST", "/v1/users", {
      key: a.key,
      body: { email: "own@example.com" },
    });
    expectEnvelope(
      await call("POST", `/v1/users/${made.body.user.id}/keys`, { key: b.key, body: {} }),
      404,
      "user_not_found",
    );
  });

  it("a body cut off by the client is 400 invalid_request, not a 503 for a lost database", async () => {
    const route = defineRoute({
      operationId: "takesBody",
      method: "POST",
      path: "/v1/takes-body",
      summary: "test",
      tags: [],
      auth: "none",
      body: z.object({}).passthrough(),
      responses: {},
      handler: async () => ({ status: 200, body: {} }),
    });
    // What node:http hands over when the peer hangs up mid-body: a stream that errors with ECONNRESET.
    const cutOff = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name": "Pana'));
        controller.error(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
      },
    });
    const request = new Request("http://127.0.0.1/v1/takes-body", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: cutOff,
      duplex: "half",
    } as RequestInit);
    const response = await runPipeline(route, request, {}, newRequestState(request));
    const error = expectEnvelope(
      { status: response.status, body: await response.json(), headers: response.headers },
      400,
      "invalid_request",
    );
    expect(error.message).toContain("connection closed");
  });

  it("500 internal for an unexpected exception: generic message, no stack, logged with the request id", async () => {
    const route = defineRoute({
      operationId: "explode",
      method: "GET",
      path: "/v1/explode",
      summary: "test",
      tags: [],
      auth: "none",
      responses: {},
      handler: async () => {
        throw new Error("secret internals at /srv/app.ts:12");
      },
    });
    const request = new Request("http://127.0.0.1/v1/explode", { headers: { "accept-language": "pt" } });
    const response = await runPipeline(route, request, {}, newRequestState(request));
    const text = await response.text();
    expect(text).not.toContain("secret internals");
    expect(text).not.toContain("app.ts");
    const error = expectEnvelope(
      { status: response.status, body: JSON.parse(text), headers: response.headers },
      500,
      "internal_error",
    );
    expect(error).toMatchObject({ type: "internal", recoverable: true });
    expect(error.message).toContain("Algo deu errado");
  });
});

// docs/api.md, "Errors": messages in es, en and pt chosen by Accept-Language (default en).
describe("localized messages", () => {
  it("the same error reads differently in es, en and pt; unknown languages fall back to en", async () => {
    const messages: Record<string, string> = {};
    for (const lang of ["es", "en", "pt", "fr", "pt-BR,pt;q=0.9"]) {
      const res = await call("GET", "/v1/me", { headers: { "accept-language": lang } });
      messages[lang] = ErrorEnvelope.parse(res.body).error.message;
    }
    expect(new Set([messages.es, messages.en, messages.pt]).size).toBe(3);
    expect(messages.fr).toBe(messages.en);
    expect(messages["pt-BR,pt;q=0.9"]).toBe(messages.pt);
    expect(messages.es).toContain("clave de API");
  });

  it("validation messages are localized too", async () => {
    const dev = await createDeveloper();
    const en = await call("POST", "/v1/users", { key: dev.key, body: {} });
    const es = await call("POST", "/v1/users", {
      key: dev.key,
      body: {},
      headers: { "accept-language": "es" },
    });
    expect(ErrorEnvelope.parse(en.body).error.param).toBe("email");
    expect(ErrorEnvelope.parse(es.body).error.message).not.toBe(ErrorEnvelope.parse(en.body).error.message);
  });
});

describe("openapi.json", () => {
  it("is served without a key, declares 1.0.0 and documents the operations with the envelope", async () => {
    const res = await call<{
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { operationId: string }>>;
    }>("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.info.version).toBe("1.0.0");
    const operationIds = Object.values(res.body.paths).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    expect(operationIds).toEqual(expect.arrayContaining(["bootstrapUser", "issueUserKey", "getMe"]));
    expect(JSON.stringify(res.body)).toContain("ErrorEnvelope");
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });
});

// docs/operations.md, "Health": /healthz 503 when the database is down; the API answers 503
// service_unavailable, recoverable.
describe("database down", () => {
  it("healthz and /v1 answer 503 while the database is unreachable, and recover when it is back", async () => {
    const db = await dbReady();
    expect((await checkHealth()).status).toBe(200);
    expect(db).toBeDefined();
    const saved = {
      url: process.env.DATABASE_URL,
      direct: process.env.DIRECT_DATABASE_URL,
      pglite: process.env.PGLITE_DIR,
    };
    await closeDb();
    process.env.DATABASE_URL = "postgres://postgres@127.0.0.1:1/unreachable";
    delete process.env.DIRECT_DATABASE_URL;
    resetEnvForTests();
    try {
      expect((await checkHealth()).status).toBe(503);
      const res = await call("GET", "/v1/me", { key: `mk_user_${"B".repeat(43)}` });
      const error = expectEnvelope(res, 503, "service_unavailable");
      expect(error.recoverable).toBe(true);
      expect(res.headers.get("retry-after")).toBe("5");
    } finally {
      await closeDb();
      if (saved.url) process.env.DATABASE_URL = saved.url;
      else delete process.env.DATABASE_URL;
      if (saved.direct) process.env.DIRECT_DATABASE_URL = saved.direct;
      resetEnvForTests();
    }
    expect((await checkHealth()).status).toBe(200);
  });
});
