import { authorizerFor } from "@/server/gate/authorize";
import { SCOPES } from "@/server/gate/scopes";
import type { OperationDefinition } from "@/server/operations";

/** Storefronts (docs/api.md, "Storefronts"). */
export const STOREFRONT_OPERATIONS = {
  createStorefront: { scopes: [SCOPES.catalogWrite], access: "write", oauthScope: "marea.write" },
  listStorefronts: { scopes: [SCOPES.catalogRead], access: "read", oauthScope: "marea.read" },
  getStorefront: { scopes: [SCOPES.catalogRead], access: "read", oauthScope: "marea.read" },
  updateStorefront: { scopes: [SCOPES.catalogWrite], access: "write", oauthScope: "marea.write" },
  deleteStorefront: { scopes: [SCOPES.catalogWrite], access: "write" },
  publishStorefront: { scopes: [SCOPES.storefrontPublish], access: "write", oauthScope: "marea.publish" },
  unpublishStorefront: { scopes: [SCOPES.storefrontPublish], access: "write", oauthScope: "marea.publish" },
  // Settings outside the /v1 Storefront object, edited in the dashboard only (docs/api.md, "Storefront settings").
  getStorefrontSettings: { scopes: [SCOPES.catalogRead], access: "read", via: ["session"] },
  updateStorefrontSettings: { scopes: [SCOPES.catalogWrite], access: "write", via: ["session"] },
  // A developer reads the storefronts of the accounts it bootstrapped (GraphQL `User.storefronts`).
  listBootstrappedUserStorefronts: { scopes: [SCOPES.developerRead], access: "read" },
} as const satisfies Record<string, OperationDefinition>;

/** `authorize` (server/gate/authorize.ts) over these operations: what this feature's services call first. */
export const authorize = authorizerFor(STOREFRONT_OPERATIONS);
