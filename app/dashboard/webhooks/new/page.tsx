import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getT } from "@/app/_i18n/server";
import { Shell } from "../../_components/shell";
import { requireSignedInAccount } from "../../_lib/session";
import { EndpointForm } from "../_components/endpoint-form";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("webhooks.new.title") };
}

/** /dashboard/webhooks/new: add an endpoint; the signing secret is shown once on success (docs/ui.md, "Webhooks"). */
export default async function NewEndpointPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [{ account }, t, params] = await Promise.all([requireSignedInAccount(), getT(), searchParams]);
  const scope = params.scope === "developer" && account.hasDeveloperKeys ? "developer" : "merchant";
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current="/dashboard/webhooks/new"
    >
      <p className="mb-2 text-sm">
        <Link href="/dashboard/webhooks">← {t("webhooks.back")}</Link>
      </p>
      <PageHeader title={t("webhooks.new.title")} description={t("webhooks.new.description")} />
      <EndpointForm initialScope={scope} canChooseScope={account.hasDeveloperKeys} />
    </Shell>
  );
}
