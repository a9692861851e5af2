import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError, messageFor } from "@/server/errors";
import { loopbackAliasFromHosts } from "./testing";
import {
  assertAllowedWebhookUrl,
  classifyAddress,
  parseIPv6,
  resolveAndCheck,
  SafeFetchError,
  safeFetch,
} from "./url-guard";

function rejection(fn: () => unknown): AppError | null {
  try {
    fn();
    return null;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

describe('assertAllowedWebhookUrl: the checks at registration (docs/webhooks.md, "URL rules")', () => {
  const strict = { allowLocal: false };

  it("accepts a public https URL and returns it parsed", () => {
    const url = assertAllowedWebhookUrl("https://hooks.example.com/marea?x=1", strict);
    expect(url.hostname).toBe("hooks.example.com");
  });

  it.each([
    ["scheme other than https", "http://hooks.example.com/"],
    ["ftp scheme", "ftp://hooks.example.com/"],
    ["javascript scheme", "javascript:alert(1)"],
    ["unparseable", "not a url"],
    ["over 2048 characters", `https://hooks.example.com/${"a".repeat(2048)}`],
    ["hostname localhost", "https://localhost/hook"],
    ["localhost with a trailing dot", "https://localhost./hook"],
    ["localhost in capitals", "https://LOCALHOST/hook"],
    ["a *.localhost name", "https://api.localhost/hook"],
    ["hostname 0.0.0.0", "https://0.0.0.0/hook"],
    ["metadata.google.internal", "https://metadata.google.internal/computeMetadata/v1/"],
    ["metadata.google.internal with a trailing dot", "https://metadata.google.internal./"],
    ["anything ending in .internal", "https://db.corp.internal/hook"],
    ["anything ending in .local", "https://printer.local/hook"],
    ["127.0.0.0/8", "https://127.0.0.1/hook"],
    ["127.0.0.0/8 upper end", "https://127.255.255.254/hook"],
    ["10.0.0.0/8", "https://10.1.2.3/hook"],
    ["172.16.0.0/12 low", "https://172.16.0.1/hook"],
    ["172.16.0.0/12 high", "https://172.31.255.255/hook"],
    ["192.168.0.0/16", "https://192.168.1.1/hook"],
    ["169.254.0.0/16 (metadata)", "https://169.254.169.254/latest/meta-data/"],
    ["IPv6 fc00::/7 (fc)", "https://[fc00::1]/hook"],
    ["IPv6 fc00::/7 (fd)", "https://[fd12:3456::1]/hook"],
    ["IPv6 fe80::/10", "https://[fe80::1]/hook"],
    ["IPv6 fe80::/10 upper end", "https://[febf::1]/hook"],
    ["IPv6 loopback", "https://[::1]/hook"],
    ["IPv6 unspecified", "https://[::]/hook"],
    ["IPv4-mapped IPv6 of loopback", "https://[::ffff:127.0.0.1]/hook"],
    ["IPv4-mapped IPv6 of 10/8 in hex", "https://[::ffff:a00:1]/hook"],
    ["IPv4-compatible IPv6 of 192.168/16", "https://[::192.168.0.1]/hook"],
    ["NAT64 of 169.254.169.254", "https://[64:ff9b::a9fe:a9fe]/hook"],
    ["6to4 of 10.0.0.1", "https://[2002:a00:1::1]/hook"],
    ["decimal IPv4", "https://2130706433/hook"],
    ["hex IPv4", "https://0x7f000001/hook"],
    ["octal IPv4", "https://0177.0.0.1/hook"],
    ["short IPv4", "https://127.1/hook"],
    ["mixed hex dotted IPv4", "https://0xa.0.0.1/hook"],
    ["IPv4 with a trailing dot", "https://10.0.0.1./hook"],
    ["userinfo pointing at a private host", "https://hooks.example.com@127.0.0.1/hook"],
    ["userinfo on a public host", "https://user:pass@hooks.example.com/hook"],
    ["0.0.0.0/8 other than 0.0.0.0", "https://0.1.2.3/hook"],
    ["carrier-grade NAT", "https://100.64.0.1/hook"],
    ["full-width digits", "https://１２７.０.０.１/hook"],
  ])("rejects %s", (_label, url) => {
    const error = rejection(() => assertAllowedWebhookUrl(url, strict));
    expect(error?.code).toBe("invalid_webhook_url");
    expect(error?.options.param).toBe("url");
  });

  it("accepts exactly 2048 characters", () => {
    const base = "https://hooks.example.com/";
    expect(() => assertAllowedWebhookUrl(base + "a".repeat(2048 - base.length), strict)).not.toThrow();
  });

  it("accepts public addresses next to private ranges", () => {
    for (const url of [
      "https://172.32.0.1/",
      "https://172.15.255.255/",
      "https://11.0.0.1/",
      "https://[2001:db8::1]/",
      "https://[2606:4700::1111]/",
    ])
      expect(() => assertAllowedWebhookUrl(url, strict)).not.toThrow();
  });

  describe('with UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS=1 (docs/webhooks.md, "Configuration")', () => {
    const local = { allowLocal: true };
    it("accepts http:// and loopback targets", () => {
      for (const url of [
        "http://127.0.0.1:4000/hook",
        "http://localhost:4000/hook",
        "https://[::1]/hook",
        "http://[::ffff:127.0.0.1]:80/",
      ])
        expect(() => assertAllowedWebhookUrl(url, local)).not.toThrow();
    });
    it("still rejects the other private ranges, names and schemes", () => {
      for (const url of [
        "http://10.0.0.1/",
        "http://192.168.1.1/",
        "http://169.254.169.254/",
        "http://0.0.0.0:4000/",
        "http://metadata.google.internal/",
        "http://printer.local/",
        "http://[fd00::1]/",
        "ftp://127.0.0.1/",
      ])
        expect(rejection(() => assertAllowedWebhookUrl(url, local))?.code).toBe("invalid_webhook_url");
    });
  });
});

describe("classifyAddress", () => {
  it("parses IPv6 forms into 16 bytes", () => {
    expect(parseIPv6("::ffff:127.0.0.1")?.slice(10)).toEqual([0xff, 0xff, 127, 0, 0, 1]);
    expect(parseIPv6("fe80::1%eth0")?.[0]).toBe(0xfe);
  });
  it("classifies loopback, private and public", () => {
    expect(classifyAddress("127.0.0.1")).toBe("loopback");
    expect(classifyAddress("::1")).toBe("loopback");
    expect(classifyAddress("::ffff:7f00:1")).toBe("loopback");
    expect(classifyAddress("10.0.0.1")).toBe("private");
    expect(classifyAddress("fe80::1%lo")).toBe("private");
    expect(classifyAddress("8.8.8.8")).toBe("public");
    expect(classifyAddress("2606:4700::1111")).toBe("public");
    expect(classifyAddress("garbage")).toBe("private");
  });
});

describe('resolveAndCheck: every resolved address is checked before every attempt (docs/webhooks.md, "URL rules")', () => {
  it("rejects a host name that is not on the name list but resolves to 127.0.0.1", async () => {
    const alias = loopbackAliasFromHosts();
    expect(alias, "/etc/hosts needs a non-localhost name for 127.x (the machine's own name)").not.toBeNull();
    // The name passes the registration check (it is not a listed name) ...
    expect(() => assertAllowedWebhookUrl(`https://${alias}/hook`, { allowLocal: false })).not.toThrow();
    // ... and is refused once resolved.
    await expect(resolveAndCheck(alias as string, { allowLocal: false })).rejects.toMatchObject({
      code: "invalid_webhook_url",
    });
    await expect(resolveAndCheck(alias as string, { allowLocal: true })).resolves.toEqual([
      expect.objectContaining({ address: expect.stringMatching(/^127\./) }),
    ]);
  });

  it("rejects a name that does not resolve", async () => {
    await expect(resolveAndCheck("no-such-host.invalid", { allowLocal: false })).rejects.toMatchObject({
      code: "invalid_webhook_url",
    });
  });

  it("checks IP literals without DNS", async () => {
    await expect(resolveAndCheck("[::ffff:a00:1]", { allowLocal: true })).rejects.toBeInstanceOf(AppError);
    await expect(resolveAndCheck("8.8.8.8", { allowLocal: false })).resolves.toEqual([
      { address: "8.8.8.8", family: 4 },
    ]);
  });
});

describe("safeFetch", () => {
  let server: Server;
  let port = 0;
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.host}`);
      if (req.url === "/redirect") {
        res.writeHead(302, { location: "/ok" }).end();
      } else if (req.url === "/hang") {
        // never answers
      } else if (req.url === "/big") {
        res.writeHead(200).end("x".repeat(100_000));
      } else {
        res.writeHead(200).end("ok");
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("connects to a loopback receiver only when allowLocal", async () => {
    const ok = await safeFetch(`http://127.0.0.1:${port}/ok`, {
      timeoutMs: 2000,
      allowLocal: true,
      body: "{}",
    });
    expect(ok).toMatchObject({ status: 200, body: "ok" });
    await expect(
      safeFetch(`http://127.0.0.1:${port}/ok`, { timeoutMs: 2000, allowLocal: false }),
    ).rejects.toMatchObject({ kind: "blocked" });
  });

  it("reaches a name through the checked address and sends its Host header", async () => {
    const alias = loopbackAliasFromHosts() as string;
    const ok = await safeFetch(`http://${alias}:${port}/named`, { timeoutMs: 2000, allowLocal: true });
    expect(ok.status).toBe(200);
    expect(seen).toContain(`POST /named ${alias}:${port}`);
  });

  it('does not follow redirects (docs/webhooks.md, "URL rules")', async () => {
    const before = seen.length;
    const res = await safeFetch(`http://127.0.0.1:${port}/redirect`, { timeoutMs: 2000, allowLocal: true });
    expect(res.status).toBe(302);
    expect(seen.slice(before)).toEqual([`POST /redirect 127.0.0.1:${port}`]);
  });

  it("times out a receiver that hangs", async () => {
    const started = Date.now();
    const error = await safeFetch(`http://127.0.0.1:${port}/hang`, {
      timeoutMs: 300,
      allowLocal: true,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SafeFetchError);
    expect((error as SafeFetchError).kind).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("reads at most maxBodyBytes of the answer", async () => {
    const res = await safeFetch(`http://127.0.0.1:${port}/big`, { timeoutMs: 2000, allowLocal: true });
    expect(res.body.length).toBe(2048);
  });

  it("reports a refused connection", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      safeFetch(`http://127.0.0.1:${closedPort}/`, { timeoutMs: 2000, allowLocal: true }),
    ).rejects.toMatchObject({ kind: "connection" });
  });
});

describe("L1: what a refused host answers names no address and no resolver code", () => {
  it("L1: a name that resolves to a private address and one that does not resolve get the same words, in every language", async () => {
    const alias = loopbackAliasFromHosts();
    expect(alias, "/etc/hosts needs a non-localhost name for 127.x (the machine's own name)").not.toBeNull();
    const refusalOf = (host: string) =>
      resolveAndCheck(host, { allowLocal: false }).then(
        () => null,
        (error: AppError) => error,
      );
    const privateName = await refusalOf(alias as string);
    const missing = await refusalOf("no-such-host.invalid");
    for (const [error, host] of [
      [privateName, alias],
      [missing, "no-such-host.invalid"],
    ] as const) {
      expect(error?.code).toBe("invalid_webhook_url");
      for (const language of ["en", "es", "pt"] as const) {
        const message = messageFor(error as AppError, language);
        expect(message).not.toMatch(/127\.|ENOTFOUND|EAI_|ESERVFAIL/);
        expect(message).toContain(host);
      }
      expect(error?.message).toBe(
        `invalid_webhook_url: The host ${host} does not resolve to a public address.`,
      );
    }
  });
});
