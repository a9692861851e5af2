import { afterEach, describe, expect, it } from "vitest";
import { safeNextPath } from "@/server/sessions/next-path";
import { setTestEnv } from "@/server/webhooks/testing";
import { isSameOrigin } from "./origin";

function request(method: string, headers: Record<string, string>, url = "http://127.0.0.1:4000/signout") {
  return new Request(url, { method, headers });
}

describe("isSameOrigin", () => {
  afterEach(() => setTestEnv({ APP_URL: undefined }));

  it("accepts an Origin equal to APP_URL's origin or to the request's own origin", () => {
    setTestEnv({ APP_URL: "https://marea.example/app" });
    expect(isSameOrigin(request("POST", { origin: "https://marea.example" }))).toBe(true);
    expect(isSameOrigin(request("POST", { origin: "http://127.0.0.1:4000" }))).toBe(true);
  });

  it("refuses a foreign, a look-alike, a differently-schemed or an opaque Origin", () => {
    setTestEnv({ APP_URL: "https://marea.example" });
    for (const origin of [
      "https://evil.example",
      "https://marea.example.evil.example",
      "http://marea.example",
      "https://marea.example:8443",
      "null",
    ])
      expect(isSameOrigin(request("POST", { origin })), origin).toBe(false);
  });

  it("without Origin, a POST passes only with Sec-Fetch-Site: same-origin", () => {
    expect(isSameOrigin(request("POST", { "sec-fetch-site": "same-origin" }))).toBe(true);
    expect(isSameOrigin(request("POST", { "sec-fetch-site": "same-site" }))).toBe(false);
    expect(isSameOrigin(request("POST", { "sec-fetch-site": "cross-site" }))).toBe(false);
    expect(isSameOrigin(request("POST", { "sec-fetch-site": "none" }))).toBe(false);
    expect(isSameOrigin(request("POST", {}))).toBe(false);
    expect(isSameOrigin(request("DELETE", {}))).toBe(false);
  });

  it("a GET without either header passes (navigations carry no Origin); a cross-site one does not", () => {
    expect(isSameOrigin(request("GET", {}))).toBe(true);
    expect(isSameOrigin(request("GET", { "sec-fetch-site": "cross-site" }))).toBe(false);
    expect(isSameOrigin(request("GET", { origin: "https://evil.example" }))).toBe(false);
  });
});

describe("safeNextPath", () => {
  it("keeps same-site paths with their query and fragment", () => {
    expect(safeNextPath("/dashboard")).toBe("/dashboard");
    expect(safeNextPath("/dashboard/storefronts?x=1#top")).toBe("/dashboard/storefronts?x=1#top");
    expect(safeNextPath("/dashboard/../dashboard/keys")).toBe("/dashboard/keys");
  });

  it("refuses anything that could leave the site or loop back to sign-in", () => {
    for (const value of [
      "https://evil.example",
      "//evil.example",
      "/\\evil.example",
      "\\\\evil.example",
      "/\tevil",
      "javascript:alert(1)",
      "dashboard",
      "",
      null,
      undefined,
      "/signin",
      "/signin/terms",
      "/signout",
      `/${"a".repeat(2001)}`,
    ])
      expect(safeNextPath(value), String(value)).toBeNull();
  });
});
