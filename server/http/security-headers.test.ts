import { NextRequest } from "next/server";
import { afterEach, describe, expect, it } from "vitest";
import { setCurrentAdminChannel } from "@/server/cli/admin-channel";
import { runAdminCommand } from "@/server/cli/admin-endpoint";
import { readCookie, SESSION_COOKIE } from "@/server/kit/cookies";
import { canReadDevMail, isDevMailEnabled } from "@/server/mail/dev-mail";
import { sessionCookie } from "@/server/sessions/cookies";
import { setTestEnv } from "@/server/webhooks/testing";
import { isAllowedHost } from "./hosts";
import { OWN_INLINE_SCRIPT_SOURCES, scriptHashSource, storefrontLangScript } from "./inline-scripts";
import { applyMailDefaults } from "./mail-defaults";
import { inlineScriptHashes } from "./page-script-hashes";
import { markPeerHeaderStamped, PEER_HEADER } from "./peer";
import { baseSecurityHeaders, pagePolicy } from "./security-headers";
import { securityTxt } from "./security-txt";

// docs/security.md. The production start's own behaviour is tested end to end in server/http/edge.test.ts; these
// are the rules it applies, one by one.

const STAMPED = Symbol.for("marea.peerHeaderStamped");

afterEach(() => {
  delete (globalThis as { [STAMPED]?: boolean })[STAMPED];
  setTestEnv({ DEV_MAIL: undefined, SMTP_URL: undefined, NODE_ENV: "test", APP_URL: undefined });
});

describe("M5: headers", () => {
  it("M5: HSTS only when APP_URL is https; nosniff, referrer policy and DENY framing always", () => {
    expect(Object.fromEntries(baseSecurityHeaders({ isHttps: false }))).toEqual({
      "x-content-type-options": "nosniff",
      "referrer-policy": "strict-origin-when-cross-origin",
      "x-frame-options": "DENY",
    });
    expect(baseSecurityHeaders({ isHttps: true }).get("strict-transport-security")).toBe("max-age=31536000");
  });

  it("M5: a page policy allows scripts by nonce (dynamic) or by hash (cached), never 'unsafe-inline'; https upgrades and refuses plain-http images", () => {
    const dynamic = pagePolicy({ isHttps: true }, { nonce: "abc" });
    expect(dynamic).toContain("script-src 'self' 'nonce-abc' 'strict-dynamic'");
    expect(dynamic).toContain("upgrade-insecure-requests");
    expect(dynamic).toContain("img-src 'self' data: blob: https:;");
    const cached = pagePolicy({ isHttps: false }, { hashes: "'sha256-x'" });
    expect(cached).toContain("script-src 'self' 'sha256-x' ");
    expect(cached).not.toContain("nonce-");
    expect(cached).not.toContain("upgrade-insecure-requests");
    for (const policy of [dynamic, cached]) {
      expect(policy.match(/script-src [^;]*/)?.[0]).not.toContain("unsafe");
      for (const directive of [
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
      ])
        expect(policy).toContain(directive);
      for (const source of OWN_INLINE_SCRIPT_SOURCES) expect(policy).toContain(source);
    }
    // The consent form's redirect goes to the client's own URI: no form-action there.
    expect(pagePolicy({ isHttps: true }, { nonce: "abc" }, false)).not.toContain("form-action");
  });

  it("M5: the hashes are those of the inline scripts a browser runs (not JSON-LD, not external ones)", () => {
    const html =
      '<script src="/_next/a.js" async=""></script><script>self.x=1</script>' +
      '<script type="application/ld+json">{"a":1}</script><script id="_R_">self.x=1</script>' +
      `<script>${storefrontLangScript("pt")}</script>`;
    expect(inlineScriptHashes(html)).toEqual([
      scriptHashSource("self.x=1"),
      scriptHashSource('document.documentElement.lang="pt"'),
    ]);
    expect(OWN_INLINE_SCRIPT_SOURCES).toContain(scriptHashSource(storefrontLangScript("pt")));
  });
});

describe("S3: Host names", () => {
  const policy = { urls: ["https://marea.example", "https://mcp.marea.example:8443/mcp"] };

  it("S3: APP_URL's and MCP_URL's hosts with their ports; loopback names only when allowed", () => {
    for (const host of ["marea.example", "MAREA.example:443", "marea.example.", "mcp.marea.example:8443"])
      expect(isAllowedHost(host, policy, false), host).toBe(true);
    for (const host of [
      "evil.example",
      "marea.example:80",
      "marea.example.evil.example",
      "mcp.marea.example",
      "localhost:3000",
      "",
      "a b",
      "marea.example@evil.example",
    ])
      expect(isAllowedHost(host, policy, false), host).toBe(false);
    expect(isAllowedHost(undefined, policy, true)).toBe(false);
    for (const host of ["localhost:3000", "127.0.0.1", "[::1]:3000", "app.localhost"])
      expect(isAllowedHost(host, policy, true), host).toBe(true);
    expect(isAllowedHost("127.0.0.1.evil.example", policy, true)).toBe(false);
  });
});

describe("H1: /dev/mail", () => {
  it("H1: npm start without SMTP_URL listens on 127.0.0.1 and shows mail; with a non-loopback HOST it shows none", () => {
    const quickStart: Record<string, string | undefined> = { NODE_ENV: "production" };
    applyMailDefaults(quickStart);
    expect(quickStart).toMatchObject({ HOST: "127.0.0.1", DEV_MAIL: "1" });
    const exposed: Record<string, string | undefined> = { NODE_ENV: "production", HOST: "0.0.0.0" };
    applyMailDefaults(exposed);
    expect(exposed.DEV_MAIL).toBeUndefined();
    const withSmtp: Record<string, string | undefined> = { NODE_ENV: "production", SMTP_URL: "smtp://x" };
    applyMailDefaults(withSmtp);
    expect(withSmtp).toEqual({ NODE_ENV: "production", SMTP_URL: "smtp://x" });
    const refused: Record<string, string | undefined> = { NODE_ENV: "production", DEV_MAIL: "0" };
    applyMailDefaults(refused);
    expect(refused.HOST).toBeUndefined();
  });

  it("H1: never in production unless DEV_MAIL=1; never with SMTP_URL or DEV_MAIL=0; only to a local request under an own Host", () => {
    setTestEnv({ APP_URL: "http://127.0.0.1:4000" });
    expect(isDevMailEnabled()).toBe(true);
    const local = new Headers({ host: "127.0.0.1:4000" });
    expect(canReadDevMail(local)).toBe(true);
    expect(canReadDevMail(new Headers({ host: "evil.example" }))).toBe(false);
    expect(canReadDevMail(new Headers({ host: "127.0.0.1:4000", "x-forwarded-for": "203.0.113.9" }))).toBe(
      false,
    );
    setTestEnv({ NODE_ENV: "production" });
    expect(isDevMailEnabled()).toBe(false);
    setTestEnv({ DEV_MAIL: "1" });
    expect(isDevMailEnabled()).toBe(true);
    // In production the peer comes from the production start's header only.
    markPeerHeaderStamped();
    expect(canReadDevMail(new Headers({ host: "127.0.0.1:4000", [PEER_HEADER]: "127.0.0.1" }))).toBe(true);
    expect(canReadDevMail(new Headers({ host: "127.0.0.1:4000", [PEER_HEADER]: "203.0.113.9" }))).toBe(false);
    setTestEnv({ SMTP_URL: "smtp://127.0.0.1:2525" });
    expect(isDevMailEnabled()).toBe(false);
    setTestEnv({ SMTP_URL: undefined, DEV_MAIL: "0", NODE_ENV: "test" });
    expect(isDevMailEnabled()).toBe(false);
  });
});

describe("the admin CLI endpoint", () => {
  it("the admin endpoint also wants the socket's peer on this machine, where the server knows it", async () => {
    const token = "t".repeat(40);
    setCurrentAdminChannel({ pid: process.pid, port: 0, token });
    markPeerHeaderStamped();
    const post = (peer: string, extra: Record<string, string> = {}) =>
      runAdminCommand(
        new Request("http://127.0.0.1:4000/api/admin/cli", {
          method: "POST",
          headers: { "x-admin-token": token, [PEER_HEADER]: peer, ...extra },
          body: JSON.stringify({ argv: "not a list" }),
        }),
      );
    expect((await post("203.0.113.9")).status).toBe(401);
    expect((await post("127.0.0.1", { "x-forwarded-for": "203.0.113.9" })).status).toBe(401);
    // From this machine the token is checked and the body read (400: argv must be a list).
    expect((await post("127.0.0.1")).status).toBe(400);
  });
});

describe("S2: Inngest", () => {
  afterEach(() => setTestEnv({ INNGEST_DEV: undefined, INNGEST_SIGNING_KEY: undefined }));

  it("S2: /api/inngest answers 404 unless Inngest is configured", async () => {
    setTestEnv({ INNGEST_DEV: undefined, INNGEST_SIGNING_KEY: undefined, INNGEST_EVENT_KEY: undefined });
    const route = await import("@/app/api/inngest/route");
    const request = new NextRequest("http://127.0.0.1:4000/api/inngest", { method: "PUT" });
    expect((await route.PUT(request, {})).status).toBe(404);
    expect((await route.GET(new NextRequest("http://127.0.0.1:4000/api/inngest"), {})).status).toBe(404);
    expect((await route.POST(new NextRequest(request.url, { method: "POST", body: "{}" }), {})).status).toBe(
      404,
    );
    setTestEnv({ INNGEST_DEV: "1" });
    expect((await route.GET(new NextRequest("http://127.0.0.1:4000/api/inngest"), {})).status).not.toBe(404);
  });

  it("S2: INNGEST_DEV (unsigned calls accepted) is refused at start-up under NODE_ENV=production", async () => {
    const { env } = await import("@/server/env");
    setTestEnv({ NODE_ENV: "production", INNGEST_DEV: "1" });
    expect(() => env()).toThrow(/INNGEST_DEV is set under NODE_ENV=production/);
    setTestEnv({ INNGEST_DEV: "0" });
    expect(() => env()).not.toThrow();
  });
});

describe("the session cookie", () => {
  it("is __Host-marea_session on https (Secure, Path=/, no Domain), and marea_session on http (localhost keeps working)", () => {
    const session = { token: "a".repeat(64), expiresAt: new Date(Date.now() + 60_000) } as Parameters<
      typeof sessionCookie
    >[0];
    setTestEnv({ APP_URL: "https://marea.example" });
    const secure = sessionCookie(session, new Date());
    expect(secure).toMatch(/^__Host-marea_session=a{64}; Path=\/; /);
    expect(secure).toContain("; Secure");
    expect(secure).not.toMatch(/domain=/i);
    const request = (cookie: string) => new Request("https://marea.example/", { headers: { cookie } });
    expect(readCookie(request(`__Host-marea_session=${"b".repeat(64)}`), SESSION_COOKIE)).toBe(
      "b".repeat(64),
    );
    // A cookie without the prefix (which any subdomain could have planted) is not the session.
    expect(readCookie(request(`marea_session=${"c".repeat(64)}`), SESSION_COOKIE)).toBeNull();
    setTestEnv({ APP_URL: "http://localhost:3000" });
    expect(sessionCookie(session, new Date())).toMatch(/^marea_session=a{64}; Path=\/; /);
    expect(sessionCookie(session, new Date())).not.toContain("Secure");
    expect(readCookie(request(`marea_session=${"c".repeat(64)}`), SESSION_COOKIE)).toBe("c".repeat(64));
  });
});

describe("how to report a vulnerability", () => {
  it("/.well-known/security.txt names SECURITY_CONTACT, or security@ APP_URL's domain, and an expiry", () => {
    setTestEnv({ APP_URL: "https://shop.marea.example", SECURITY_CONTACT: undefined });
    const now = new Date("2026-11-28T00:00:00Z");
    expect(securityTxt(now)).toBe(
      [
        "Contact: mailto:security@shop.marea.example",
        "Expires: 2027-05-27T00:00:00Z",
        "Preferred-Languages: en, es, pt",
        "Canonical: https://shop.marea.example/.well-known/security.txt",
        "",
      ].join("\n"),
    );
    setTestEnv({ SECURITY_CONTACT: "https://marea.example/security" });
    expect(securityTxt(now)).toContain("Contact: https://marea.example/security\n");
    setTestEnv({ SECURITY_CONTACT: "psirt@operator.example" });
    expect(securityTxt(now)).toContain("Contact: mailto:psirt@operator.example\n");
    setTestEnv({ SECURITY_CONTACT: undefined });
  });
});
