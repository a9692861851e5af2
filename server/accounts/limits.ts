/**
 * The abuse limits of accounts and keys (docs/api.md, "Accounts and keys", "Account lifecycle"; docs/security.md,
 * "Abuse limits and product decisions"), in one place.
 */

const DAY_SECONDS = 24 * 60 * 60;

/** Email verification codes of bootstrapped accounts (POST /v1/me/verify and resend-verification). */
export const VERIFICATION_LIMITS = {
  /** Wrong codes allowed per code; after that the code is void and a new one must be requested. */
  triesPerCode: 5,
  /** Per account and UTC day: tries of /v1/me/verify, and new codes mailed by resend-verification. */
  triesPerDay: 10,
  resendsPerDay: 5,
  /**
   * Per account, for ever (a resend does not reset them): past either, the account cannot be verified through
   * the API; the person can still sign in with the address, and a partner must cancel it and bootstrap again.
   */
  triesInAll: 20,
  codesInAll: 10,
  windowSeconds: DAY_SECONDS,
} as const;

/** Live keys an account may hold, by how they are made (the dashboard, and a partner's POST /v1/users/{id}/keys). */
export const KEY_LIMITS = { developerKeys: 10, userKeys: 100 } as const;

/**
 * What a developer key may be given at issuance (`CreateDeveloperKeyInput`, which the CLI's `dev-key create`
 * reads its options through; the dashboard's own range is narrower).
 */
export const DEVELOPER_KEY_RANGES = {
  dailyLimit: { min: 1, max: 10_000_000 },
  rpm: { min: 1, max: 1_000_000 },
} as const;

/** POST /v1/users: bootstraps per developer account, whatever key it uses. */
export const BOOTSTRAP_LIMITS = {
  /** Accounts bootstrapped per UTC day; an operator can set another figure per account (`dev-key create`). */
  perDay: 100,
  /** Answers 409 `email_taken` per UTC day: past it, no bootstrap at all until the next day. */
  takenPerDay: 20,
  /** Bootstraps of one address (across every developer) per 30 days. */
  perAddress: 3,
  addressWindowSeconds: 30 * DAY_SECONDS,
  windowSeconds: DAY_SECONDS,
} as const;
