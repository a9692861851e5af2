import { afterEach, describe, expect, it } from "vitest";
import { PEER_HEADER } from "@/server/http/peer";
import { isInRanges, parseAddressRanges, parseIpAddress } from "@/server/lib/ip";
import { setTestEnv } from "@/server/webhooks/testing";
import { clientIp, isLocalRequest, normalizeIp, peerAddress, UNKNOWN_CLIENT } from "./client-ip";

// docs/security.md, "Client addresses". Here the handlers run without the production start, as under `next dev`:
// the peer is taken to be 127.0.0.1. server/http/edge.test.ts runs the same rules through the production start
// and a real proxy.

function request(headers: Record<string, string>) {
  return new Request("http://127.0.0.1:4000/signin/email", { method: "POST", headers });
}

afterEach(() => setTestEnv({ TRUSTED_PROXIES: undefined }));

describe("M1: the client address of every per-IP limit", () => {
  it("M1: without TRUSTED_PROXIES, X-Forwarded-For is never believed: the client is the peer", () => {
    expect(clientIp(request({ "x-forwarded-for": "6.6.6.6, 203.0.113.9" }))).toBe("127.0.0.1");
    expect(clientIp(request({ "x-forwarded-for": "203.0.113.10" }))).toBe("127.0.0.1");
    expect(clientIp(request({ "x-real-ip": "203.0.113.11" }))).toBe("127.0.0.1");
    expect(clientIp(request({}))).toBe("127.0.0.1");
  });

  it("M1: the peer header is a client's own without the production start, and never read", () => {
    expect(clientIp(request({ [PEER_HEADER]: "203.0.113.12" }))).toBe("127.0.0.1");
    expect(peerAddress(new Headers({ [PEER_HEADER]: "203.0.113.12" }))?.address).toBe("127.0.0.1");
  });

  it("M1: from a trusted peer, the right-most X-Forwarded-For entry that is not a trusted proxy", () => {
    setTestEnv({ TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8, 2001:db8:ffff::/48" });
    expect(clientIp(request({ "x-forwarded-for": "6.6.6.6, 203.0.113.9" }))).toBe("203.0.113.9");
    // A client that prepends its own entries changes nothing: the proxy appended the address it saw.
    expect(clientIp(request({ "x-forwarded-for": "1.1.1.1, 2.2.2.2, 203.0.113.9" }))).toBe("203.0.113.9");
    // Hops through more trusted proxies are walked past.
    expect(clientIp(request({ "x-forwarded-for": "203.0.113.9, 10.1.2.3, 2001:db8:ffff::7" }))).toBe(
      "203.0.113.9",
    );
    expect(clientIp(request({ "x-forwarded-for": "::ffff:203.0.113.20" }))).toBe("203.0.113.20");
    // Every entry trusted: the farthest one known.
    expect(clientIp(request({ "x-forwarded-for": "10.9.9.9, 10.1.1.1" }))).toBe("10.9.9.9");
    // No header from a trusted proxy: the proxy itself.
    expect(clientIp(request({}))).toBe("127.0.0.1");
  });

  it("M1: a garbage or empty entry counts in ONE shared `unknown` bucket, never no bucket", () => {
    setTestEnv({ TRUSTED_PROXIES: "127.0.0.1" });
    for (const forwarded of ["x", "", " ", "203.0.113.9, x", "unknown", "1.2.3.4.5", "203.0.113.9,", "::g"])
      expect(clientIp(request({ "x-forwarded-for": forwarded })), forwarded).toBe(UNKNOWN_CLIENT);
    // Garbage to the left of the client is never reached.
    expect(clientIp(request({ "x-forwarded-for": "x, 203.0.113.9" }))).toBe("203.0.113.9");
  });

  it("M1: under NODE_ENV=production without the production start (next start alone), the peer is unknown", () => {
    const before = process.env.NODE_ENV;
    setTestEnv({ NODE_ENV: "production" });
    try {
      expect(clientIp(request({ "x-forwarded-for": "203.0.113.9" }))).toBe(UNKNOWN_CLIENT);
      setTestEnv({ TRUSTED_PROXIES: "0.0.0.0/0" });
      expect(clientIp(request({ "x-forwarded-for": "203.0.113.9" }))).toBe(UNKNOWN_CLIENT);
    } finally {
      setTestEnv({ NODE_ENV: before });
    }
  });

  it("counts IPv6 per /64 and drops ports", () => {
    expect(normalizeIp("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(normalizeIp("2001:db8:1:2:bbbb::7")).toBe("2001:db8:1:2::/64");
    expect(normalizeIp("[2001:db8::1]:443")).toBe("2001:db8:0:0::/64");
    expect(normalizeIp("::1")).toBe("0:0:0:0::/64");
    expect(normalizeIp("198.51.100.4:5678")).toBe("198.51.100.4");
    expect(normalizeIp("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(normalizeIp("not an ip")).toBeNull();
    setTestEnv({ TRUSTED_PROXIES: "127.0.0.1" });
    expect(clientIp(request({ "x-forwarded-for": "2001:db8:1:2:aaaa::1" }))).toBe("2001:db8:1:2::/64");
  });

  it("H1: a local request is a loopback peer that no proxy relayed for someone else", () => {
    expect(isLocalRequest(new Headers({}))).toBe(true);
    // Next itself fills X-Forwarded-For with the socket's address: loopback stays local.
    expect(isLocalRequest(new Headers({ "x-forwarded-for": "::ffff:127.0.0.1" }))).toBe(true);
    expect(isLocalRequest(new Headers({ "x-forwarded-for": "203.0.113.9, 127.0.0.1" }))).toBe(false);
    expect(isLocalRequest(new Headers({ "x-forwarded-for": "x" }))).toBe(false);
    expect(isLocalRequest(new Headers({ "x-real-ip": "203.0.113.9" }))).toBe(false);
    expect(isLocalRequest(new Headers({ forwarded: "for=127.0.0.1" }))).toBe(false);
  });
});

describe("addresses and TRUSTED_PROXIES ranges", () => {
  it("parses socket and header forms; refuses names, octal-looking and malformed addresses", () => {
    expect(parseIpAddress("[2001:DB8::1]:443")).toEqual({ address: "2001:db8:0:0:0:0:0:1", family: "ipv6" });
    expect(parseIpAddress("::ffff:7f00:1")).toEqual({ address: "127.0.0.1", family: "ipv4" });
    expect(parseIpAddress("fe80::1%eth0")?.address).toBe("fe80:0:0:0:0:0:0:1");
    for (const bad of [
      "010.1.1.1",
      "256.1.1.1",
      "1:2:3:4:5:6:7:8:9",
      "1::2::3",
      "localhost",
      "1.2.3.4, 5.6.7.8",
    ])
      expect(parseIpAddress(bad), bad).toBeNull();
  });

  it("matches addresses and CIDR ranges of both families; refuses what is neither", () => {
    const ranges = parseAddressRanges("10.0.0.0/8, 2001:db8::/32, 192.0.2.7, ::1");
    const inRanges = (text: string) => {
      const ip = parseIpAddress(text);
      return ip !== null && isInRanges(ranges, ip);
    };
    expect(["10.9.9.9", "2001:db8:ffff::1", "192.0.2.7", "::1", "::ffff:10.1.1.1"].every(inRanges)).toBe(
      true,
    );
    expect(["11.0.0.1", "2001:db9::1", "192.0.2.8", "::2"].some(inRanges)).toBe(false);
    expect(parseAddressRanges("")).toEqual([]);
    for (const bad of ["10.0.0.0/33", "x", "[::1]", "1.2.3.4:80", "::/129", "10.0.0.0/"])
      expect(() => parseAddressRanges(bad), bad).toThrow();
  });

  it("M1: server/env.ts refuses an invalid TRUSTED_PROXIES at start-up", async () => {
    const { env } = await import("@/server/env");
    setTestEnv({ TRUSTED_PROXIES: "10.0.0.0/8, proxy.internal" });
    expect(() => env()).toThrow(/TRUSTED_PROXIES: "proxy.internal" is not an IP address or CIDR range/);
  });
});
