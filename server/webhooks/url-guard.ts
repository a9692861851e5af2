import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { env } from "@/server/env";
import { AppError, type Messages } from "@/server/errors";
import { log } from "@/server/lib/log";

/**
 * SSRF guard for webhook URLs (docs/webhooks.md, "URL rules").
 *
 * Two layers:
 * 1. `assertAllowedWebhookUrl` at registration and update: scheme, length, forbidden host names and IP literals.
 *    It is syntactic on purpose (no DNS): a name that does not resolve today may resolve tomorrow, and a name
 *    that resolves to a public address today may be re-pointed later, so DNS is checked where it matters:
 * 2. `resolveAndCheck` + `safeFetch` before EVERY attempt: the host name is resolved, every address must be
 *    public, and the connection is pinned to a checked address (a custom `lookup`), so a DNS answer that
 *    changes between the check and the connect (DNS rebinding) can never reach a private address.
 *    Redirects are never followed (a 3xx is a failed attempt).
 *
 * `UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS=1` (`allowLocal`) accepts `http://` and LOOPBACK targets only (127.0.0.0/8,
 * ::1, `localhost`, `*.localhost`), for local development and tests. Every other private, link-local,
 * metadata or reserved range stays rejected even then: the flag exists to reach a receiver on this machine,
 * not to open the internal network.
 */

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type UrlGuardOptions = { allowLocal?: boolean };

/** Why an address is refused; `public` addresses are allowed. */
export type AddressClass = "public" | "loopback" | "private";

function allowLocalDefault(options?: UrlGuardOptions): boolean {
  return options?.allowLocal ?? env().UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS === "1";
}

function reject(detail: Messages): never {
  throw new AppError("invalid_webhook_url", { param: "url", detail });
}

function tooLong(): Messages {
  return {
    en: `The URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters.`,
    es: `La URL tiene más de ${MAX_WEBHOOK_URL_LENGTH} caracteres.`,
    pt: `A URL tem mais de ${MAX_WEBHOOK_URL_LENGTH} caracteres.`,
  };
}

/**
 * One answer for a name that does not resolve and one that resolves to a refused address: telling them apart
 * would tell a caller which internal names exist (docs/webhooks.md, "URL rules").
 */
function noPublicAddress(host: string): Messages {
  return {
    en: `The host ${host} does not resolve to a public address.`,
    es: `El host ${host} no se resuelve a una dirección pública.`,
    pt: `O host ${host} não é resolvido para um endereço público.`,
  };
}

function hostNotAllowed(host: string): Messages {
  return {
    en: `The host ${host} is not allowed.`,
    es: `El host ${host} no está permitido.`,
    pt: `O host ${host} não é permitido.`,
  };
}

/**
 * Validates a webhook URL for registration or update and returns it parsed. Throws 400 `invalid_webhook_url`
 * (param `url`) for: a scheme other than https (http only with allowLocal), more than 2048 characters,
 * credentials in the URL, the host names `localhost` (and `*.localhost`), `0.0.0.0`, `metadata.google.internal`,
 * `*.internal`, `*.local`, and IP literals in a private range (see `classifyAddress`), in any of their
 * spellings (decimal, octal or hex IPv4, IPv4-mapped or -embedded IPv6, trailing dots).
 */
export function assertAllowedWebhookUrl(url: string, options?: UrlGuardOptions): URL {
  const allowLocal = allowLocalDefault(options);
  if (typeof url !== "string" || url.length === 0)
    reject({ en: "The URL is empty.", es: "La URL está vacía.", pt: "A URL está vazia." });
  if (url.length > MAX_WEBHOOK_URL_LENGTH) reject(tooLong());
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return reject({
      en: "The URL cannot be parsed.",
      es: "La URL no se puede interpretar.",
      pt: "A URL não pode ser interpretada.",
    });
  }
  if (parsed.href.length > MAX_WEBHOOK_URL_LENGTH) reject(tooLong());
  if (parsed.protocol !== "https:" && !(allowLocal && parsed.protocol === "http:"))
    reject({
      en: "The URL must use https://.",
      es: "La URL debe usar https://.",
      pt: "A URL deve usar https://.",
    });
  // `https://trusted.example@10.0.0.1/` reads as one host and connects to another: no userinfo at all.
  if (parsed.username !== "" || parsed.password !== "" || /^[a-z]+:\/\/[^/?#]*@/i.test(url))
    reject({
      en: "The URL must not contain a user name or password.",
      es: "La URL no debe contener usuario ni contraseña.",
      pt: "A URL não deve conter usuário nem senha.",
    });
  const host = normalizeHost(parsed.hostname);
  if (host === "")
    reject({ en: "The URL has no host.", es: "La URL no tiene host.", pt: "A URL não tem host." });
  const hostClass = classifyHost(host);
  if (hostClass === "private") reject(hostNotAllowed(host));
  if (hostClass === "loopback" && !allowLocal) reject(hostNotAllowed(host));
  return parsed;
}

/** Lowercase, without IPv6 brackets and trailing dots (`localhost.` is `localhost`). */
export function normalizeHost(hostname: string): string {
  let host = hostname.toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  return host.replace(/\.+$/, "");
}

/** A host name or IP literal (already normalized): public, loopback or private. */
export function classifyHost(host: string): AddressClass {
  if (isIP(host)) return classifyAddress(host);
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (host === "0.0.0.0" || host === "metadata.google.internal") return "private";
  if (host.endsWith(".internal") || host === "internal") return "private";
  if (host.endsWith(".local") || host === "local") return "private";
  // A last label that is a number would be an IPv4 form the URL parser did not normalize (non-special
  // schemes): never treat such a host as a name.
  if (/(^|\.)(0x[0-9a-f]*|\d+)$/i.test(host)) return "private";
  return "public";
}

type Range = { bytes: number[]; prefix: number; cls: AddressClass };

function v4(
  a: number,
  b: number,
  c: number,
  d: number,
  prefix: number,
  cls: AddressClass = "private",
): Range {
  return { bytes: [a, b, c, d], prefix, cls };
}

/**
 * IPv4 ranges refused (docs/webhooks.md, "URL rules"): loopback, private and link-local, plus the other
 * ranges that never lead to a public receiver.
 */
const IPV4_RANGES: Range[] = [
  v4(127, 0, 0, 0, 8, "loopback"), // loopback
  v4(10, 0, 0, 0, 8), // private
  v4(172, 16, 0, 0, 12), // private
  v4(192, 168, 0, 0, 16), // private
  v4(169, 254, 0, 0, 16), // link-local, cloud metadata 169.254.169.254
  v4(0, 0, 0, 0, 8), // "this network"; 0.0.0.0 reaches the local host
  v4(100, 64, 0, 0, 10), // carrier-grade NAT, internal by nature
  v4(192, 0, 0, 0, 24), // IETF protocol assignments
  v4(198, 18, 0, 0, 15), // benchmarking networks
  v4(224, 0, 0, 0, 4), // multicast
  v4(240, 0, 0, 0, 4), // reserved and broadcast
];

function hex16(groups: number[]): number[] {
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

/** IPv6 ranges refused: fc00::/7 and fe80::/10, plus loopback, unspecified, site-local, multicast. */
const IPV6_RANGES: Range[] = [
  { bytes: hex16([0, 0, 0, 0, 0, 0, 0, 1]), prefix: 128, cls: "loopback" }, // ::1
  { bytes: hex16([0, 0, 0, 0, 0, 0, 0, 0]), prefix: 128, cls: "private" }, // ::
  { bytes: hex16([0xfc00]), prefix: 7, cls: "private" }, // unique local
  { bytes: hex16([0xfe80]), prefix: 10, cls: "private" }, // link-local
  { bytes: hex16([0xfec0]), prefix: 10, cls: "private" }, // deprecated site-local
  { bytes: hex16([0xff00]), prefix: 8, cls: "private" }, // multicast
];

function inRange(bytes: number[], range: Range): boolean {
  let bits = range.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((range.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Parses a dotted-quad IPv4 address (the canonical form; the URL parser normalizes the others). */
export function parseIPv4(address: string): number[] | null {
  const parts = address.split(".");
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : Number.NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : null;
}

/** Parses an IPv6 address (with `::`, an embedded dotted quad, and an ignored zone) into 16 bytes. */
export function parseIPv6(address: string): number[] | null {
  let text = address.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  if (isIP(text) !== 6) return null;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  const lastPart = text.slice(lastColon + 1);
  if (lastPart.includes(".")) {
    const quad = parseIPv4(lastPart);
    if (!quad) return null;
    tail = quad;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head = "", rest] = text.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const restGroups = rest === undefined || rest === "" ? [] : rest.split(":");
  const missing = 8 - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array<string>(rest === undefined ? 0 : missing).fill("0"), ...restGroups];
  if (groups.length !== 8) return null;
  const bytes = hex16(groups.map((g) => Number.parseInt(g, 16)));
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The IPv4 address an IPv6 address carries, for the forms that route to it: mapped, compatible, NAT64, 6to4. */
function embeddedIPv4(bytes: number[]): number[] | null {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible, deprecated)
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12, 16);
  if (zeros(0, 12) && !zeros(12, 16) && !(zeros(12, 15) && bytes[15] === 1)) return bytes.slice(12, 16);
  // ::ffff:0:a.b.c.d (SIIT)
  if (zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12)) return bytes.slice(12, 16);
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix)
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12))
    return bytes.slice(12, 16);
  // 2002:aabb:ccdd::/48 (6to4)
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6);
  return null;
}

function classifyIPv4(bytes: number[]): AddressClass {
  for (const range of IPV4_RANGES) if (inRange(bytes, range)) return range.cls;
  return "public";
}

/** Classifies one IP address (IPv4 or IPv6 text). Anything that cannot be parsed is `private`. */
export function classifyAddress(address: string): AddressClass {
  const kind = isIP(address.split("%")[0] ?? "");
  if (kind === 4) {
    const bytes = parseIPv4(address);
    return bytes ? classifyIPv4(bytes) : "private";
  }
  if (kind === 6) {
    const bytes = parseIPv6(address);
    if (!bytes) return "private";
    for (const range of IPV6_RANGES) if (inRange(bytes, range)) return range.cls;
    const embedded = embeddedIPv4(bytes);
    if (embedded) return classifyIPv4(embedded);
    return "public";
  }
  return "private";
}

function isAllowedClass(cls: AddressClass, allowLocal: boolean): boolean {
  return cls === "public" || (cls === "loopback" && allowLocal);
}

export type ResolvedAddress = { address: string; family: 4 | 6 };

/** The resolver `resolveAndCheck` uses: the system's (getaddrinfo, so /etc/hosts counts), every address. */
async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

/**
 * Resolves a host name (or takes an IP literal as is) and checks EVERY address it resolves to: if any one is
 * refused, the whole host is refused (a receiver behind a name that also points inside is not reachable).
 * Throws `invalid_webhook_url` when refused or when the name does not resolve. Run before every attempt. The
 * message names the host only: the address it resolved to and the resolver's error code are logged, never
 * answered (docs/webhooks.md, "URL rules").
 */
export async function resolveAndCheck(
  hostname: string,
  options?: UrlGuardOptions,
): Promise<ResolvedAddress[]> {
  const allowLocal = allowLocalDefault(options);
  const host = normalizeHost(hostname);
  const hostClass = classifyHost(host);
  if (!isAllowedClass(hostClass, allowLocal)) reject(hostNotAllowed(host));
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await systemResolve(host);
    } catch (error) {
      // The resolver's code (ENOTFOUND, ESERVFAIL...) tells which internal names exist: logged here, never
      // shown to the caller (a delivery log, an OAuth error page).
      log("info", "webhook host does not resolve", {
        host,
        code: (error as { code?: string }).code ?? "error",
      });
      return reject(noPublicAddress(host));
    }
  }
  if (addresses.length === 0) reject(noPublicAddress(host));
  for (const a of addresses) {
    if (!isAllowedClass(classifyAddress(a.address), allowLocal)) {
      // The private address a name resolves to maps the internal network: logged, never shown.
      log("info", "webhook host resolves to a refused address", { host, address: a.address });
      reject(noPublicAddress(host));
    }
  }
  return addresses;
}

export type SafeFetchInit = {
  method?: "POST" | "GET";
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  allowLocal?: boolean;
  /** How much of the response body is read and kept (the delivery log keeps 2 KiB). */
  maxBodyBytes?: number;
};

export type SafeFetchResponse = {
  status: number;
  body: string;
  /** The same body as bytes (images: docs/api.md, "Images"). */
  bytes: Buffer;
  durationMs: number;
  /** Response headers, lowercased names (a repeated header joined with ", "). */
  headers: Record<string, string>;
};

/** Why a request failed: the delivery log records `kind: message`. */
export class SafeFetchError extends Error {
  readonly kind: "blocked" | "timeout" | "connection";
  constructor(kind: "blocked" | "timeout" | "connection", message: string) {
    super(message);
    this.name = "SafeFetchError";
    this.kind = kind;
  }
}

/**
 * One HTTP request to a webhook URL under the guard: the URL is validated, its host resolved and every address
 * checked, and the socket connects ONLY to the checked address (custom `lookup`), so DNS rebinding cannot
 * switch targets between check and connect. TLS still verifies the certificate against the host name.
 * Redirects are not followed (the 3xx status is returned). Resolution, connection, headers and body together
 * must finish within `timeoutMs`; at most `maxBodyBytes` of the body are read.
 */
export async function safeFetch(url: string, init: SafeFetchInit): Promise<SafeFetchResponse> {
  const started = performance.now();
  const maxBody = init.maxBodyBytes ?? 2048;
  let parsed: URL;
  let pinned: ResolvedAddress;
  const deadline = started + init.timeoutMs;
  try {
    parsed = assertAllowedWebhookUrl(url, { allowLocal: init.allowLocal });
    const addresses = await withDeadline(
      resolveAndCheck(parsed.hostname, { allowLocal: init.allowLocal }),
      deadline,
    );
    pinned = addresses[0] as ResolvedAddress;
  } catch (error) {
    if (error instanceof SafeFetchError) throw error;
    throw new SafeFetchError("blocked", error instanceof Error ? error.message : String(error));
  }

  const pinnedLookup: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [pinned]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };

  const isHttps = parsed.protocol === "https:";
  const transport = isHttps ? https : http;
  const host = normalizeHost(parsed.hostname);

  return await new Promise<SafeFetchResponse>((resolve, reject) => {
    let settled = false;
    let status: number | null = null;
    let headers: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let size = 0;
    const succeed = () => {
      if (settled || status === null) return;
      settled = true;
      clearTimeout(timer);
      const bytes = Buffer.concat(chunks).subarray(0, maxBody);
      resolve({
        status,
        body: bytes.toString("utf8"),
        bytes,
        durationMs: Math.round(performance.now() - started),
        headers,
      });
    };
    const fail = (error: SafeFetchError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    };
    const request = transport.request({
      method: init.method ?? "POST",
      host,
      port: parsed.port ? Number(parsed.port) : isHttps ? 443 : 80,
      path: `${parsed.pathname}${parsed.search}`,
      headers: {
        ...init.headers,
        host: parsed.host,
        ...(init.body !== undefined ? { "content-length": String(Buffer.byteLength(init.body)) } : {}),
      },
      lookup: pinnedLookup,
      agent: false,
      ...(isHttps && !isIP(host) ? { servername: host } : {}),
    });
    // The answer is the status line: once it arrived in time, the deadline only stops reading the body.
    const timer = setTimeout(
      () => {
        if (status !== null) succeed();
        else fail(new SafeFetchError("timeout", `No answer within ${init.timeoutMs} ms.`));
        request.destroy();
      },
      Math.max(0, deadline - performance.now()),
    );
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (status !== null) succeed();
      else fail(new SafeFetchError("connection", error.code ?? error.message));
    });
    request.on("response", (response) => {
      status = response.statusCode ?? 0;
      headers = Object.fromEntries(
        Object.entries(response.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(", ") : (value ?? ""),
        ]),
      );
      response.on("data", (chunk: Buffer) => {
        if (size < maxBody) chunks.push(chunk);
        size += chunk.length;
        if (size >= maxBody) {
          succeed();
          response.destroy();
        }
      });
      response.on("end", succeed);
      response.on("error", succeed);
      response.on("close", succeed);
    });
    request.end(init.body);
  });
}

async function withDeadline<T>(promise: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SafeFetchError("timeout", "Resolving the host took too long.")),
      Math.max(0, deadline - performance.now()),
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
