"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import { CodeBlock } from "@/app/_components/ui/code-block";
import { Notice } from "@/app/_components/ui/notice";
import { Table, TableContainer, TBody, Td, THead, Th, Tr } from "@/app/_components/ui/table";
import { useT } from "@/app/_i18n/client";
import { catalogueError, useTRPC } from "@/app/_trpc/client";
import type { ListenSessionList } from "@/server/listen/schema";
import { formatUtc } from "./format";

/** Refreshed while the page is open, so a terminal that starts or stops shows up without a reload. */
const REFRESH_MS = 5000;
const COMMAND = "npx marea listen --forward-to http://localhost:4000/hooks";

/**
 * The account's `marea listen` sessions with their state and a Close button (docs/ui.md, "Webhooks";
 * docs/webhooks.md, "Local development: marea listen").
 */
export function ListenSessions({ initial }: { initial: ListenSessionList }) {
  const t = useT();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const sessions =
    useQuery(
      trpc.listen.list.queryOptions(undefined, {
        initialData: initial,
        refetchInterval: REFRESH_MS,
        refetchIntervalInBackground: false,
      }),
    ).data ?? initial;
  const close = useMutation(trpc.listen.close.mutationOptions());
  const [notice, setNotice] = useState<{ tone: "success" | "danger"; text: string } | null>(null);

  const onClose = async (sessionId: string) => {
    setNotice(null);
    try {
      await close.mutateAsync({ sessionId });
      setNotice({ tone: "success", text: t("webhooks.listen.closed", { id: sessionId }) });
      await queryClient.invalidateQueries(trpc.listen.list.pathFilter());
    } catch (failure) {
      setNotice({ tone: "danger", text: catalogueError(failure)?.message ?? String(failure) });
    }
  };

  return (
    <section
      aria-labelledby="listen-sessions-title"
      className="mt-10 space-y-3"
      data-testid="listen-sessions"
    >
      <h2 id="listen-sessions-title" className="text-lg font-semibold">
        {t("webhooks.listen.title")}
      </h2>
      <p className="text-sm text-muted">{t("webhooks.listen.description")}</p>
      {notice ? (
        <Notice tone={notice.tone} role="status">
          {notice.text}
        </Notice>
      ) : null}
      {sessions.data.length === 0 ? (
        <div className="space-y-2">
          <p className="text-sm">{t("webhooks.listen.empty")}</p>
          <CodeBlock value={COMMAND} label={t("webhooks.listen.commandLabel")} />
        </div>
      ) : (
        <TableContainer label={t("webhooks.listen.caption")}>
          <Table>
            <THead>
              <Tr>
                <Th>{t("webhooks.listen.col.session")}</Th>
                <Th>{t("webhooks.listen.col.forwardTo")}</Th>
                <Th>{t("webhooks.col.events")}</Th>
                <Th>{t("webhooks.listen.col.state")}</Th>
                <Th>{t("webhooks.listen.col.started")}</Th>
                <Th>
                  <span className="sr-only">{t("webhooks.listen.col.actions")}</span>
                </Th>
              </Tr>
            </THead>
            <TBody>
              {sessions.data.map((session) => {
                const state =
                  session.status === "closed" ? "closed" : session.connected ? "connected" : "waiting";
                return (
                  <Tr key={session.id} data-testid="listen-session" data-state={state}>
                    <Td className="font-mono text-xs break-all">
                      {session.id}
                      <p className="mt-0.5">
                        <Badge tone={session.scope === "developer" ? "info" : "neutral"}>
                          {t(`webhooks.scope.${session.scope}`)}
                        </Badge>
                      </p>
                    </Td>
                    <Td className="max-w-64 text-sm break-all">{session.forwardTo}</Td>
                    <Td className="text-xs">
                      <ul>
                        {session.events.map((type) => (
                          <li key={type} className="font-mono whitespace-nowrap">
                            {type}
                          </li>
                        ))}
                      </ul>
                    </Td>
                    <Td>
                      <Badge
                        tone={state === "connected" ? "success" : state === "waiting" ? "warning" : "neutral"}
                      >
                        {t(`webhooks.listen.state.${state}`)}
                      </Badge>
                      {session.closedReason ? (
                        <p className="mt-0.5 text-xs text-muted">
                          {t(`webhooks.listen.reason.${session.closedReason}`)}
                        </p>
                      ) : null}
                    </Td>
                    <Td className="text-xs whitespace-nowrap">
                      <time dateTime={session.createdAt}>{formatUtc(session.createdAt)}</time>
                    </Td>
                    <Td>
                      {session.status === "open" ? (
                        <Button
                          variant="secondary"
                          size="sm"
                          aria-label={t("webhooks.listen.closeLabel", { id: session.id })}
                          loading={close.isPending && close.variables?.sessionId === session.id}
                          onClick={() => void onClose(session.id)}
                        >
                          {t("webhooks.listen.close")}
                        </Button>
                      ) : null}
                    </Td>
                  </Tr>
                );
              })}
            </TBody>
          </Table>
        </TableContainer>
      )}
    </section>
  );
}
