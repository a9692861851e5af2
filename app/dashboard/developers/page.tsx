import type { Metadata } from "next";
import Link from "next/link";
import { Badge, statusTone } from "@/app/_components/ui/badge";
import { buttonClasses } from "@/app/_components/ui/button";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Table, TableCaption, TableContainer, TBody, Td, THead, Th, Tr } from "@/app/_components/ui/table";
import { getLanguage, getT } from "@/app/_i18n/server";
import { getServerCaller } from "@/app/_trpc/server";
import { docsHref } from "@/app/docs/_lib/links";
import { Shell } from "../_components/shell";
import { formatDate, formatNumber } from "../_lib/format";
import { requireSignedInAccount } from "../_lib/session";
import { IssueUserKey } from "./issue-user-key";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("developers.title") };
}

const STATUSES = ["unverified", "verified", "cancelled"] as const;
type Status = (typeof STATUSES)[number];
const PAGE_SIZE = 25;

function one(value: string | string[] | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function hrefFor(status: Status | undefined, cursor?: string | null): string {
  const query = new URLSearchParams();
  if (status) query.set("status", status);
  if (cursor) query.set("cursor", cursor);
  const text = query.toString();
  return text ? `/dashboard/developers?${text}` : "/dashboard/developers";
}

/**
 * /dashboard/developers (docs/ui.md, "Developers"): the accounts this account's developer keys bootstrapped,
 * filtered by status in the URL (so the view survives a reload), with a user key issued for one, shown once.
 */
export default async function DevelopersPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const [{ account }, t, language] = await Promise.all([requireSignedInAccount(), getT(), getLanguage()]);
  const requested = one(params.status);
  const status = STATUSES.find((s) => s === requested);
  const cursor = one(params.cursor);
  const page = account.hasDeveloperKeys
    ? await (await getServerCaller()).accounts.listPartnerUsers({ status, cursor, limit: PAGE_SIZE })
    : null;
  const filters: Array<{ value: Status | undefined; label: string }> = [
    { value: undefined, label: t("developers.filterAll") },
    ...STATUSES.map((value) => ({ value, label: t(`status.${value}`) })),
  ];
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current="/dashboard/developers"
    >
      <PageHeader
        title={t("developers.title")}
        description={t("developers.description")}
        actions={
          <a href={docsHref()} className={buttonClasses("secondary")}>
            {t("home.docs")}
          </a>
        }
      />
      {!page ? (
        <EmptyState
          title={t("developers.noKeys")}
          description={t("developers.noKeysBody")}
          action={
            <Link href="/dashboard/keys" className={buttonClasses("primary")}>
              {t("nav.keys")}
            </Link>
          }
        />
      ) : (
        <div className="space-y-4">
          <nav aria-label={t("developers.filter")} className="flex flex-wrap gap-2">
            {filters.map((filter) => (
              <Link
                key={filter.value ?? "all"}
                href={hrefFor(filter.value)}
                aria-current={filter.value === status ? "page" : undefined}
                className="inline-flex items-center rounded-md border border-border-strong px-3 py-1.5 text-sm text-fg no-underline hover:bg-surface-muted hover:text-fg aria-[current=page]:border-primary aria-[current=page]:bg-primary-soft aria-[current=page]:font-semibold"
              >
                {filter.label}
              </Link>
            ))}
          </nav>
          {page.data.length === 0 ? (
            <EmptyState
              title={status ? t("developers.emptyFiltered") : t("developers.empty")}
              description={t("developers.emptyBody")}
            />
          ) : (
            <TableContainer label={t("developers.caption")}>
              <Table>
                <TableCaption className="sr-only">{t("developers.caption")}</TableCaption>
                <THead>
                  <Tr>
                    <Th>{t("developers.colEmail")}</Th>
                    <Th>{t("developers.colStatus")}</Th>
                    <Th>{t("developers.colVerified")}</Th>
                    <Th>{t("developers.colCreated")}</Th>
                    <Th>{t("developers.colKey")}</Th>
                    <Th className="text-right">{t("developers.colStorefronts")}</Th>
                    <Th>
                      <span className="sr-only">{t("developers.colActions")}</span>
                    </Th>
                  </Tr>
                </THead>
                <TBody>
                  {page.data.map((user) => (
                    <Tr key={user.id} data-testid="partner-user" data-user-id={user.id}>
                      <Td className="min-w-56 font-medium break-all text-fg">{user.email}</Td>
                      <Td>
                        <Badge tone={statusTone(user.status)}>{t(`status.${user.status}`)}</Badge>
                      </Td>
                      <Td className="whitespace-nowrap">
                        {user.verifiedAt
                          ? formatDate(user.verifiedAt, language)
                          : t("developers.notVerified")}
                      </Td>
                      <Td className="whitespace-nowrap">{formatDate(user.createdAt, language)}</Td>
                      <Td>
                        <div className="flex flex-wrap items-center gap-1.5">
                          <span>{user.developerKey.name ?? t("keys.unnamed")}</span>
                          <code className="text-xs whitespace-nowrap">{user.developerKey.prefix}</code>
                          {user.developerKey.revoked ? (
                            <Badge tone="danger">{t("developers.keyRevoked")}</Badge>
                          ) : null}
                        </div>
                      </Td>
                      <Td className="text-right">{formatNumber(user.storefronts, language)}</Td>
                      <Td className="text-right">
                        {user.status === "cancelled" ? null : (
                          <IssueUserKey userId={user.id} email={user.email} />
                        )}
                      </Td>
                    </Tr>
                  ))}
                </TBody>
              </Table>
            </TableContainer>
          )}
          {cursor || page.nextCursor ? (
            <nav aria-label={t("developers.caption")} className="flex flex-wrap justify-end gap-2">
              {cursor ? (
                <Link href={hrefFor(status)} className={buttonClasses("secondary", "sm")}>
                  {t("developers.first")}
                </Link>
              ) : null}
              {page.nextCursor ? (
                <Link href={hrefFor(status, page.nextCursor)} className={buttonClasses("secondary", "sm")}>
                  {t("developers.next")}
                </Link>
              ) : null}
            </nav>
          ) : null}
        </div>
      )}
    </Shell>
  );
}
