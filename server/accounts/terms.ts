import type { Actor } from "@/server/context";
import { AppError } from "@/server/errors";

/**
 * Terms of service (issue 5). The current version and when it was published come from TOS_VERSION and
 * TOS_PUBLISHED_AT (defaults: the API version date). Verifying an email accepts the current version; when a
 * new version is published, verified accounts that have not accepted it get `tos_not_accepted` on writes
 * until they accept, and are cancelled (`90d_no_tos`) 90 days after it was published.
 */
export const TOS_GRACE_DAYS = 90;

export type Terms = { version: string; publishedAt: Date };

export function currentTerms(): Terms {
  const version = process.env.TOS_VERSION || "2026-05-12";
  const publishedAt = new Date(process.env.TOS_PUBLISHED_AT || "2026-05-12T00:00:00Z");
  return { version, publishedAt };
}

export function hasAcceptedCurrentTerms(tosAcceptedVersion: string | null): boolean {
  return tosAcceptedVersion === currentTerms().version;
}

/** Writes by a verified user account that has not accepted the current terms: 403 type `tos_not_accepted`. */
export function assertTermsAcceptedForWrite(actor: Actor): void {
  if (actor.kind !== "user" || actor.accountStatus !== "verified") return;
  if (hasAcceptedCurrentTerms(actor.tosAcceptedVersion)) return;
  const terms = currentTerms();
  throw new AppError("tos_not_accepted", {
    nextActions: [
      {
        label: `Accept the terms of service version ${terms.version}`,
        method: "POST",
        url: "/v1/me/accept-terms",
      },
    ],
  });
}
