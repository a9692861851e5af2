import { z } from "zod";
import { ListQuery } from "@/server/lib/pagination";
import { localizedError, pathId, text } from "@/server/validation";
import { DEVELOPER_KEY_RANGES } from "./limits";

export const Language = z.enum(["es", "en", "pt"]);
export const Plan = z.enum(["FREE_NEW", "FREE_OLD", "PRO"]);
export type Plan = z.infer<typeof Plan>;

/** POST /v1/users (docs/api.md, "Accounts and keys"). */
export const BootstrapUserInput = z
  .strictObject({
    email: z.email().max(254),
    name: text({ min: 1, max: 200 }).nullish(),
    language: Language.default("es"),
  })
  .meta({ id: "BootstrapUserInput" });
export type BootstrapUserInput = z.infer<typeof BootstrapUserInput>;

export const UserIdParams = z.strictObject({ userId: pathId("user_not_found") });

/** POST /v1/users/{userId}/keys */
export const IssueUserKeyInput = z
  .strictObject({ name: text({ min: 1, max: 100 }).nullish() })
  .meta({ id: "IssueUserKeyInput" });
export type IssueUserKeyInput = z.infer<typeof IssueUserKeyInput>;

export const UserDto = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    language: Language,
    status: z.enum(["unverified", "verified", "cancelled"]),
    plan: Plan,
    developerKeyId: z.string().nullable(),
    createdAt: z.string(),
    verifiedAt: z.string().nullable(),
  })
  .meta({ id: "User" });
export type UserDto = z.infer<typeof UserDto>;

export const KeyDto = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    prefix: z.string().meta({ description: "Display prefix of the key, e.g. `mk_user_ab12…`" }),
    scopes: z.array(z.string()),
    createdAt: z.string(),
  })
  .meta({ id: "ApiKey" });
export type KeyDto = z.infer<typeof KeyDto>;

export const BootstrapUserResponse = z.object({
  user: UserDto,
  userKey: z.string().meta({ description: "The raw `mk_user_*` key. Shown once; only its hash is stored." }),
});

export const IssueUserKeyResponse = z.object({
  key: KeyDto,
  userKey: z.string().meta({ description: "The raw `mk_user_*` key. Shown once." }),
});

export const PlanLimits = z.object({
  storefronts: z.number().int(),
  products: z.number().int(),
  publishable: z.boolean(),
});
export type PlanLimits = z.infer<typeof PlanLimits>;

export const MeDto = z
  .object({
    type: z.enum(["developer", "user"]),
    keyId: z.string(),
    keyName: z.string().nullable(),
    scopes: z.array(z.string()),
    account: z.object({
      id: z.string(),
      email: z.string(),
      status: z.enum(["unverified", "verified", "cancelled"]),
      plan: Plan,
      limits: PlanLimits,
    }),
    rateLimit: z.object({
      rpm: z.number().int(),
      rpd: z.number().int(),
      remainingMinute: z.number().int().meta({ description: "Approximate." }),
      remainingDay: z.number().int(),
    }),
    _links: z.object({ upgradeUrl: z.string().optional() }),
  })
  .meta({ id: "Me" });
export type MeDto = z.infer<typeof MeDto>;

/** POST /v1/me/verify */
export const VerifyEmailInput = z
  .strictObject({
    code: z
      .string()
      .max(6)
      .regex(/^\d{6}$/, {
        error: localizedError({
          en: "The code is the 6 digits from the mail.",
          es: "El código son los 6 dígitos del correo.",
          pt: "O código são os 6 dígitos do e-mail.",
        }),
      }),
  })
  .meta({ id: "VerifyEmailInput" });

/** POST /v1/me/accept-terms */
export const AcceptTermsInput = z
  .strictObject({ version: text({ min: 1, max: 50 }) })
  .meta({ id: "AcceptTermsInput" });

/**
 * The dashboard's keys page (docs/ui.md, "API keys"): one of the account's live keys, never its secret. `source`
 * `oauth` marks the per-user key an OAuth consent made (docs/mcp.md, "Connected apps").
 */
export const AccountKeyDto = z.object({
  id: z.string(),
  name: z.string().nullable(),
  prefix: z.string(),
  kind: z.enum(["developer", "user"]),
  scopes: z.array(z.string()),
  source: z.enum(["cli", "dashboard", "bootstrap", "api", "oauth"]),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  /** Requests per UTC day: a developer key's own budget; a user key's fixed one. */
  dailyLimit: z.number().int(),
});
export type AccountKeyDto = z.infer<typeof AccountKeyDto>;

/** A developer key's daily budget chosen in the dashboard (docs/ui.md, "API keys"): 1-10,000, default 50. */
export const DeveloperKeyDailyLimit = z.number().int().min(1).max(10_000);

/** An integer within one of the ranges an operator may give a developer key. */
function keyFigure(range: { min: number; max: number }) {
  return z.number().int().min(range.min).max(range.max);
}

/**
 * What an operator gives a new developer key (`createDeveloperKey`; CLI `dev-key create`, docs/operations.md,
 * "The command line"): requests per UTC day 1-10,000,000, per minute 1-1,000,000, and the account's own bootstrap
 * budget per UTC day 1-10,000,000. The service parses its input with it, so every caller meets the same ranges
 * (400 `invalid_request` naming the field); the CLI reads its options through the same fields.
 */
export const CreateDeveloperKeyInput = z.strictObject({
  email: z.email(),
  name: text({ min: 1, max: 100 }).nullish(),
  dailyLimit: keyFigure(DEVELOPER_KEY_RANGES.dailyLimit).optional(),
  rpm: keyFigure(DEVELOPER_KEY_RANGES.rpm).optional(),
  bootstrapDailyLimit: keyFigure(DEVELOPER_KEY_RANGES.dailyLimit).optional(),
});
export type CreateDeveloperKeyInput = z.infer<typeof CreateDeveloperKeyInput>;

/** Create a key for the signed-in account: a user key (verified accounts only) or a developer key. */
export const CreateAccountKeyInput = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("user"), name: text({ min: 1, max: 100 }).nullish() }),
  z.strictObject({
    kind: z.literal("developer"),
    name: text({ min: 1, max: 100 }),
    dailyLimit: DeveloperKeyDailyLimit.default(50),
  }),
]);
export type CreateAccountKeyInput = z.infer<typeof CreateAccountKeyInput>;

export const AccountKeyIdInput = z.strictObject({ keyId: pathId("api_key_not_found") });
export type AccountKeyIdInput = z.infer<typeof AccountKeyIdInput>;

/** What revoking a key will do, shown before the person confirms. */
export const KeyRevocationPreview = z.object({
  keyId: z.string(),
  kind: z.enum(["developer", "user"]),
  /** Developer keys: accounts it bootstrapped that are still unverified, cancelled with `key_revoked`. */
  unverifiedAccounts: z.number().int(),
  /** Developer keys: every account it bootstrapped that is still live; their order events stop. */
  liveAccounts: z.number().int(),
});
export type KeyRevocationPreview = z.infer<typeof KeyRevocationPreview>;

export const AccountStatus = z.enum(["unverified", "verified", "cancelled"]);

/** The developers page: the accounts this account's developer keys bootstrapped, filtered by status. */
export const ListPartnerUsersQuery = ListQuery.extend({ status: AccountStatus.optional() });
export type ListPartnerUsersQuery = z.infer<typeof ListPartnerUsersQuery>;

export const PartnerUserDto = UserDto.extend({
  developerKey: z.object({
    id: z.string(),
    name: z.string().nullable(),
    prefix: z.string(),
    revoked: z.boolean(),
  }),
  storefronts: z.number().int(),
});
export type PartnerUserDto = z.infer<typeof PartnerUserDto>;

/** The account page (docs/ui.md, "Account"). */
export const AccountOverviewDto = z.object({
  id: z.string(),
  email: z.string(),
  status: AccountStatus,
  verifiedAt: z.string().nullable(),
  createdAt: z.string(),
  language: Language,
  plan: Plan,
  limits: PlanLimits,
  usage: z.object({ storefronts: z.number().int(), products: z.number().int() }),
  /** Where to upgrade, unless the plan is already the top one. */
  upgradeUrl: z.string().nullable(),
  terms: z.object({
    currentVersion: z.string(),
    acceptedVersion: z.string().nullable(),
    isAccepted: z.boolean(),
  }),
  hasDeveloperKeys: z.boolean(),
  /** The developer partner that bootstrapped the account, and what it may do (docs/api.md, "Partner access"). */
  partner: z
    .object({
      email: z.string(),
      name: z.string().nullable(),
      /** The partner may issue new keys for this account. */
      hasAccess: z.boolean(),
      /** The key that bootstrapped the account is still live (revoked: the partner is detached for good). */
      isKeyLive: z.boolean(),
      /** Live user keys the partner holds for this account (made at bootstrap or issued since). */
      liveKeys: z.number().int(),
    })
    .nullable(),
});
export type AccountOverviewDto = z.infer<typeof AccountOverviewDto>;

/** The owner grants or takes away the partner's access (docs/api.md, "Partner access"). */
export const SetPartnerAccessInput = z.strictObject({ hasAccess: z.boolean() });
export type SetPartnerAccessInput = z.infer<typeof SetPartnerAccessInput>;

export const SetAccountLanguageInput = z.strictObject({ language: Language });
export type SetAccountLanguageInput = z.infer<typeof SetAccountLanguageInput>;
