/** The scopes of API keys (docs/api.md, "Authentication"). */
export const SCOPES = {
  developerBootstrap: "developer:bootstrap",
  developerRead: "developer:read",
  developerIssueUserKey: "developer:issueUserKey",
  developerWebhooks: "developer:webhooks",
  catalogRead: "catalog:read",
  catalogWrite: "catalog:write",
  storefrontPublish: "storefront:publish",
  meVerify: "me:verify",
  meResendVerification: "me:resendVerification",
} as const;

export type Scope = (typeof SCOPES)[keyof typeof SCOPES];

export const DEVELOPER_KEY_SCOPES: Scope[] = [
  SCOPES.developerBootstrap,
  SCOPES.developerRead,
  SCOPES.developerIssueUserKey,
  SCOPES.developerWebhooks,
];

/** A user key of an account that has not verified its email yet. */
export const UNVERIFIED_USER_SCOPES: Scope[] = [
  SCOPES.catalogRead,
  SCOPES.catalogWrite,
  SCOPES.meVerify,
  SCOPES.meResendVerification,
];

/** A user key of a verified account (after verify, from the dashboard, or issued for a verified user). */
export const VERIFIED_USER_SCOPES: Scope[] = [
  SCOPES.catalogRead,
  SCOPES.catalogWrite,
  SCOPES.storefrontPublish,
];

export const WEBHOOK_SCOPES: Scope[] = [SCOPES.developerWebhooks, SCOPES.developerBootstrap];

export function userScopesFor(status: "unverified" | "verified" | "cancelled"): Scope[] {
  return status === "verified" ? VERIFIED_USER_SCOPES : UNVERIFIED_USER_SCOPES;
}
