"use client";

import { Field } from "@/app/_components/ui/field";
import { Input, Textarea } from "@/app/_components/ui/input";
import { Label } from "@/app/_components/ui/label";
import { useT } from "@/app/_i18n/client";
import { BUSINESS_TYPES } from "@/server/storefronts/enums";
import { CurrencyInput } from "../../_components/currency-field";
import { NativeSelect } from "../../_components/native-select";
import { fieldIdOf } from "../../_lib/form";
import type { SectionProps } from "./editor";

export function Fieldset({ legend, children }: { legend: string; children: React.ReactNode }) {
  return (
    <fieldset className="space-y-4 rounded-lg border border-border bg-surface p-4 sm:p-6">
      <legend className="px-1 text-base font-semibold">{legend}</legend>
      {children}
    </fieldset>
  );
}

/** A checkbox with its label on the right (native, so it submits and reads as a checkbox). */
export function CheckboxField({
  param,
  label,
  hint,
  checked,
  onChange,
  error,
}: {
  param: string;
  label: string;
  hint?: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  error?: string;
}) {
  const id = fieldIdOf(param);
  return (
    <div className="space-y-1">
      <div className="flex items-center gap-2">
        <input
          id={id}
          type="checkbox"
          className="size-5 accent-primary"
          checked={checked}
          onChange={(event) => onChange(event.target.checked)}
          aria-describedby={hint ? `${id}-hint` : undefined}
          aria-invalid={error ? true : undefined}
        />
        <Label htmlFor={id}>{label}</Label>
      </div>
      {hint ? (
        <p id={`${id}-hint`} className="text-sm text-muted">
          {hint}
        </p>
      ) : null}
      {error ? <p className="text-sm font-medium text-danger">{error}</p> : null}
    </div>
  );
}

/** Name, language, currency, business type, WhatsApp (read-only), slug, hidden. */
export function GeneralSection({ form, update, errorFor, editor }: SectionProps) {
  const t = useT();
  const isPublished = editor.storefront.published === true;
  return (
    <Fieldset legend={t("storefronts.section.general")}>
      <Field id={fieldIdOf("name")} label={t("storefronts.field.name")} error={errorFor("name")}>
        <Input
          value={form.name}
          onChange={(e) => update({ name: e.target.value })}
          maxLength={100}
          required
        />
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          id={fieldIdOf("language")}
          label={t("storefronts.field.language")}
          error={errorFor("language")}
        >
          <NativeSelect
            value={form.language}
            onChange={(e) => update({ language: e.target.value as typeof form.language })}
            options={[
              { value: "es", label: "Español" },
              { value: "en", label: "English" },
              { value: "pt", label: "Português" },
            ]}
          />
        </Field>
        <Field
          id={fieldIdOf("currency")}
          label={t("storefronts.field.currency")}
          hint={t("storefronts.field.currencyHint")}
          error={errorFor("currency")}
        >
          <CurrencyInput value={form.currency} onChange={(currency) => update({ currency })} required />
        </Field>
      </div>
      <Field
        id={fieldIdOf("businessType")}
        label={t("storefronts.field.businessType")}
        optionalLabel={t("common.optional")}
        error={errorFor("businessType")}
      >
        <NativeSelect
          value={form.businessType}
          onChange={(e) => update({ businessType: e.target.value })}
          options={[
            { value: "", label: t("storefronts.field.none") },
            ...BUSINESS_TYPES.map((type) => ({ value: type, label: type })),
          ]}
        />
      </Field>
      <Field
        id={fieldIdOf("whatsapp")}
        label={t("storefronts.field.whatsapp")}
        hint={t("storefronts.field.whatsappReadOnly")}
      >
        <Input
          value={editor.storefront.whatsapp ?? t("storefronts.field.notSet")}
          readOnly
          className="sm:max-w-72"
        />
      </Field>
      <Field
        id={fieldIdOf("slug")}
        label={t("storefronts.field.slug")}
        optionalLabel={t("common.optional")}
        hint={isPublished ? t("storefronts.field.slugPublished") : t("storefronts.field.slugHint")}
        error={errorFor("slug")}
      >
        <Input
          value={form.slug}
          onChange={(e) => update({ slug: e.target.value })}
          readOnly={isPublished}
          maxLength={100}
          spellCheck={false}
          className="sm:max-w-96"
        />
      </Field>
      <CheckboxField
        param="hidden"
        label={t("storefronts.field.hidden")}
        hint={t("storefronts.field.hiddenHint")}
        checked={form.hidden}
        onChange={(hidden) => update({ hidden })}
        error={errorFor("hidden")}
      />
    </Fieldset>
  );
}

/** Biography (none, automatic, or a title and description) and the page's blocks. */
export function AboutSection({ form, update, errorFor, editor }: SectionProps) {
  const t = useT();
  const modes = [
    { value: "none", label: t("storefronts.biography.none") },
    { value: "auto", label: t("storefronts.biography.auto") },
    { value: "custom", label: t("storefronts.biography.custom") },
  ] as const;
  return (
    <div className="space-y-6">
      <Fieldset legend={t("storefronts.field.biography")}>
        <div role="radiogroup" aria-label={t("storefronts.field.biography")} className="flex flex-wrap gap-4">
          {modes.map((mode) => (
            <label key={mode.value} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="biographyMode"
                value={mode.value}
                checked={form.biographyMode === mode.value}
                onChange={() => update({ biographyMode: mode.value })}
                className="size-4 accent-primary"
              />
              {mode.label}
            </label>
          ))}
        </div>
        {errorFor("biography") ? (
          <p id={fieldIdOf("biography")} tabIndex={-1} className="text-sm font-medium text-danger">
            {errorFor("biography")}
          </p>
        ) : null}
        {form.biographyMode === "auto" ? (
          <p className="text-sm text-muted">
            {t("storefronts.biography.autoHint")}{" "}
            {editor.stored.isBiographyAuto && editor.storefront.biography
              ? `“${editor.storefront.biography.description}”`
              : null}
          </p>
        ) : null}
        {form.biographyMode === "custom" ? (
          <>
            <Field
              id={fieldIdOf("biography.title")}
              label={t("storefronts.biography.title")}
              error={errorFor("biography.title")}
            >
              <Input
                value={form.biographyTitle}
                onChange={(e) => update({ biographyTitle: e.target.value })}
              />
            </Field>
            <Field
              id={fieldIdOf("biography.description")}
              label={t("storefronts.biography.description")}
              error={errorFor("biography.description")}
            >
              <Textarea
                value={form.biographyDescription}
                onChange={(e) => update({ biographyDescription: e.target.value })}
              />
            </Field>
          </>
        ) : null}
      </Fieldset>
      <Fieldset legend={t("storefronts.field.blocks")}>
        <Field
          id={fieldIdOf("blocks")}
          label={t("storefronts.field.blocksLabel")}
          hint={form.blocks === "custom" ? t("storefronts.blocks.customHint") : t("storefronts.blocks.hint")}
          error={errorFor("blocks")}
        >
          <NativeSelect
            value={form.blocks}
            onChange={(e) => update({ blocks: e.target.value as typeof form.blocks })}
            options={[
              { value: "none", label: t("storefronts.blocks.none") },
              { value: "auto", label: t("storefronts.blocks.auto") },
              ...(editor.stored.blocks === "custom"
                ? [{ value: "custom", label: t("storefronts.blocks.custom") }]
                : []),
            ]}
          />
        </Field>
      </Fieldset>
    </div>
  );
}
