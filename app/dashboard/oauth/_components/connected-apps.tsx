import { Badge } from "@/app/_components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/app/_components/ui/card";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { Notice } from "@/app/_components/ui/notice";
import { SubmitButton } from "@/app/_components/ui/submit-button";
import { Table, TableCaption, TableContainer, TBody, Td, THead, Th, Tr } from "@/app/_components/ui/table";
import { getLanguage, getT } from "@/app/_i18n/server";
import { createServiceContext } from "@/server/context";
import { dbReady } from "@/server/db/client";
import { ERROR_CATALOGUE, type ErrorCode } from "@/server/errors";
import { newId } from "@/server/lib/ids";
import { listConnectedApps } from "@/server/oauth/grants";
import { mcpUrl } from "@/server/oauth/urls";
import { actorOfSignedInSession } from "@/server/sessions/actor";
import { requireSignedInAccount } from "../../_lib/session";
import { ConnectedAppBadge } from "./connected-app-badge";

/**
 * "Connected apps" for the account page (docs/mcp.md, "Connected apps"): every MCP client the signed-in account
 * allowed, with its per-user key and a Disconnect form posting to /oauth/disconnect, which comes back to `next`
 * with `?disconnected=<clientId>` or `?error=<code>`; pass those query values in to show the outcome.
 */
export async function ConnectedApps({
  next,
  disconnected,
  error,
  headingLevel = "h2",
  showHeader = true,
}: {
  /** The page to come back to after a disconnect (a path on this site). */
  next: string;
  disconnected?: string | null;
  error?: string | null;
  headingLevel?: "h2" | "h3";
  /** False on a page whose own header already says what this is. */
  showHeader?: boolean;
}) {
  const [session, t, language] = await Promise.all([requireSignedInAccount(), getT(), getLanguage()]);
  const db = await dbReady();
  const ctx = createServiceContext({
    db,
    actor: actorOfSignedInSession(session),
    requestId: newId("req"),
    language,
  });
  const apps = await listConnectedApps(ctx);
  const errorCode = error && Object.hasOwn(ERROR_CATALOGUE, error) ? (error as ErrorCode) : null;
  const dateFormat = new Intl.DateTimeFormat(language, { dateStyle: "medium" });
  return (
    <Card data-testid="connected-apps">
      {showHeader ? (
        <CardHeader>
          <CardTitle as={headingLevel}>{t("oauth.apps.title")}</CardTitle>
          <CardDescription>{t("oauth.apps.description")}</CardDescription>
        </CardHeader>
      ) : null}
      <CardContent className="space-y-4">
        {disconnected ? (
          <Notice tone="success" role="status">
            {t("oauth.apps.disconnected")}
          </Notice>
        ) : null}
        {errorCode ? (
          <Notice tone="danger" role="alert">
            {ERROR_CATALOGUE[errorCode].messages[language]}
          </Notice>
        ) : null}
        {apps.length === 0 ? (
          <EmptyState
            headingLevel={showHeader ? "h3" : "h2"}
            title={t("oauth.apps.empty")}
            description={t("oauth.apps.emptyBody", { url: mcpUrl() })}
          />
        ) : (
          // relative: the visually hidden header text stays inside the scrolling box (else it widens the page).
          <TableContainer label={t("oauth.apps.caption")} className="relative">
            <Table>
              <TableCaption className="sr-only">{t("oauth.apps.caption")}</TableCaption>
              <THead>
                <Tr>
                  <Th>{t("oauth.apps.colApp")}</Th>
                  <Th>{t("oauth.apps.colAccess")}</Th>
                  <Th>{t("oauth.apps.colKey")}</Th>
                  <Th>{t("oauth.apps.colConnected")}</Th>
                  <Th>
                    <span className="sr-only">{t("oauth.apps.colActions")}</span>
                  </Th>
                </Tr>
              </THead>
              <TBody>
                {apps.map((app) => (
                  <Tr key={app.clientId} data-testid="connected-app">
                    <Td>
                      <div className="font-medium text-fg">{app.clientName}</div>
                      <div className="text-xs text-muted">{app.clientHost ?? t("oauth.apps.registered")}</div>
                    </Td>
                    <Td>
                      <div className="flex flex-wrap gap-1">
                        {app.scopes.map((scope) => (
                          <Badge key={scope}>{scope}</Badge>
                        ))}
                      </div>
                    </Td>
                    <Td>
                      <div className="flex flex-wrap items-center gap-2">
                        <code className="text-xs">{app.keyPrefix}</code>
                        <ConnectedAppBadge appName={app.clientName} />
                      </div>
                    </Td>
                    <Td className="whitespace-nowrap">{dateFormat.format(new Date(app.connectedAt))}</Td>
                    <Td className="text-right">
                      <form method="post" action="/oauth/disconnect">
                        <input type="hidden" name="clientId" value={app.clientId} />
                        <input type="hidden" name="next" value={next} />
                        <SubmitButton
                          variant="danger"
                          size="sm"
                          aria-label={t("oauth.apps.disconnectLabel", { app: app.clientName })}
                        >
                          {t("oauth.apps.disconnect")}
                        </SubmitButton>
                      </form>
                    </Td>
                  </Tr>
                ))}
              </TBody>
            </Table>
          </TableContainer>
        )}
      </CardContent>
    </Card>
  );
}
