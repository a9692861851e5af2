import { type Language, translator } from "@/app/_i18n/catalogue";
import { dayOpening, WEEK_DAYS } from "@/server/storefronts/opening-hours";
import type { StorefrontDto } from "@/server/storefronts/schema";

function clock(minutes: number): string {
  const m = minutes % (24 * 60);
  return `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
}

/** The week's hours as a list (Monday first), with the time zone they are in. Nothing when there is no schedule. */
export function OpeningHours({ storefront, timeZone }: { storefront: StorefrontDto; timeZone: string }) {
  const schedule = storefront.schedule;
  if (!schedule) return null;
  const t = translator(storefront.language as Language);
  return (
    <section aria-labelledby="hours-title" className="rounded-lg border border-border bg-surface p-4">
      <h2 id="hours-title" className="text-lg font-semibold">
        {t("storefront.hours")}
      </h2>
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-6 gap-y-1 text-sm">
        {WEEK_DAYS.map((day) => {
          const opening = dayOpening(schedule[day]);
          return (
            <div key={day} className="contents">
              <dt className="text-muted">{t(`storefront.day.${day}`)}</dt>
              <dd>
                {opening
                  ? t("storefront.hoursRange", { open: clock(opening.start), close: clock(opening.end) })
                  : t("storefront.dayClosed")}
              </dd>
            </div>
          );
        })}
      </dl>
      <p className="mt-2 text-xs text-muted">
        {t("storefront.timeZoneNote", { zone: timeZone.replace(/_/g, " ") })}
      </p>
    </section>
  );
}
