"use client";

import { Button } from "@/app/_components/ui/button";
import { Field } from "@/app/_components/ui/field";
import { Input } from "@/app/_components/ui/input";
import { useT } from "@/app/_i18n/client";
import { fieldIdOf, type RangeForm, rowKey } from "../../_lib/form";
import type { SectionProps } from "./editor";
import { CheckboxField, Fieldset } from "./general-section";

/**
 * Delivery (enabled, fixed price or by distance with a ranges editor), pickup and dine-in. Overlapping ranges are
 * refused before saving by /v1's own DeliveryInput rule, on the range's field.
 */
export function ServiceSection({ form, update, errorFor, editor }: SectionProps) {
  const t = useT();
  const currency = editor.storefront.currency;
  const setRange = (key: string, change: Partial<RangeForm>) =>
    update({ ranges: form.ranges.map((range) => (range.key === key ? { ...range, ...change } : range)) });
  const addRange = () => {
    const last = form.ranges.at(-1);
    update({ ranges: [...form.ranges, { key: rowKey(), fromKm: last?.toKm ?? "0", toKm: "", price: "" }] });
  };
  return (
    <div className="space-y-6">
      <Fieldset legend={t("storefronts.delivery.title")}>
        <CheckboxField
          param="delivery.enabled"
          label={t("storefronts.delivery.enabled")}
          checked={form.deliveryEnabled}
          onChange={(deliveryEnabled) => update({ deliveryEnabled })}
          error={errorFor("delivery")}
        />
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium">{t("storefronts.delivery.type")}</legend>
          <div className="flex flex-wrap gap-4">
            {(["fixed", "distance"] as const).map((type) => (
              <label key={type} className="flex items-center gap-2 text-sm">
                <input
                  type="radio"
                  name="deliveryType"
                  value={type}
                  checked={form.deliveryType === type}
                  onChange={() => update({ deliveryType: type })}
                  className="size-4 accent-primary"
                />
                {t(`storefronts.delivery.${type}`)}
              </label>
            ))}
          </div>
        </fieldset>
        {form.deliveryType === "fixed" ? (
          <Field
            id={fieldIdOf("delivery.fixedPrice")}
            label={t("storefronts.delivery.fixedPrice", { currency })}
            error={errorFor("delivery.fixedPrice")}
          >
            <Input
              inputMode="decimal"
              value={form.fixedPrice}
              onChange={(e) => update({ fixedPrice: e.target.value })}
              className="sm:max-w-48"
            />
          </Field>
        ) : (
          <div className="space-y-3">
            <p className="text-sm text-muted">{t("storefronts.delivery.rangesHint")}</p>
            {errorFor("delivery.ranges") ? (
              <p id={fieldIdOf("delivery.ranges")} tabIndex={-1} className="text-sm font-medium text-danger">
                {errorFor("delivery.ranges")}
              </p>
            ) : null}
            <ol className="space-y-3">
              {form.ranges.map((range, index) => {
                const n = index + 1;
                const param = (key: string) => `delivery.ranges[${index}].${key}`;
                return (
                  <li
                    key={range.key}
                    className="grid grid-cols-2 items-end gap-3 rounded-md border border-border p-3 [overflow-wrap:anywhere] sm:grid-cols-[1fr_1fr_1fr_auto]"
                  >
                    <Field
                      id={fieldIdOf(param("fromKm"))}
                      label={t("storefronts.delivery.fromKm", { n })}
                      error={errorFor(param("fromKm"))}
                    >
                      <Input
                        inputMode="decimal"
                        value={range.fromKm}
                        onChange={(e) => setRange(range.key, { fromKm: e.target.value })}
                      />
                    </Field>
                    <Field
                      id={fieldIdOf(param("toKm"))}
                      label={t("storefronts.delivery.toKm", { n })}
                      error={errorFor(param("toKm"))}
                    >
                      <Input
                        inputMode="decimal"
                        value={range.toKm}
                        placeholder={t("storefronts.delivery.noLimit")}
                        onChange={(e) => setRange(range.key, { toKm: e.target.value })}
                      />
                    </Field>
                    <Field
                      id={fieldIdOf(param("price"))}
                      label={t("storefronts.delivery.price", { n, currency })}
                      error={errorFor(param("price"))}
                    >
                      <Input
                        inputMode="decimal"
                        value={range.price}
                        onChange={(e) => setRange(range.key, { price: e.target.value })}
                      />
                    </Field>
                    <Button
                      variant="ghost"
                      onClick={() => update({ ranges: form.ranges.filter((r) => r.key !== range.key) })}
                    >
                      {t("storefronts.delivery.removeRange", { n })}
                    </Button>
                  </li>
                );
              })}
            </ol>
            <Button variant="secondary" size="sm" onClick={addRange}>
              {t("storefronts.delivery.addRange")}
            </Button>
          </div>
        )}
      </Fieldset>
      <Fieldset legend={t("storefronts.service.title")}>
        <CheckboxField
          param="pickup"
          label={t("storefronts.service.pickup")}
          checked={form.pickup}
          onChange={(pickup) => update({ pickup })}
          error={errorFor("pickup")}
        />
        <CheckboxField
          param="dineIn"
          label={t("storefronts.service.dineIn")}
          checked={form.dineIn}
          onChange={(dineIn) => update({ dineIn })}
          error={errorFor("dineIn")}
        />
      </Fieldset>
    </div>
  );
}
