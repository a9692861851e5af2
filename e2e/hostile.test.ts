import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorEnvelope } from "@/server/errors";
import { type NextServer, runCli, type StartMode, startNextServer } from "./fixtures";

// Both starts: the production one serves /v1 on node:http, `next start` through the App Router's catch-all.
describe.each<StartMode>(["production", "next"])("start: %s", (mode) => {
  let server: NextServer;
  let developerKey: string;

  beforeAll(async () => {
    server = await startNextServer({}, mode);
    const created = await runCli(server, ["dev-key", "create", "--email", `hostile-${mode}@example.com`]);
    developerKey = created.json.key as string;
  });

  afterAll(async () => {
    await server?.stop();
  });

  async function get(path: string, key?: string) {
    const res = await fetch(`${server.baseUrl}${path}`, {
      redirect: "manual",
      headers: key ? { authorization: `Bearer ${key}` } : {},
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text };
  }

  function expectEnvelope(
    res: { status: number; headers: Headers; text: string },
    status: number,
    code: string,
  ) {
    expect(res.status, res.text).toBe(status);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const { error } = ErrorEnvelope.parse(JSON.parse(res.text));
    expect(error.code).toBe(code);
    expect(res.headers.get("x-request-id")).toBe(error.requestId);
    return error;
  }

  // docs/api.md, "Hostile and malformed input", through each start: what Next itself does before the pipeline
  // (decoding the path for its route matcher, redirecting a trailing slash) must not answer for /v1.
  describe("hostile paths through the built app", () => {
    it("malformed percent-encoding reaches the pipeline: the envelope with a request id, not a bare 500", async () => {
      for (const segment of ["%ZZ", "%", "%C0%AE", "%E0%A4%A", "%ED%A0%80"]) {
        expectEnvelope(await get(`/v1/storefronts/${segment}`), 401, "missing_authorization");
        const error = expectEnvelope(
          await get(`/v1/storefronts/${segment}`, developerKey),
          404,
          "storefront_not_found",
        );
        expect(error.param).toBe("storefrontId");
      }
      expectEnvelope(await get("/v1/stor%ZZefronts/x"), 404, "route_not_found");
      expectEnvelope(await get("/v1/storefronts/%00", developerKey), 404, "storefront_not_found");
    });

    it("a trailing slash under /v1 is 404 route_not_found, while pages keep their redirect", async () => {
      for (const path of ["/v1/storefronts/", "/v1/me/", "/v1/"]) {
        const res = await get(path, developerKey);
        expectEnvelope(res, 404, "route_not_found");
        expect(res.headers.get("location")).toBeNull();
      }
      const page = await get("/dev/mail/");
      expect(page.status).toBe(308);
      expect(page.headers.get("location")).toMatch(/\/dev\/mail$/);
    });

    it("the rewrite keeps the request as sent: its query, its body and its method", async () => {
      expect((await get("/v1/me", developerKey)).status).toBe(200);
      const unknown = expectEnvelope(await get("/v1/me?foo=bar", developerKey), 400, "invalid_request");
      expect(unknown.param).toBe("foo");
      const created = await fetch(`${server.baseUrl}/v1/users`, {
        method: "POST",
        headers: { authorization: `Bearer ${developerKey}`, "content-type": "application/json" },
        body: JSON.stringify({ email: "through-rewrite@example.com", name: "a\u0000b" }),
      });
      const error = expectEnvelope(
        { status: created.status, headers: created.headers, text: await created.text() },
        400,
        "invalid_request",
      );
      expect(error.param).toBe("name");
    });
  });
});
