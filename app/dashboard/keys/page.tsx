import type { Metadata } from "next";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getT } from "@/app/_i18n/server";
import { getServerCaller } from "@/app/_trpc/server";
import { Shell } from "../_components/shell";
import { requireSignedInAccount } from "../_lib/session";
import { KeysManager } from "./keys-manager";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("keys.title") };
}

/** /dashboard/keys: the account's API keys; create (shown once) and revoke (docs/ui.md, "API keys"). */
export default async function KeysPage() {
  const [{ account }, t, caller] = await Promise.all([requireSignedInAccount(), getT(), getServerCaller()]);
  const keys = await caller.accounts.listKeys();
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current="/dashboard/keys"
    >
      <PageHeader title={t("keys.title")} description={t("keys.description")} />
      <KeysManager initialKeys={keys} />
    </Shell>
  );
}
