import type { Metadata } from "next";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getT } from "@/app/_i18n/server";
import { Shell } from "./_components/shell";
import { requireSignedInAccount } from "./_lib/session";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("nav.overview") };
}

/**
 * PLACEHOLDER overview, so that sign-in has somewhere to land and the shell can be seen and tested. The lead
 * replaces it with the real overview wired to data.
 */
export default async function OverviewPage() {
  const [{ account }, t] = await Promise.all([requireSignedInAccount(), getT()]);
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current="/dashboard"
    >
      <PageHeader title={t("nav.overview")} description={t("dashboard.overview.description")} />
      <EmptyState
        title={t("dashboard.overview.emptyTitle")}
        description={t("dashboard.overview.emptyBody")}
      />
    </Shell>
  );
}
