import { env } from "@/server/env";
import { isAllowedHost } from "@/server/http/hosts";
import { isLocalRequest } from "@/server/sessions/client-ip";

type HeaderSource = { get(name: string): string | null };

/**
 * Whether this process keeps mail for `/dev/mail` at all (docs/security.md, "/dev/mail"): never with SMTP_URL
 * (mail is sent) or DEV_MAIL=0; with DEV_MAIL=1, always; otherwise only outside production. The production start
 * sets DEV_MAIL=1 itself when SMTP_URL is unset and it listens on loopback only (server/host/main.ts).
 */
export function isDevMailEnabled(): boolean {
  const config = env();
  if (config.SMTP_URL || config.DEV_MAIL === "0") return false;
  return config.DEV_MAIL === "1" || config.NODE_ENV !== "production";
}

/**
 * `/dev/mail` shows the outbox (sign-in and verification codes included) only when it is enabled AND the request
 * comes from this machine: the socket's peer is loopback and no proxy relayed it for someone else
 * (`isLocalRequest`), under one of this service's or a loopback Host name (a DNS-rebinding page sends its own).
 */
export function canReadDevMail(headers: HeaderSource): boolean {
  if (!isDevMailEnabled() || !isLocalRequest(headers)) return false;
  const config = env();
  return isAllowedHost(headers.get("host"), { urls: [config.APP_URL, config.MCP_URL] }, true);
}
