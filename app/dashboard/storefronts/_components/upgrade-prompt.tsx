"use client";

import { buttonClasses } from "@/app/_components/ui/button";
import { Notice } from "@/app/_components/ui/notice";
import { plural } from "@/app/_i18n/catalogue";
import { useLanguage, useT } from "@/app/_i18n/client";
import type { PlanUsageDto } from "@/server/storefronts/dto";

/**
 * What a 402 means, as the next thing to do: the catalogue's message, what the current plan allows, what the
 * upgrade allows, and the upgrade link the error carried (docs/api.md, "Plan limits").
 */
export function UpgradePrompt({
  message,
  usage,
  upgradeUrl,
}: {
  message: string;
  usage: PlanUsageDto;
  upgradeUrl?: string | null;
}) {
  const t = useT();
  const language = useLanguage();
  const limits = (plan: string, l: PlanUsageDto["limits"]) =>
    plural(t, language, "storefronts.upgrade.limits", {
      plan,
      count: l.storefronts,
      products: l.products.toLocaleString(),
      publish: l.publishable ? t("storefronts.upgrade.canPublish") : t("storefronts.upgrade.cannotPublish"),
    });
  return (
    <Notice tone="danger" role="alert" className="mb-4">
      <div data-testid="upgrade-prompt" className="space-y-2">
        <p className="font-medium">{message}</p>
        <ul className="list-disc space-y-0.5 pl-5">
          <li>{limits(usage.plan, usage.limits)}</li>
          <li>{limits(usage.upgrade.requiredPlan, usage.upgradeLimits)}</li>
        </ul>
        <a className={buttonClasses("primary", "sm")} href={upgradeUrl ?? usage.upgrade.upgradeUrl}>
          {t("storefronts.upgrade.action", { plan: usage.upgrade.requiredPlan })}
        </a>
      </div>
    </Notice>
  );
}
