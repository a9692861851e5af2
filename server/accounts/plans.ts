import { env } from "@/server/env";
import type { Upgrade } from "@/server/errors";
import type { Plan, PlanLimits } from "./schema";

/** Plans and their limits (docs/api.md, "Accounts and keys" and "Plan limits"). */
export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  FREE_NEW: { storefronts: 1, products: 2_000, publishable: false },
  FREE_OLD: { storefronts: 3, products: 2_000, publishable: false },
  PRO: { storefronts: 10, products: 10_000, publishable: true },
};

export function upgradeUrl(): string {
  return `${env().APP_URL}/dashboard/billing?plan=PRO`;
}

/** The `upgrade` object of a 402 (docs/api.md, "Plan limits"). */
export function upgradeFor(currentPlan: Plan): Upgrade {
  return { currentPlan, requiredPlan: "PRO", upgradeUrl: upgradeUrl() };
}
