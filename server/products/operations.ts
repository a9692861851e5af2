import { authorizerFor } from "@/server/gate/authorize";
import { SCOPES } from "@/server/gate/scopes";
import type { OperationDefinition } from "@/server/operations";

/** Products (docs/api.md, "Products"). */
export const PRODUCT_OPERATIONS = {
  createProduct: { scopes: [SCOPES.catalogWrite], access: "write", oauthScope: "marea.write" },
  createProductsBatch: { scopes: [SCOPES.catalogWrite], access: "write" },
  listProducts: { scopes: [SCOPES.catalogRead], access: "read", oauthScope: "marea.read" },
  getProduct: { scopes: [SCOPES.catalogRead], access: "read" },
  updateProduct: { scopes: [SCOPES.catalogWrite], access: "write", oauthScope: "marea.write" },
  deleteProduct: { scopes: [SCOPES.catalogWrite], access: "write", oauthScope: "marea.write" },
} as const satisfies Record<string, OperationDefinition>;

/** `authorize` (server/gate/authorize.ts) over these operations: what this feature's services call first. */
export const authorize = authorizerFor(PRODUCT_OPERATIONS);
