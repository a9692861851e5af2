import { accountTools } from "@/server/accounts/mcp";
import { eventTools } from "@/server/events/mcp";
import { fileTools } from "@/server/files/mcp";
import { createMcpDoor } from "@/server/mcp/http";
import type { ToolDefinition } from "@/server/mcp/tool";
import { orderTools } from "@/server/orders/mcp";
import { productTools } from "@/server/products/mcp";
import { storefrontResources, storefrontTools } from "@/server/storefronts/mcp";
import { webhookTools } from "@/server/webhooks/mcp";

/** Every MCP tool, in the order `tools/list` shows them (deterministic, so clients can cache the list). */
export const TOOLS: readonly ToolDefinition[] = [
  ...accountTools.slice(0, 1),
  ...storefrontTools,
  ...productTools,
  ...fileTools,
  ...orderTools,
  ...webhookTools,
  ...eventTools,
  ...accountTools.slice(1),
];

/** {mcp_url} (docs/mcp.md): the MCP door over every tool and the storefront resources. */
export const handleMcpRequest = createMcpDoor({ tools: TOOLS, resources: storefrontResources });
