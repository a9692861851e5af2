import type { Metadata } from "next";
import Link from "next/link";
import { Badge } from "@/app/_components/ui/badge";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Table, TableContainer, TBody, Td, THead, Th, Tr } from "@/app/_components/ui/table";
import { plural } from "@/app/_i18n/catalogue";
import { getLanguage, getT } from "@/app/_i18n/server";
import { getServerCaller } from "@/app/_trpc/server";
import { Shell } from "../_components/shell";
import { requireSignedInAccount } from "../_lib/session";
import { CreateStorefront } from "./_components/create-storefront";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("nav.storefronts") };
}

const TONES = { published: "success", hidden: "warning", draft: "neutral" } as const;

/** /dashboard/storefronts: the account's storefronts and "New storefront" (docs/ui.md, "Storefronts"). */
export default async function StorefrontsPage() {
  const [{ account }, t, language, caller] = await Promise.all([
    requireSignedInAccount(),
    getT(),
    getLanguage(),
    getServerCaller(),
  ]);
  const { data, usage } = await caller.storefronts.list();
  const dates = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current="/dashboard/storefronts"
    >
      <PageHeader
        title={t("nav.storefronts")}
        description={plural(t, language, "storefronts.list.description", {
          used: data.length,
          count: usage.limits.storefronts,
          plan: usage.plan,
        })}
        actions={<CreateStorefront usage={usage} defaultLanguage={account.language ?? language} />}
      />
      {data.length === 0 ? (
        <EmptyState title={t("storefronts.list.emptyTitle")} description={t("storefronts.list.emptyBody")} />
      ) : (
        <TableContainer label={t("nav.storefronts")}>
          <Table>
            <THead>
              <Tr>
                <Th>{t("storefronts.list.name")}</Th>
                <Th>{t("storefronts.list.status")}</Th>
                <Th className="text-right">{t("storefronts.list.products")}</Th>
                <Th>{t("storefronts.list.updated")}</Th>
              </Tr>
            </THead>
            <TBody>
              {data.map((store) => (
                <Tr key={store.id}>
                  <Td>
                    <Link
                      href={`/dashboard/storefronts/${store.id}`}
                      className="font-medium text-primary underline-offset-2 hover:underline"
                    >
                      {store.name}
                    </Link>
                    {store.publicUrl ? (
                      <div className="mt-0.5 text-xs text-muted">/s/{store.slug}</div>
                    ) : null}
                  </Td>
                  <Td>
                    <Badge tone={TONES[store.status]}>{t(`storefronts.status.${store.status}`)}</Badge>
                  </Td>
                  <Td className="text-right tabular-nums">
                    <Link
                      href={`/dashboard/storefronts/${store.id}/products`}
                      className="text-primary underline-offset-2 hover:underline"
                      aria-label={plural(t, language, "storefronts.list.productsOf", {
                        count: store.productCount,
                        name: store.name,
                      })}
                    >
                      {store.productCount.toLocaleString(language)}
                    </Link>
                  </Td>
                  <Td className="whitespace-nowrap text-muted">
                    <time dateTime={store.updatedAt}>{dates.format(new Date(store.updatedAt))}</time>
                  </Td>
                </Tr>
              ))}
            </TBody>
          </Table>
        </TableContainer>
      )}
    </Shell>
  );
}
