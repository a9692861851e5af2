import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { getT } from "@/app/_i18n/server";
import { getServerCaller } from "@/app/_trpc/server";
import { isAppError } from "@/server/errors";
import type { StorefrontEditorDto } from "@/server/storefronts/dto";
import { Shell } from "../../_components/shell";
import { requireSignedInAccount } from "../../_lib/session";
import { StorefrontEditor } from "./_components/editor";

type Params = { params: Promise<{ id: string }> };

/** The editor's data (once per request: metadata and page share it), or what to show instead: 404 for an unknown or foreign id, a notice for a deleted one (410). */
const load = cache(async (id: string): Promise<StorefrontEditorDto | "deleted"> => {
  const caller = await getServerCaller();
  try {
    return await caller.storefronts.editor({ storefrontId: id });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    if (isAppError(cause) && cause.code === "storefront_deleted") return "deleted";
    if (isAppError(cause) && cause.code === "storefront_not_found") notFound();
    throw error;
  }
});

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const [{ id }, t] = await Promise.all([params, getT()]);
  const editor = await load(id);
  return { title: editor === "deleted" ? t("storefronts.deleted.title") : editor.storefront.name };
}

/** /dashboard/storefronts/{id}: the storefront editor (docs/ui.md, "Storefronts"). */
export default async function StorefrontEditorPage({ params }: Params) {
  const [{ id }, { account }, t] = await Promise.all([params, requireSignedInAccount(), getT()]);
  const editor = await load(id);
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current="/dashboard/storefronts"
    >
      {editor === "deleted" ? (
        <>
          <h1 className="mb-6 text-2xl font-semibold tracking-tight">{t("storefronts.deleted.title")}</h1>
          <EmptyState
            title={t("storefronts.deleted.title")}
            description={t("storefronts.deleted.body")}
            action={
              <Link href="/dashboard/storefronts" className="text-primary underline">
                {t("storefronts.backToList")}
              </Link>
            }
          />
        </>
      ) : (
        <StorefrontEditor initial={editor} />
      )}
    </Shell>
  );
}
