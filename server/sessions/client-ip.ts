import { env } from "@/server/env";
import { isPeerHeaderStamped, PEER_HEADER } from "@/server/http/peer";
import {
  type AddressRange,
  type IpAddress,
  ipv6Prefix64,
  isInRanges,
  isLoopbackAddress,
  parseAddressRanges,
  parseIpAddress,
} from "@/server/lib/ip";

/**
 * The client address every per-IP limit counts against (public orders, sign-in code requests and tries, OAuth
 * dynamic registration): docs/security.md, "Client addresses".
 *
 * 1. The peer is the socket's remote address, which the production start (server/host/main.ts) writes into a
 *    header of its own on every request (server/http/peer.ts), replacing any copy a client sent. Under `next
 *    dev` (and in tests that call a handler directly) there is no such server: `npm run dev` listens on
 *    127.0.0.1 only, so the peer is taken to be 127.0.0.1. Under `next start` alone (NODE_ENV=production
 *    without the production start) the peer is unknown.
 * 2. `X-Forwarded-For` is believed only from a peer in TRUSTED_PROXIES: walking it from the right, each entry
 *    stands for the client of the hop before it, as long as that hop is trusted. The client is the first
 *    address, from the right, that is not a trusted proxy.
 * 3. An address that cannot be parsed (a garbage or empty entry, an unknown peer) is `unknown`: ONE shared bucket
 *    per limit, never a skipped limit.
 *
 * IPv6 addresses count per /64 (one subscriber usually holds a whole /64); IPv4-mapped IPv6 as IPv4.
 */

/** The bucket of every client whose address cannot be told. */
export const UNKNOWN_CLIENT = "unknown";

type HeaderSource = { get(name: string): string | null };

let cachedRanges: { source: string; ranges: AddressRange[] } | undefined;

function trustedProxies(): AddressRange[] | null {
  const source = env().TRUSTED_PROXIES ?? "";
  if (source.trim() === "") return null;
  if (cachedRanges?.source !== source) cachedRanges = { source, ranges: parseAddressRanges(source) };
  return cachedRanges.ranges;
}

/** The socket's peer (see above), or null when it cannot be known. */
export function peerAddress(headers: HeaderSource): IpAddress | null {
  if (isPeerHeaderStamped()) return parseIpAddress(headers.get(PEER_HEADER) ?? "");
  if (env().NODE_ENV !== "production") return { address: "127.0.0.1", family: "ipv4" };
  return null;
}

/** The client's own address after walking trusted proxies (see above), or null when it cannot be told. */
export function clientAddress(headers: HeaderSource): IpAddress | null {
  let current = peerAddress(headers);
  if (!current) return null;
  const trusted = trustedProxies();
  const forwarded = headers.get("x-forwarded-for");
  if (!trusted || forwarded === null) return current;
  const hops = forwarded.split(",");
  while (isInRanges(trusted, current)) {
    const hop = hops.pop();
    if (hop === undefined) break;
    current = parseIpAddress(hop);
    if (!current) return null;
  }
  return current;
}

/** The per-IP bucket of a request: an IPv4 address, an IPv6 /64 (`2001:db8:1:2::/64`), or `unknown`. Never null. */
export function clientIp(request: Request): string {
  return clientIpOf(request.headers);
}

export function clientIpOf(headers: HeaderSource): string {
  const address = clientAddress(headers);
  return address ? bucketOf(address) : UNKNOWN_CLIENT;
}

function bucketOf(ip: IpAddress): string {
  if (ip.family === "ipv4") return ip.address;
  return `${ipv6Prefix64(ip)}::/64`;
}

/** The bucket of one address as written (a socket address or a header entry); null when it is not one. */
export function normalizeIp(raw: string): string | null {
  const ip = parseIpAddress(raw);
  return ip ? bucketOf(ip) : null;
}

/** The socket's peer is a loopback address (whoever it relays for). */
export function isLoopbackPeer(headers: HeaderSource): boolean {
  const peer = peerAddress(headers);
  return peer !== null && isLoopbackAddress(peer);
}

/**
 * True when the request comes from this machine: the peer is a loopback address and the request was not
 * relayed by a proxy for someone else (every `X-Forwarded-For` and `X-Real-IP` address is loopback too, and
 * there is no `Forwarded` header). A proxy on the same machine makes every peer loopback; what it adds says
 * whom it relays. Never read from a header a client controls alone: the peer is the socket's.
 */
export function isLocalRequest(headers: HeaderSource): boolean {
  if (!isLoopbackPeer(headers)) return false;
  if (headers.get("forwarded") !== null) return false;
  const relayed = [
    ...(headers.get("x-forwarded-for")?.split(",") ?? []),
    ...(headers.get("x-real-ip")?.split(",") ?? []),
  ];
  return relayed.every((entry) => {
    const ip = parseIpAddress(entry);
    return ip !== null && isLoopbackAddress(ip);
  });
}
