import { z } from "zod";
import { localizedError, pathId, text } from "@/server/validation";

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
    code: z.string().regex(/^\d{6}$/, {
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
