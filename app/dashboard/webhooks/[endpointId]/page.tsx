import { TRPCError } from "@trpc/server";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getT } from "@/app/_i18n/server";
import { getServerCaller } from "@/app/_trpc/server";
import { Shell } from "../../_components/shell";
import { requireSignedInAccount } from "../../_lib/session";
import { DeliveryLog } from "../_components/delivery-log";
import { EndpointActions } from "../_components/endpoint-actions";
import { toDateTimeLocal } from "../_components/format";
import { Recover } from "../_components/recover";
import { TestEvent } from "../_components/test-event";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getT())("webhooks.log.title") };
}

/** Not found (another account's endpoint, or none) is the 404 page; anything else is a real error. */
function orNotFound(error: unknown): never {
  if (error instanceof TRPCError && error.code === "NOT_FOUND") notFound();
  throw error;
}

/**
 * /dashboard/webhooks/{endpointId} (`?scope=developer` for developer endpoints): the endpoint, its health, Send test
 * event, Recover, and the delivery log, all rendered on the server first; the log then refreshes itself while a
 * delivery is pending (docs/ui.md, "Webhooks").
 */
export default async function EndpointPage({
  params,
  searchParams,
}: {
  params: Promise<{ endpointId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [{ account }, t, caller, { endpointId }, query] = await Promise.all([
    requireSignedInAccount(),
    getT(),
    getServerCaller(),
    params,
    searchParams,
  ]);
  const scope = query.scope === "developer" ? "developer" : "merchant";
  const ref = { scope, endpointId } as const;
  const [endpoint, health, log] = await Promise.all([
    caller.webhooks.getEndpoint(ref),
    caller.webhooks.health(ref),
    caller.webhooks.listDeliveries(ref),
  ]).catch(orNotFound);
  const defaultSince = toDateTimeLocal(new Date(Date.now() - 24 * 3600_000));
  return (
    <Shell
      account={{ email: account.email, status: account.status, plan: account.plan }}
      hasDeveloperKeys={account.hasDeveloperKeys}
      current="/dashboard/webhooks"
    >
      <p className="mb-2 text-sm">
        <Link href="/dashboard/webhooks">← {t("webhooks.back")}</Link>
      </p>
      <PageHeader title={endpoint.url} description={endpoint.description || undefined} />
      <div className="space-y-6">
        <EndpointActions initial={endpoint} />
        <div className="grid gap-6 lg:grid-cols-2">
          <TestEvent scope={scope} endpointId={endpoint.endpointId} />
          <Recover scope={scope} endpointId={endpoint.endpointId} defaultSince={defaultSince} />
        </div>
        <DeliveryLog scope={scope} endpointId={endpoint.endpointId} initialLog={log} initialHealth={health} />
      </div>
    </Shell>
  );
}
