import type { ServiceContext } from "@/server/context";
import { authorizeOperator as authorizeOperatorOf, authorizerFor } from "@/server/gate/authorize";
import { SCOPES } from "@/server/gate/scopes";
import type { OperationDefinition } from "@/server/operations";

/** Accounts and keys (docs/api.md, "Accounts and keys"). */
export const ACCOUNT_OPERATIONS = {
  // A developer key bootstraps accounts; never a user key nor an OAuth grant, whatever their scopes
  // (docs/architecture.md, "Operations").
  bootstrapUser: {
    scopes: [SCOPES.developerBootstrap],
    access: "write",
    via: ["api_key"],
    kinds: ["developer"],
  },
  issueUserKey: { scopes: [SCOPES.developerIssueUserKey], access: "write", via: ["api_key", "session"] },
  // The accounts a developer's keys bootstrapped (GraphQL `Me.bootstrappedUsers`).
  listBootstrappedUsers: { scopes: [SCOPES.developerRead], access: "read" },
  // The key's own identity and budget: a session has no key.
  getMe: { scopes: [], access: "read", via: ["api_key", "oauth"], oauthScope: "marea.read" },
  // A wrong code stays counted although the answer is a 4xx: no door runs it in a transaction it rolls back.
  verifyEmail: {
    scopes: [SCOPES.meVerify],
    access: "write",
    via: ["api_key", "oauth"],
    commitsOwnWrites: true,
  },
  resendVerification: { scopes: [SCOPES.meResendVerification], access: "write" },
  cancelAccount: { scopes: [SCOPES.catalogWrite], access: "write", termsGate: false },
  acceptTerms: { scopes: [SCOPES.catalogWrite], access: "write", termsGate: false },
  // The dashboard's keys and account pages (docs/ui.md, "API keys", "Account"). Dashboard only on purpose: an API
  // key never lists, mints or revokes its account's keys (a developer key issues user keys through issueUserKey).
  listAccountKeys: { scopes: [SCOPES.catalogRead, SCOPES.developerRead], access: "read", via: ["session"] },
  createAccountKey: { scopes: [SCOPES.catalogWrite], access: "write", via: ["session"] },
  revokeAccountKey: { scopes: [SCOPES.catalogWrite], access: "write", via: ["session"] },
  getAccount: { scopes: [SCOPES.catalogRead, SCOPES.developerRead], access: "read", via: ["session"] },
  setAccountLanguage: { scopes: [SCOPES.catalogWrite], access: "write", via: ["session"] },
  // The owner's own control over the partner that bootstrapped the account (docs/api.md, "Partner access"): not
  // held back by new terms, like cancelling.
  setPartnerAccess: { scopes: [SCOPES.catalogWrite], access: "write", via: ["session"], termsGate: false },
  // The operator's (docs/architecture.md, "Actors"; docs/operations.md, "The command line"): the CLI and its admin
  // endpoint, never an actor of any door. No scope: `authorizeOperator` checks the context instead.
  createDeveloperKey: { scopes: [], access: "write", operator: true },
  setPlan: { scopes: [], access: "write", operator: true },
  revokeDeveloperKey: { scopes: [], access: "write", operator: true },
} as const satisfies Record<string, OperationDefinition>;

/** `authorize` (server/gate/authorize.ts) over these operations: what this feature's services call first. */
export const authorize = authorizerFor(ACCOUNT_OPERATIONS);

type OperatorOperation = {
  [K in keyof typeof ACCOUNT_OPERATIONS]: (typeof ACCOUNT_OPERATIONS)[K] extends { operator: true }
    ? K
    : never;
}[keyof typeof ACCOUNT_OPERATIONS];

/** `authorizeOperator` (server/gate/authorize.ts) over this feature's operator operations. */
export function authorizeOperator(ctx: ServiceContext, operation: OperatorOperation): void {
  authorizeOperatorOf(ctx, operation, ACCOUNT_OPERATIONS[operation]);
}
