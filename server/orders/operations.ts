import { authorizerFor } from "@/server/gate/authorize";
import { SCOPES } from "@/server/gate/scopes";
import type { OperationDefinition } from "@/server/operations";

/** Orders (docs/api.md, "Orders"). Public orders from the storefront page have no actor and no operation here. */
export const ORDER_OPERATIONS = {
  createOrder: { scopes: [SCOPES.catalogWrite], access: "write" },
  listOrders: { scopes: [SCOPES.catalogRead], access: "read", oauthScope: "marea.read" },
  getOrder: { scopes: [SCOPES.catalogRead], access: "read" },
  updateOrderStatus: { scopes: [SCOPES.catalogWrite], access: "write", oauthScope: "marea.write" },
  payOrder: { scopes: [SCOPES.catalogWrite], access: "write" },
} as const satisfies Record<string, OperationDefinition>;

/** `authorize` (server/gate/authorize.ts) over these operations: what this feature's services call first. */
export const authorize = authorizerFor(ORDER_OPERATIONS);
