import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { Badge, statusTone } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import {
  Card,
  CardContent,
  CardDescription,
  CardFooter,
  CardHeader,
  CardTitle,
} from "@/app/_components/ui/card";
import { CodeBlock } from "@/app/_components/ui/code-block";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { Notice } from "@/app/_components/ui/notice";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Skeleton } from "@/app/_components/ui/skeleton";
import { Table, TableCaption, TableContainer, TBody, Td, THead, Th, Tr } from "@/app/_components/ui/table";
import { getLanguage, getT } from "@/app/_i18n/server";
import { env } from "@/server/env";
import { ERROR_CATALOGUE } from "@/server/errors";
import { isLoopbackPeer } from "@/server/sessions/client-ip";
import { InteractiveGallery } from "./gallery";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("gallery.title") };
}

const STATUSES = ["verified", "unverified", "cancelled", "delivered", "pending", "failed", "paused"] as const;

/**
 * /dev/ui: every primitive of app/_components/ui on one page, in the current language and theme, so the browser
 * tests can run axe over all of them and take screenshots in light and dark. No data, nothing to protect; still, in
 * production it answers only a browser on the server's own machine (the socket's peer is loopback), so it is no
 * part of a deployment's public face (docs/security.md, "Development pages").
 */
export default async function UiGalleryPage() {
  if (env().NODE_ENV === "production" && !isLoopbackPeer(await headers())) notFound();
  const [t, language] = await Promise.all([getT(), getLanguage()]);
  return (
    <main className="mx-auto max-w-5xl space-y-10 px-4 py-8 sm:px-6">
      <PageHeader
        title={t("gallery.title")}
        description={t("gallery.description")}
        actions={<Button variant="secondary">{t("gallery.secondaryAction")}</Button>}
      />

      <section aria-labelledby="gallery-buttons" className="space-y-4">
        <h2 id="gallery-buttons" className="text-lg font-semibold">
          {t("gallery.buttons")}
        </h2>
        <div className="flex flex-wrap items-center gap-2">
          <Button>{t("gallery.primary")}</Button>
          <Button variant="secondary">{t("gallery.secondary")}</Button>
          <Button variant="ghost">{t("gallery.ghost")}</Button>
          <Button variant="danger">{t("gallery.danger")}</Button>
          <Button variant="link">{t("gallery.link")}</Button>
          <Button loading>{t("common.saving")}</Button>
          <Button size="sm">{t("gallery.small")}</Button>
          <Button size="lg">{t("gallery.large")}</Button>
          <Button disabled>{t("gallery.disabled")}</Button>
        </div>
      </section>

      <section aria-labelledby="gallery-badges" className="space-y-4">
        <h2 id="gallery-badges" className="text-lg font-semibold">
          {t("gallery.badges")}
        </h2>
        <div className="flex flex-wrap gap-2">
          {STATUSES.map((status) => (
            <Badge key={status} tone={statusTone(status)}>
              {t(`status.${status}`)}
            </Badge>
          ))}
          <Badge tone="info">{t("plan.PRO")}</Badge>
        </div>
        <Notice tone="info">{t("gallery.noticeInfo")}</Notice>
        <Notice tone="success">{t("common.saved")}</Notice>
        <Notice tone="danger">{ERROR_CATALOGUE.sign_in_rate_limited.messages[language]}</Notice>
      </section>

      <InteractiveGallery urlError={ERROR_CATALOGUE.invalid_webhook_url.messages[language]} />

      <section aria-labelledby="gallery-data" className="space-y-4">
        <h2 id="gallery-data" className="text-lg font-semibold">
          {t("gallery.data")}
        </h2>
        <Card>
          <CardHeader>
            <CardTitle as="h3">{t("gallery.cardTitle")}</CardTitle>
            <CardDescription>{t("gallery.cardDescription")}</CardDescription>
          </CardHeader>
          <CardContent>
            <CodeBlock
              value="mk_user_7Qx2Lr9KcT4vWb8Nf3Zp6Hs1Jd5Gm0Ya"
              label={t("gallery.keyLabel")}
              copyLabel={t("gallery.copyKey")}
            />
          </CardContent>
          <CardFooter>
            <Button size="sm">{t("common.done")}</Button>
          </CardFooter>
        </Card>
        <TableContainer label={t("gallery.tableCaption")}>
          <Table>
            <TableCaption>{t("gallery.tableCaption")}</TableCaption>
            <THead>
              <Tr>
                <Th>{t("gallery.colEvent")}</Th>
                <Th>{t("gallery.colStatus")}</Th>
                <Th>{t("gallery.colAttempts")}</Th>
                <Th>{t("gallery.colEndpoint")}</Th>
              </Tr>
            </THead>
            <TBody>
              {(
                [
                  ["order.created", "delivered", 1],
                  ["order.paid", "pending", 2],
                  ["user.cancelled", "failed", 3],
                ] as const
              ).map(([event, status, attempts]) => (
                <Tr key={event}>
                  <Td className="font-mono text-xs">{event}</Td>
                  <Td>
                    <Badge tone={statusTone(status)}>{t(`status.${status}`)}</Badge>
                  </Td>
                  <Td>{attempts}</Td>
                  <Td className="font-mono text-xs whitespace-nowrap">https://example.com/hooks/marea</Td>
                </Tr>
              ))}
            </TBody>
          </Table>
        </TableContainer>
        <div className="space-y-2" aria-busy="true">
          <p className="sr-only">{t("common.loading")}</p>
          <Skeleton className="h-4 w-2/3" />
          <Skeleton className="h-4 w-1/2" />
          <Skeleton className="h-10 w-full" />
        </div>
        <EmptyState
          headingLevel="h3"
          title={t("gallery.emptyTitle")}
          description={t("gallery.emptyDescription")}
          action={<Button>{t("gallery.emptyAction")}</Button>}
        />
      </section>
    </main>
  );
}
