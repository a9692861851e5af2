"use client";

import { useEffect, useState } from "react";
import { Button } from "@/app/_components/ui/button";
import { Field } from "@/app/_components/ui/field";
import { Input } from "@/app/_components/ui/input";
import { useT } from "@/app/_i18n/client";
import { DAYS } from "@/server/storefronts/schema";
import { type DayForm, fieldIdOf } from "../../_lib/form";
import type { SectionProps } from "./editor";
import { Fieldset } from "./general-section";

/** Seven days (open, close, closed), "copy Monday to all", and the time zone the hours are in. */
export function HoursSection({ form, update, errorFor, editor }: SectionProps) {
  const t = useT();
  const [zones, setZones] = useState<string[]>([]);
  useEffect(() => setZones(Intl.supportedValuesOf("timeZone")), []);
  const setDay = (day: (typeof DAYS)[number], change: Partial<DayForm>) =>
    update({ schedule: { ...form.schedule, [day]: { ...form.schedule[day], ...change } } });
  const copyMonday = () =>
    update({
      schedule: Object.fromEntries(
        DAYS.map((day) => [day, { ...form.schedule.monday }]),
      ) as typeof form.schedule,
    });
  return (
    <div className="space-y-6">
      <Fieldset legend={t("storefronts.hours.title")}>
        <p className="text-sm text-muted">{t("storefronts.hours.hint")}</p>
        <div className="divide-y divide-border">
          {DAYS.map((day) => {
            const value = form.schedule[day];
            const dayName = t(`storefronts.day.${day}`);
            return (
              <fieldset
                key={day}
                className="grid grid-cols-2 items-end gap-3 py-3 sm:grid-cols-[8rem_1fr_1fr_auto]"
              >
                <legend className="sr-only">{dayName}</legend>
                <span
                  aria-hidden="true"
                  className="col-span-2 text-sm font-medium sm:col-span-1 sm:self-center"
                >
                  {dayName}
                </span>
                <Field
                  id={fieldIdOf(`schedule.${day}.open`)}
                  label={t("storefronts.hours.open", { day: dayName })}
                  error={errorFor(`schedule.${day}.open`) ?? errorFor(`schedule.${day}`)}
                >
                  <Input
                    type="time"
                    value={value.open}
                    disabled={value.closed}
                    onChange={(e) => setDay(day, { open: e.target.value })}
                  />
                </Field>
                <Field
                  id={fieldIdOf(`schedule.${day}.close`)}
                  label={t("storefronts.hours.close", { day: dayName })}
                  error={errorFor(`schedule.${day}.close`)}
                >
                  <Input
                    type="time"
                    value={value.close}
                    disabled={value.closed}
                    onChange={(e) => setDay(day, { close: e.target.value })}
                  />
                </Field>
                <label className="col-span-2 flex h-10 items-center gap-2 text-sm sm:col-span-1">
                  <input
                    type="checkbox"
                    checked={value.closed}
                    onChange={(e) => setDay(day, { closed: e.target.checked })}
                    className="size-5 accent-primary"
                  />
                  {t("storefronts.hours.closed", { day: dayName })}
                </label>
              </fieldset>
            );
          })}
        </div>
        <Button variant="secondary" size="sm" onClick={copyMonday}>
          {t("storefronts.hours.copyMonday")}
        </Button>
      </Fieldset>
      <Fieldset legend={t("storefronts.hours.timeZone")}>
        <Field
          id={fieldIdOf("timeZone")}
          label={t("storefronts.hours.timeZone")}
          hint={
            editor.settings.isDefaultTimeZone && form.timeZone === editor.settings.timeZone
              ? t("storefronts.hours.timeZoneDefault", { currency: editor.storefront.currency })
              : t("storefronts.hours.timeZoneHint")
          }
          error={errorFor("timeZone")}
        >
          <Input
            value={form.timeZone}
            onChange={(e) => update({ timeZone: e.target.value })}
            list="time-zone-options"
            autoComplete="off"
            spellCheck={false}
            className="sm:max-w-96"
          />
        </Field>
        <datalist id="time-zone-options">
          {zones.map((zone) => (
            <option key={zone} value={zone} />
          ))}
        </datalist>
      </Fieldset>
    </div>
  );
}
