/**
 * The Host names pages answer for (docs/security.md, "Host names"): APP_URL's and MCP_URL's, and the loopback names
 * (`localhost`, `*.localhost`, `127.x.x.x`, `[::1]`, any port) in development or when the request comes from this
 * machine. A page asked for under any other name is refused, so a web page that points its own name at a local
 * instance (DNS rebinding) cannot read it: the browser sends that page's name as Host. /mcp checks its own names
 * (docs/mcp.md).
 */

export type HostPolicy = {
  /** Base URLs whose host (and port) are this service's: APP_URL, MCP_URL. */
  urls: string[];
};

type HostPort = { name: string; port: string };

function defaultPort(protocol: string): string {
  return protocol === "https:" ? "443" : "80";
}

/** `name[:port]` of a Host header, lowercased, without a trailing dot; null when it is not one. */
function splitHost(value: string): { name: string; port: string | null } | null {
  const text = value.trim().toLowerCase();
  const match = text.match(/^(\[[0-9a-f:.]+\]|[^\s:/[\]@]+)(?::(\d{1,5}))?$/);
  if (!match?.[1]) return null;
  return { name: match[1].replace(/\.$/, ""), port: match[2] ?? null };
}

function isLoopbackName(name: string): boolean {
  return (
    name === "localhost" ||
    name.endsWith(".localhost") ||
    name === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
  );
}

const parsedPolicies = new Map<string, HostPort & { protocol: string }>();

function hostOf(url: string): HostPort & { protocol: string } {
  let parsed = parsedPolicies.get(url);
  if (!parsed) {
    const u = new URL(url);
    parsed = {
      name: u.hostname.toLowerCase(),
      port: u.port || defaultPort(u.protocol),
      protocol: u.protocol,
    };
    parsedPolicies.set(url, parsed);
  }
  return parsed;
}

/**
 * True when `host` (the request's Host header) is one of `policy.urls`' hosts with its port (a missing port is
 * the URL scheme's default), or a loopback name when `allowLoopbackNames`.
 */
export function isAllowedHost(
  host: string | null | undefined,
  policy: HostPolicy,
  allowLoopbackNames: boolean,
): boolean {
  if (!host) return false;
  const requested = splitHost(host);
  if (!requested) return false;
  if (allowLoopbackNames && isLoopbackName(requested.name)) return true;
  return policy.urls.some((url) => {
    const own = hostOf(url);
    return own.name === requested.name && own.port === (requested.port ?? defaultPort(own.protocol));
  });
}
