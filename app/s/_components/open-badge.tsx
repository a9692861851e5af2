"use client";

import { useEffect, useState } from "react";
import { useLanguage, useT } from "@/app/_i18n/client";
import { openingState, type Schedule } from "@/server/storefronts/opening-hours";
import { formatOpening, formatTime } from "../_lib/format";

/**
 * "Open now · until 22:00" / "Closed · opens Monday 09:00", from the same rule that lets the server refuse
 * orders while closed (server/storefronts/opening-hours.ts). The server renders it when the page is cached; the
 * browser recomputes it at once and every minute, so a cached page never shows a stale state for long.
 */
export function OpenBadge({
  schedule,
  timeZone,
  renderedAt,
}: {
  schedule: Schedule;
  timeZone: string;
  /** When the server rendered the page: the first paint in the browser matches it (hydration), then moves on. */
  renderedAt: number;
}) {
  const t = useT();
  const language = useLanguage();
  const [now, setNow] = useState(() => new Date(renderedAt));
  useEffect(() => {
    setNow(new Date());
    const timer = window.setInterval(() => setNow(new Date()), 60_000);
    return () => window.clearInterval(timer);
  }, []);
  const state = openingState(schedule, timeZone, now);
  if (state.isAlwaysOpen) return null;
  const text = state.isOpen
    ? t("storefront.openUntil", { time: formatTime(state.closesAt ?? now, language, timeZone) })
    : state.opensAt
      ? t("storefront.closedOpensAt", { when: formatOpening(state.opensAt, now, language, timeZone) })
      : t("storefront.closedForNow");
  return (
    <p
      data-testid="open-state"
      className={
        state.isOpen
          ? "inline-flex items-center gap-2 rounded-full bg-success-soft px-3 py-1 text-sm font-medium text-success"
          : "inline-flex items-center gap-2 rounded-full bg-warning-soft px-3 py-1 text-sm font-medium text-warning"
      }
    >
      <span aria-hidden="true" className="size-2 rounded-full bg-current" />
      {text}
    </p>
  );
}
