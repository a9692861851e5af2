"use client";

import { Badge } from "@/app/_components/ui/badge";
import { useT } from "@/app/_i18n/client";

/**
 * The "connected app" mark of a per-user key an OAuth consent made (docs/mcp.md, "Connected apps"). The keys page
 * shows it on the keys whose id `listConnectedApps` returns (or whose `source` is `oauth`).
 */
export function ConnectedAppBadge({ appName }: { appName?: string | null }) {
  const t = useT();
  return (
    <Badge tone="info" title={appName ? t("oauth.badge.title", { app: appName }) : undefined}>
      {t("oauth.badge.connectedApp")}
    </Badge>
  );
}
