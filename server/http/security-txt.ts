import { env } from "@/server/env";

/**
 * `/.well-known/security.txt` (RFC 9116): where to report a vulnerability (docs/security.md, "How to report a
 * vulnerability"). SECURITY_CONTACT is an email address or a URL; unset, `security@` APP_URL's domain.
 */
export function securityTxt(now: Date): string {
  const config = env();
  const contact = config.SECURITY_CONTACT ?? `security@${new URL(config.APP_URL).hostname}`;
  const uri = /^[a-z][a-z0-9+.-]*:/i.test(contact) ? contact : `mailto:${contact}`;
  // RFC 9116 wants an expiry under a year away; the file is written on every request, so it never goes stale.
  const expires = new Date(now.getTime() + 180 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
  return [
    `Contact: ${uri}`,
    `Expires: ${expires}`,
    "Preferred-Languages: en, es, pt",
    `Canonical: ${config.APP_URL}/.well-known/security.txt`,
    "",
  ].join("\n");
}
