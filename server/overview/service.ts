import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { PLAN_LIMITS, upgradeUrl } from "@/server/accounts/plans";
import type { ServiceContext } from "@/server/context";
import { queryRows } from "@/server/db/client";
import { currentTerms, hasAcceptedCurrentTerms } from "@/server/gate/terms";
import { publicUrlOf } from "@/server/storefronts/dto";
import { timeZoneFor } from "@/server/storefronts/settings";
import { storefronts } from "@/server/storefronts/tables";
import { authorize } from "./operations";
import type {
  DeliveryOverviewDto,
  DeliveryStatusCounts,
  EndpointHealthDto,
  MerchantOverviewDto,
  NextStep,
  StorefrontTodayDto,
} from "./schema";

const DAY_MS = 86_400_000;
/** More than any plan allows (PLAN_LIMITS); a downgraded account may keep a few more. */
const STOREFRONTS_SHOWN = 100;

function stateOf(row: { published: boolean; hidden: boolean }): StorefrontTodayDto["state"] {
  if (!row.published) return "draft";
  return row.hidden ? "hidden" : "published";
}

/**
 * The merchant overview (docs/ui.md, "Overview"): each live storefront with its state and today's orders and
 * revenue (since midnight in the storefront's own time zone, cancelled orders left out), and what to do next:
 * verify the email, accept the current terms, create a storefront, upgrade to publish, publish.
 */
export async function getMerchantOverview(ctx: ServiceContext): Promise<MerchantOverviewDto> {
  const actor = authorize(ctx, "getMerchantOverview");
  const now = ctx.now();
  const rows = await ctx.db
    .select()
    .from(storefronts)
    .where(and(eq(storefronts.accountId, actor.accountId), isNull(storefronts.deletedAt)))
    .orderBy(asc(storefronts.id))
    .limit(STOREFRONTS_SHOWN);
  const zones = rows.map((row) => ({ id: row.id, tz: timeZoneFor(row) }));
  // One statement for every storefront: PostgreSQL turns each time zone's midnight into an instant.
  const totals =
    zones.length === 0
      ? []
      : await queryRows<{ storefront_id: string; orders: number; revenue: string | null }>(
          ctx.db,
          sql`with zones as (
                select z.id, z.tz from jsonb_to_recordset(${JSON.stringify(zones)}::jsonb) as z(id text, tz text)
              )
              select o.storefront_id, count(*)::int as orders, sum(o.total_price)::text as revenue
              from orders o join zones on zones.id = o.storefront_id
              where o.account_id = ${actor.accountId}
                and o.created_at >= (date_trunc('day', ${now.toISOString()}::timestamptz at time zone zones.tz)
                                     at time zone zones.tz)
                and o.order_status <> 'cancelled'
              group by o.storefront_id`,
        );
  const byStorefront = new Map(totals.map((t) => [t.storefront_id, t]));
  const list: StorefrontTodayDto[] = rows.map((row) => {
    const today = byStorefront.get(row.id);
    return {
      id: row.id,
      name: row.name,
      state: stateOf(row),
      publicUrl: publicUrlOf(row),
      currency: row.currency,
      timeZone: timeZoneFor(row),
      ordersToday: Number(today?.orders ?? 0),
      revenueToday: Number(today?.revenue ?? 0),
    };
  });
  const nextSteps: NextStep[] = [];
  if (actor.accountStatus !== "verified") nextSteps.push({ kind: "verify_email" });
  if (!hasAcceptedCurrentTerms(actor.tosAcceptedVersion))
    nextSteps.push({ kind: "accept_terms", version: currentTerms().version });
  if (list.length === 0) nextSteps.push({ kind: "create_storefront" });
  const drafts = list.filter((s) => s.state === "draft");
  if (drafts.length > 0 && !PLAN_LIMITS[actor.plan].publishable)
    nextSteps.push({ kind: "upgrade_to_publish", upgradeUrl: upgradeUrl() });
  else if (actor.accountStatus === "verified")
    for (const draft of drafts)
      nextSteps.push({ kind: "publish", storefrontId: draft.id, storefrontName: draft.name });
  return { storefronts: list, nextSteps };
}

const NO_DELIVERIES: DeliveryStatusCounts = { pending: 0, delivered: 0, failed: 0, max_attempts_reached: 0 };

type EndpointRow = {
  id: string;
  url: string;
  scope: "developer" | "merchant";
  enabled: boolean;
  consecutive_failures: number;
  last_delivery_status: "success" | "failure" | null;
  last_delivery_at: Date | string | null;
  pending: number;
  delivered: number;
  failed: number;
  max_attempts_reached: number;
};

function isoOf(value: Date | string | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/**
 * The developer overview (docs/ui.md, "Overview"): deliveries created in the last 24 hours by status, in total
 * and per endpoint of the account (both scopes), failing endpoints first (last delivery failed, or a delivery of
 * the window failed or gave up), then the busiest. One statement over the deliveries' (endpoint, created) index.
 */
export async function getDeliveryOverview(ctx: ServiceContext): Promise<DeliveryOverviewDto> {
  const actor = authorize(ctx, "getDeliveryOverview");
  const since = new Date(ctx.now().getTime() - DAY_MS);
  const rows = await queryRows<EndpointRow>(
    ctx.db,
    sql`select e.id, e.url, e.scope, e.enabled, e.consecutive_failures, e.last_delivery_status, e.last_delivery_at,
               count(d.id) filter (where d.status = 'pending')::int as pending,
               count(d.id) filter (where d.status = 'delivered')::int as delivered,
               count(d.id) filter (where d.status = 'failed')::int as failed,
               count(d.id) filter (where d.status = 'max_attempts_reached')::int as max_attempts_reached
        from webhook_endpoints e
        left join webhook_deliveries d on d.endpoint_id = e.id and d.created_at >= ${since.toISOString()}::timestamptz
        where e.account_id = ${actor.accountId}
        group by e.id
        order by e.id`,
  );
  const endpoints: EndpointHealthDto[] = rows.map((row) => {
    const last24h: DeliveryStatusCounts = {
      pending: Number(row.pending),
      delivered: Number(row.delivered),
      failed: Number(row.failed),
      max_attempts_reached: Number(row.max_attempts_reached),
    };
    return {
      id: row.id,
      url: row.url,
      scope: row.scope,
      enabled: row.enabled,
      consecutiveFailures: Number(row.consecutive_failures),
      lastDeliveryStatus: row.last_delivery_status,
      lastDeliveryAt: isoOf(row.last_delivery_at),
      last24h,
      isFailing:
        row.last_delivery_status === "failure" || last24h.failed > 0 || last24h.max_attempts_reached > 0,
    };
  });
  const volume = (e: EndpointHealthDto) =>
    e.last24h.pending + e.last24h.delivered + e.last24h.failed + e.last24h.max_attempts_reached;
  endpoints.sort(
    (a, b) =>
      Number(b.isFailing) - Number(a.isFailing) ||
      b.consecutiveFailures - a.consecutiveFailures ||
      volume(b) - volume(a) ||
      a.url.localeCompare(b.url),
  );
  const totals = endpoints.reduce<DeliveryStatusCounts>(
    (sum, e) => ({
      pending: sum.pending + e.last24h.pending,
      delivered: sum.delivered + e.last24h.delivered,
      failed: sum.failed + e.last24h.failed,
      max_attempts_reached: sum.max_attempts_reached + e.last24h.max_attempts_reached,
    }),
    { ...NO_DELIVERIES },
  );
  return { since: since.toISOString(), totals, endpoints };
}
