import { ACCOUNT_OPERATIONS } from "@/server/accounts/operations";
import { EVENT_OPERATIONS } from "@/server/events/operations";
import { FILE_OPERATIONS } from "@/server/files/operations";
import type { McpScope } from "@/server/gate/oauth-scopes";
import type { Scope } from "@/server/gate/scopes";
import { LISTEN_OPERATIONS } from "@/server/listen/operations";
import { OAUTH_OPERATIONS } from "@/server/oauth/operations";
import { isOperationIn, type OperationDefinition } from "@/server/operations";
import { ORDER_OPERATIONS } from "@/server/orders/operations";
import { OVERVIEW_OPERATIONS } from "@/server/overview/operations";
import { PRODUCT_OPERATIONS } from "@/server/products/operations";
import { STOREFRONT_OPERATIONS } from "@/server/storefronts/operations";
import { WEBHOOK_OPERATIONS } from "@/server/webhooks/operations";

/** Every operation of the service, gathered from the feature folders. Names are the REST operationIds. */
export const OPERATIONS = {
  ...ACCOUNT_OPERATIONS,
  ...STOREFRONT_OPERATIONS,
  ...PRODUCT_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...EVENT_OPERATIONS,
  ...LISTEN_OPERATIONS,
  ...FILE_OPERATIONS,
  ...ORDER_OPERATIONS,
  ...OAUTH_OPERATIONS,
  ...OVERVIEW_OPERATIONS,
} satisfies Record<string, OperationDefinition<Scope, McpScope>>;

export type OperationName = keyof typeof OPERATIONS;

export function isOperationName(name: string): name is OperationName {
  return isOperationIn(OPERATIONS, name);
}

/** Whether the operation of this name commits its own writes (`commitsOwnWrites`); false for any other name. */
export function commitsOwnWrites(name: string): boolean {
  if (!isOperationName(name)) return false;
  const definition: OperationDefinition = OPERATIONS[name];
  return definition.commitsOwnWrites === true;
}
