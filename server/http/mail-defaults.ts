import { isLoopbackAddress, parseIpAddress } from "@/server/lib/ip";

/** `localhost` or a loopback address (127.x.x.x, ::1). */
export function isLoopbackHost(host: string): boolean {
  if (host === "localhost") return true;
  const ip = parseIpAddress(host);
  return ip !== null && isLoopbackAddress(ip);
}

/**
 * The production start without SMTP_URL and without DEV_MAIL (README's quick start, `npm install && npm start`):
 * it listens on 127.0.0.1 unless HOST says otherwise, and shows mail at /dev/mail exactly when it listens on
 * loopback only. So a new user reads their sign-in code in a browser on the same machine, and an instance
 * reachable from elsewhere never shows codes (docs/security.md, "/dev/mail"). Run on `process.env` before the
 * first `env()`.
 */
export function applyMailDefaults(vars: Record<string, string | undefined>): void {
  if (vars.NODE_ENV !== "production" || vars.SMTP_URL || vars.DEV_MAIL) return;
  vars.HOST ??= "127.0.0.1";
  if (isLoopbackHost(vars.HOST)) vars.DEV_MAIL = "1";
}
