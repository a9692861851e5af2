import type { Actor } from "@/server/context";
import { env } from "@/server/env";
import { AppError } from "@/server/errors";

/**
 * Terms of service (docs/api.md, "Terms of service"). The current version and when it was published come from
 * TOS_VERSION and TOS_PUBLISHED_AT. Verifying an email accepts the current version; when a new version is
 * published, verified accounts that have not accepted it get `tos_not_accepted` on writes until they accept,
 * and are cancelled (`90d_no_tos`) 90 days after it was published.
 */
export const TOS_GRACE_DAYS = 90;

export type Terms = { version: string; publishedAt: Date };

export function currentTerms(): Terms {
  const config = env();
  return { version: config.TOS_VERSION, publishedAt: new Date(config.TOS_PUBLISHED_AT) };
}

export function hasAcceptedCurrentTerms(tosAcceptedVersion: string | null): boolean {
  return tosAcceptedVersion === currentTerms().version;
}

/** Writes by a verified user account that has not accepted the current terms: 403 type `tos_not_accepted`. */
export function assertTermsAcceptedForWrite(actor: Actor): void {
  if (actor.kind !== "user" || actor.accountStatus !== "verified") return;
  if (hasAcceptedCurrentTerms(actor.tosAcceptedVersion)) return;
  throw new AppError("tos_not_accepted", {
    nextActions: [
      { label: `Accept the terms of service version ${currentTerms().version}`, operation: "acceptTerms" },
    ],
  });
}
