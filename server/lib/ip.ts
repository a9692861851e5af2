/**
 * IP addresses as they arrive in sockets and `X-Forwarded-For` entries, and address ranges (TRUSTED_PROXIES):
 * docs/security.md, "Client addresses". Plain code without Node modules: server/env.ts validates TRUSTED_PROXIES
 * with it, and env.ts also reaches browser bundles (through the error catalogue).
 */

export type IpAddress = { address: string; family: "ipv4" | "ipv6" };

export type AddressRange = { family: "ipv4" | "ipv6"; bytes: number[]; prefix: number };

function ipv4Bytes(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes: number[] = [];
  for (const part of parts) {
    // Decimal only, no leading zeros (`010` is octal to some parsers, decimal to others).
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const value = Number(part);
    if (value > 255) return null;
    bytes.push(value);
  }
  return bytes;
}

function ipv6Bytes(text: string): number[] | null {
  if (!/^[0-9a-f:.]+$/.test(text)) return null;
  let tail: number[] = [];
  let body = text;
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    // An IPv4 tail (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) stands for the last two groups.
    const v4 = lastColon < 0 ? null : ipv4Bytes(text.slice(lastColon + 1));
    if (!v4) return null;
    tail = v4;
    const head = text.slice(0, lastColon + 1);
    body = head.endsWith("::") ? head : head.slice(0, -1);
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const groupsOf = (part: string | undefined): string[] | null => {
    if (!part) return [];
    const groups = part.split(":");
    return groups.every((g) => /^[0-9a-f]{1,4}$/.test(g)) ? groups : null;
  };
  const left = groupsOf(halves[0]);
  const right = halves.length === 2 ? groupsOf(halves[1]) : [];
  if (!left || !right) return null;
  const total = 8 - tail.length / 2;
  const written = left.length + right.length;
  if (halves.length === 2 ? written > total - 1 : written !== total) return null;
  const groups = [...left, ...Array<string>(total - written).fill("0"), ...right];
  const bytes = groups.flatMap((g) => {
    const value = Number.parseInt(g, 16);
    return [value >> 8, value & 255];
  });
  return [...bytes, ...tail];
}

function formatIpv6(bytes: number[]): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(":");
}

type Parsed = { family: "ipv4" | "ipv6"; bytes: number[] };

function parseBytes(raw: string): Parsed | null {
  let value = raw.trim().toLowerCase();
  const bracketed = value.match(/^\[([^\]]+)\](?::\d{1,5})?$/);
  if (bracketed?.[1]) value = bracketed[1];
  else if (/^[0-9.]+:\d{1,5}$/.test(value)) value = value.slice(0, value.lastIndexOf(":"));
  const zone = value.indexOf("%");
  if (zone > 0 && value.includes(":")) value = value.slice(0, zone);
  const v4 = ipv4Bytes(value);
  if (v4) return { family: "ipv4", bytes: v4 };
  const v6 = ipv6Bytes(value);
  if (!v6) return null;
  // An IPv4-mapped address (::ffff:a.b.c.d) is that IPv4 address.
  if (v6.slice(0, 10).every((b) => b === 0) && v6[10] === 255 && v6[11] === 255)
    return { family: "ipv4", bytes: v6.slice(12) };
  return { family: "ipv6", bytes: v6 };
}

/**
 * One address: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1`, `[2001:db8::1]:443`, `::ffff:1.2.3.4` (an IPv4-mapped
 * address is its IPv4 address); a zone (`fe80::1%eth0`) is dropped. IPv6 comes back in full form without leading
 * zeros (`2001:db8:0:0:0:0:0:1`). Anything else (a name, an empty value, two addresses, `unknown`, obfuscated
 * RFC 7239 identifiers) is null.
 */
export function parseIpAddress(raw: string): IpAddress | null {
  const parsed = parseBytes(raw);
  if (!parsed) return null;
  return parsed.family === "ipv4"
    ? { address: parsed.bytes.join("."), family: "ipv4" }
    : { address: formatIpv6(parsed.bytes), family: "ipv6" };
}

/** The first four groups of an IPv6 address (its /64), e.g. `2001:db8:1:2`. */
export function ipv6Prefix64(ip: IpAddress): string {
  return ip.address.split(":").slice(0, 4).join(":");
}

/** 127.0.0.0/8 and ::1. */
export function isLoopbackAddress(ip: IpAddress): boolean {
  if (ip.family === "ipv4") return ip.address.startsWith("127.");
  return ip.address === "0:0:0:0:0:0:0:1";
}

/**
 * TRUSTED_PROXIES: comma-separated addresses or CIDR ranges, IPv4 and IPv6 (`10.0.0.0/8, 2001:db8::/32,
 * 192.0.2.7`). Throws on an entry that is neither; an empty value is an empty list.
 */
export function parseAddressRanges(value: string): AddressRange[] {
  const ranges: AddressRange[] = [];
  for (const entry of value.split(",")) {
    const text = entry.trim();
    if (text === "") continue;
    const slash = text.indexOf("/");
    const addressText = slash < 0 ? text : text.slice(0, slash);
    const parsed = /[[\]]|^[0-9.]+:\d+$/.test(addressText) ? null : parseBytes(addressText);
    if (!parsed) throw new Error(`"${text}" is not an IP address or CIDR range`);
    const max = parsed.bytes.length * 8;
    const bits = slash < 0 ? String(max) : text.slice(slash + 1);
    const prefix = Number(bits);
    if (!/^\d{1,3}$/.test(bits) || prefix > max)
      throw new Error(`"${text}": the prefix length must be 0-${max}`);
    ranges.push({ family: parsed.family, bytes: parsed.bytes, prefix });
  }
  return ranges;
}

/** True when `ip` is in one of `ranges` (IPv4-mapped IPv6 counts as IPv4, as `parseIpAddress` reads it). */
export function isInRanges(ranges: AddressRange[], ip: IpAddress): boolean {
  const parsed = parseBytes(ip.address);
  if (!parsed) return false;
  return ranges.some((range) => {
    if (range.family !== parsed.family) return false;
    let bits = range.prefix;
    for (let i = 0; bits > 0; i++, bits -= 8) {
      const mask = bits >= 8 ? 255 : (255 << (8 - bits)) & 255;
      if (((range.bytes[i] ?? 0) & mask) !== ((parsed.bytes[i] ?? 0) & mask)) return false;
    }
    return true;
  });
}
