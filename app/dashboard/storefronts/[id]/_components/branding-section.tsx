"use client";

import { Button } from "@/app/_components/ui/button";
import { Field } from "@/app/_components/ui/field";
import { Input } from "@/app/_components/ui/input";
import { useT } from "@/app/_i18n/client";
import { PhotoField } from "@/app/dashboard/_components/photo-field";
import { THEME_PRESETS, type ThemePreset } from "@/server/storefronts/schema";
import { fieldIdOf } from "../../_lib/form";
import type { SectionProps } from "./editor";
import { Fieldset } from "./general-section";

const COLOURS = ["primary", "secondary", "tertiary"] as const;

/** `#abc` -> `#aabbcc`; anything else a colour picker cannot show -> null. */
function pickerValue(value: string): string | null {
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(value);
  if (short) return `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}`.toLowerCase();
  return /^#[0-9a-f]{6}$/i.test(value) ? value.toLowerCase() : null;
}

/** Logo and background (an uploaded photo or a URL, with a preview, or `auto`), theme colours (pickers or a preset), font. */
export function BrandingSection({ form, update, errorFor }: SectionProps) {
  const t = useT();
  const backgroundModes = [
    { value: "none", label: t("storefronts.branding.backgroundNone") },
    { value: "url", label: t("storefronts.branding.backgroundUrl") },
    { value: "auto", label: t("storefronts.branding.backgroundAuto") },
  ] as const;
  const applyPreset = (preset: ThemePreset) => update({ ...THEME_PRESETS[preset] });
  return (
    <div className="space-y-6">
      <Fieldset legend={t("storefronts.branding.images")}>
        <Field
          id={fieldIdOf("branding.logoUrl")}
          label={t("storefronts.branding.logo")}
          optionalLabel={t("common.optional")}
          hint={t("storefronts.branding.urlHint")}
          error={errorFor("branding.logoUrl")}
        >
          <Input
            type="url"
            value={form.logoUrl}
            onChange={(e) => update({ logoUrl: e.target.value, logoFileId: "" })}
            placeholder="https://"
          />
        </Field>
        <PhotoField
          id="sf-logo-photo"
          label={t("storefronts.branding.logoPhoto")}
          previewUrl={form.logoUrl}
          previewAlt={t("storefronts.branding.logoPreview")}
          onUploaded={(file) => update({ logoUrl: file.url, logoFileId: file.id })}
        />
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium">{t("storefronts.branding.background")}</legend>
          <div className="flex flex-wrap gap-4">
            {backgroundModes.map((mode) => (
              <label key={mode.value} className="flex items-center gap-2 text-sm">
                <input
                  type="radio"
                  name="backgroundMode"
                  value={mode.value}
                  checked={form.backgroundMode === mode.value}
                  onChange={() => update({ backgroundMode: mode.value })}
                  className="size-4 accent-primary"
                />
                {mode.label}
              </label>
            ))}
          </div>
          {form.backgroundMode === "auto" ? (
            <p className="text-sm text-muted">{t("storefronts.branding.backgroundAutoHint")}</p>
          ) : null}
        </fieldset>
        {form.backgroundMode === "url" ? (
          <>
            <Field
              id={fieldIdOf("branding.backgroundUrl")}
              label={t("storefronts.branding.backgroundUrlLabel")}
              error={errorFor("branding.backgroundUrl")}
            >
              <Input
                type="url"
                value={form.backgroundUrl}
                onChange={(e) => update({ backgroundUrl: e.target.value, backgroundFileId: "" })}
                placeholder="https://"
              />
            </Field>
            <PhotoField
              id="sf-background-photo"
              label={t("storefronts.branding.backgroundPhoto")}
              previewUrl={form.backgroundUrl}
              previewAlt={t("storefronts.branding.backgroundPreview")}
              onUploaded={(file) => update({ backgroundUrl: file.url, backgroundFileId: file.id })}
            />
          </>
        ) : errorFor("branding.backgroundUrl") ? (
          <p
            id={fieldIdOf("branding.backgroundUrl")}
            tabIndex={-1}
            className="text-sm font-medium text-danger"
          >
            {errorFor("branding.backgroundUrl")}
          </p>
        ) : null}
      </Fieldset>
      <Fieldset legend={t("storefronts.branding.theme")}>
        <fieldset>
          <legend className="mb-2 text-sm font-medium">{t("storefronts.branding.presets")}</legend>
          <div className="flex flex-wrap gap-2">
            {(Object.keys(THEME_PRESETS) as ThemePreset[]).map((preset) => (
              <Button key={preset} variant="secondary" size="sm" onClick={() => applyPreset(preset)}>
                <span aria-hidden="true" className="flex">
                  {COLOURS.map((colour) => (
                    <span
                      key={colour}
                      className="size-3 border border-border-strong first:rounded-l last:rounded-r"
                      style={{ background: THEME_PRESETS[preset][colour] }}
                    />
                  ))}
                </span>
                {t(`storefronts.preset.${preset}`)}
              </Button>
            ))}
            <Button
              variant="ghost"
              size="sm"
              onClick={() => update({ primary: "", secondary: "", tertiary: "" })}
            >
              {t("storefronts.branding.noTheme")}
            </Button>
          </div>
        </fieldset>
        {errorFor("branding.theme") ? (
          <p id={fieldIdOf("branding.theme")} tabIndex={-1} className="text-sm font-medium text-danger">
            {errorFor("branding.theme")}
          </p>
        ) : null}
        <div className="grid gap-4 sm:grid-cols-3">
          {COLOURS.map((colour) => {
            const param = `branding.theme.${colour}`;
            const value = form[colour];
            return (
              <div key={colour} className="flex items-end gap-2">
                <input
                  type="color"
                  aria-label={t("storefronts.branding.picker", { colour: t(`storefronts.colour.${colour}`) })}
                  value={pickerValue(value) ?? "#000000"}
                  onChange={(e) => update({ [colour]: e.target.value })}
                  className="h-10 w-12 shrink-0 cursor-pointer rounded-md border border-border-strong bg-surface p-1"
                />
                <Field
                  id={fieldIdOf(param)}
                  label={t(`storefronts.colour.${colour}`)}
                  error={errorFor(param)}
                  className="min-w-0 flex-1"
                >
                  <Input
                    value={value}
                    onChange={(e) => update({ [colour]: e.target.value })}
                    placeholder="#rrggbb"
                    spellCheck={false}
                  />
                </Field>
              </div>
            );
          })}
        </div>
        <p className="text-sm text-muted">{t("storefronts.branding.themeHint")}</p>
        <Field
          id={fieldIdOf("branding.font")}
          label={t("storefronts.branding.font")}
          optionalLabel={t("common.optional")}
          hint={t("storefronts.branding.fontHint")}
          error={errorFor("branding.font")}
        >
          <Input
            value={form.font}
            onChange={(e) => update({ font: e.target.value })}
            className="sm:max-w-72"
          />
        </Field>
      </Fieldset>
    </div>
  );
}
