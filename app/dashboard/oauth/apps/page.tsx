import type { Metadata } from "next";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getT } from "@/app/_i18n/server";
import { Shell } from "../../_components/shell";
import { requireSignedInAccount } from "../../_lib/session";
import { ConnectedApps } from "../_components/connected-apps";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("oauth.apps.title") };
}

/** /dashboard/oauth/apps: the account's connected apps on a page of their own (docs/mcp.md, "Connected apps"). */
export default async function ConnectedAppsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const [{ account }, t] = await Promise.all([requireSignedInAccount(), getT()]);
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current="/dashboard/oauth/apps"
    >
      <PageHeader title={t("oauth.apps.title")} description={t("oauth.apps.description")} />
      <ConnectedApps
        next="/dashboard/oauth/apps"
        showHeader={false}
        disconnected={typeof params.disconnected === "string" ? params.disconnected : null}
        error={typeof params.error === "string" ? params.error : null}
      />
    </Shell>
  );
}
