"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, type ReactNode, useMemo, useState } from "react";
import { ConfirmDialog } from "@/app/_components/ui/alert-dialog";
import { Badge } from "@/app/_components/ui/badge";
import { Button, buttonClasses } from "@/app/_components/ui/button";
import { Notice } from "@/app/_components/ui/notice";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/app/_components/ui/tabs";
import { useToast } from "@/app/_components/ui/toast";
import { plural } from "@/app/_i18n/catalogue";
import { useLanguage, useT } from "@/app/_i18n/client";
import { catalogueError, useTRPCClient } from "@/app/_trpc/client";
import type { ErrorObject } from "@/server/errors";
import { isAppError, messageFor } from "@/server/errors";
import type { StorefrontEditorDto } from "@/server/storefronts/dto";
import { UpdateStorefrontInput, UpdateStorefrontSettingsInput } from "@/server/storefronts/schema";
import { parseInput } from "@/server/validation";
import { UpgradePrompt } from "../../_components/upgrade-prompt";
import {
  type EditorForm,
  fieldIdOf,
  formFromEditor,
  patchOf,
  SECTIONS,
  type Section,
  sectionOf,
} from "../../_lib/form";
import { BrandingSection } from "./branding-section";
import { CategoriesSection } from "./categories-section";
import { AboutSection, GeneralSection } from "./general-section";
import { HoursSection } from "./hours-section";
import { ServiceSection } from "./service-section";

/** Field errors by the `param` that named them (the JSON path /v1 uses). */
export type FieldErrors = Record<string, string>;

/** What every section gets: the form, a setter, and the error of a field by its param. */
export type SectionProps = {
  form: EditorForm;
  update: (change: Partial<EditorForm>) => void;
  errorFor: (param: string) => string | undefined;
  editor: StorefrontEditorDto;
};

type PageMessage =
  | { kind: "conflict"; message: string }
  | { kind: "upgrade"; message: string; upgradeUrl: string | null }
  | { kind: "verify"; message: string }
  | { kind: "error"; message: string };

/**
 * The storefront editor (docs/ui.md, "Storefronts"): every field of the storefront input in six sections, saved
 * as a PATCH of what changed, carrying the `updatedAt` it loaded (a stale save is `storefront_conflict`, with an
 * offer to reload). Validated with /v1's own schema before sending; the server validates again, and each
 * `invalid_request` lands on the field its `param` names.
 */
export function StorefrontEditor({ initial }: { initial: StorefrontEditorDto }) {
  const t = useT();
  const language = useLanguage();
  const client = useTRPCClient();
  const router = useRouter();
  const toast = useToast();
  const [editor, setEditor] = useState(initial);
  const [loaded, setLoaded] = useState(() => formFromEditor(initial));
  const [form, setForm] = useState(loaded);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [message, setMessage] = useState<PageMessage | null>(null);
  const [section, setSection] = useState<Section>("general");
  const [busy, setBusy] = useState<null | "save" | "publish" | "reload" | "delete">(null);
  const storefront = editor.storefront;
  const storefrontId = storefront.id;

  const patch = useMemo(() => patchOf(loaded, form), [loaded, form]);
  const isTimeZoneChanged = form.timeZone !== loaded.timeZone;
  const isDirty = Object.keys(patch).length > 0 || isTimeZoneChanged;

  function update(change: Partial<EditorForm>) {
    setForm((current) => ({ ...current, ...change }));
  }

  function reset(next: StorefrontEditorDto) {
    const nextForm = formFromEditor(next);
    setEditor(next);
    setLoaded(nextForm);
    setForm(nextForm);
    setErrors({});
  }

  /** Shows an error on the field its param names (opening its section), else as a page message. */
  function showError(param: string | null, text: string) {
    const target = param ? closestField(param, form) : null;
    if (target) {
      setErrors({ [target]: text });
      const owner = sectionOf(target);
      if (owner) setSection(owner);
      setTimeout(() => document.getElementById(fieldIdOf(target))?.focus(), 50);
    } else {
      setMessage({ kind: "error", message: text });
    }
  }

  function showCaught(error: unknown) {
    const caught: ErrorObject | null = catalogueError(error);
    if (!caught) return setMessage({ kind: "error", message: t("storefronts.networkError") });
    if (caught.code === "storefront_conflict")
      return setMessage({ kind: "conflict", message: caught.message });
    if (caught.type === "plan_limit")
      return setMessage({
        kind: "upgrade",
        message: caught.message,
        upgradeUrl: caught.upgrade?.upgradeUrl ?? null,
      });
    if (caught.code === "email_not_verified") return setMessage({ kind: "verify", message: caught.message });
    showError(caught.param, caught.message);
  }

  /** Validates with /v1's schema in the browser: the first problem shows on its field and nothing is sent. */
  function validate(): boolean {
    try {
      parseInput(UpdateStorefrontInput, patch, language);
      if (isTimeZoneChanged) parseInput(UpdateStorefrontSettingsInput, { timeZone: form.timeZone }, language);
      return true;
    } catch (error) {
      if (!isAppError(error)) throw error;
      showError(error.options.param ?? null, messageFor(error, language));
      return false;
    }
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    setErrors({});
    setMessage(null);
    if (!isDirty) return toast({ title: t("storefronts.editor.noChanges") });
    if (!validate()) return;
    setBusy("save");
    try {
      if (Object.keys(patch).length > 0) {
        await client.storefronts.update.mutate({
          storefrontId,
          expectedUpdatedAt: storefront.updatedAt,
          ...(patch as UpdateStorefrontInput),
        });
      }
      if (isTimeZoneChanged) {
        await client.storefronts.updateSettings.mutate({
          storefrontId,
          settings: { timeZone: form.timeZone },
        });
      }
      reset(await client.storefronts.editor.query({ storefrontId }));
      toast({ title: t("common.saved"), variant: "success" });
      router.refresh();
    } catch (error) {
      showCaught(error);
    } finally {
      setBusy(null);
    }
  }

  async function reload() {
    setBusy("reload");
    try {
      reset(await client.storefronts.editor.query({ storefrontId }));
      setMessage(null);
    } catch (error) {
      showCaught(error);
    } finally {
      setBusy(null);
    }
  }

  async function setPublished(isPublished: boolean) {
    setMessage(null);
    setBusy("publish");
    try {
      const next = isPublished
        ? await client.storefronts.publish.mutate({ storefrontId })
        : await client.storefronts.unpublish.mutate({ storefrontId });
      // Publishing moves updatedAt (the If-Match of the next save) and may assign the slug; edits in progress stay.
      const fresh = { ...editor, storefront: next };
      setEditor(fresh);
      if (form.slug === loaded.slug) {
        setLoaded((current) => ({ ...current, slug: next.slug ?? "" }));
        setForm((current) => ({ ...current, slug: next.slug ?? "" }));
      }
      toast({
        title: isPublished
          ? t("storefronts.editor.publishedToast")
          : t("storefronts.editor.unpublishedToast"),
        variant: "success",
      });
    } catch (error) {
      showCaught(error);
    } finally {
      setBusy(null);
    }
  }

  async function remove() {
    setBusy("delete");
    try {
      await client.storefronts.delete.mutate({ storefrontId });
      router.push("/dashboard/storefronts");
      router.refresh();
    } catch (error) {
      showCaught(error);
      setBusy(null);
    }
  }

  const errorFor = (param: string) => errors[param];
  const sectionProps: SectionProps = { form, update, errorFor, editor };
  const errorSections = new Set(Object.keys(errors).map(sectionOf));
  const status = !storefront.published ? "draft" : storefront.hidden ? "hidden" : "published";
  const tabLabel = (key: Section) =>
    errorSections.has(key)
      ? t("storefronts.section.withError", { section: t(`storefronts.section.${key}`) })
      : t(`storefronts.section.${key}`);

  return (
    <>
      <PageHeader
        title={storefront.name}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <Badge tone={status === "published" ? "success" : status === "hidden" ? "warning" : "neutral"}>
              {t(`storefronts.status.${status}`)}
            </Badge>
            {storefront._links.publicUrl ? (
              <a
                href={storefront._links.publicUrl}
                className="text-primary underline"
                target="_blank"
                rel="noreferrer"
              >
                {t("storefronts.editor.viewPublic", { path: `/s/${storefront.slug}` })}
              </a>
            ) : null}
          </span>
        }
        actions={
          <>
            <a
              className={buttonClasses("secondary")}
              href={`/dashboard/storefronts/${storefrontId}/products`}
            >
              {t("storefronts.editor.products", { count: editor.productCount })}
            </a>
            {storefront.published ? (
              <Button variant="secondary" loading={busy === "publish"} onClick={() => setPublished(false)}>
                {t("storefronts.editor.unpublish")}
              </Button>
            ) : (
              <Button variant="secondary" loading={busy === "publish"} onClick={() => setPublished(true)}>
                {t("storefronts.editor.publish")}
              </Button>
            )}
          </>
        }
      />
      <PageMessageView message={message} editor={editor} onReload={reload} isReloading={busy === "reload"} />
      <form onSubmit={save} noValidate aria-label={t("storefronts.editor.formLabel")}>
        <Tabs value={section} onValueChange={(value) => setSection(value as Section)}>
          <TabsList aria-label={t("storefronts.editor.sections")}>
            {(Object.keys(SECTIONS) as Section[]).map((key) => (
              <TabsTrigger key={key} value={key}>
                {tabLabel(key)}
              </TabsTrigger>
            ))}
          </TabsList>
          <TabsContent value="general">
            <GeneralSection {...sectionProps} />
          </TabsContent>
          <TabsContent value="branding">
            <BrandingSection {...sectionProps} />
          </TabsContent>
          <TabsContent value="hours">
            <HoursSection {...sectionProps} />
          </TabsContent>
          <TabsContent value="service">
            <ServiceSection {...sectionProps} />
          </TabsContent>
          <TabsContent value="about">
            <AboutSection {...sectionProps} />
          </TabsContent>
          <TabsContent value="categories">
            <CategoriesSection {...sectionProps} />
          </TabsContent>
        </Tabs>
        <div className="sticky bottom-0 z-10 mt-6 flex flex-wrap items-center gap-3 border-t border-border bg-bg py-3">
          <Button type="submit" loading={busy === "save"}>
            {t("common.save")}
          </Button>
          <Button variant="ghost" disabled={!isDirty} onClick={() => reset(editor)}>
            {t("storefronts.editor.discard")}
          </Button>
          <span className="text-sm text-muted" aria-live="polite">
            {isDirty ? t("storefronts.editor.unsaved") : t("storefronts.editor.upToDate")}
          </span>
        </div>
      </form>
      <section aria-labelledby="danger-zone" className="mt-10 rounded-lg border border-danger p-4 sm:p-6">
        <h2 id="danger-zone" className="text-base font-semibold">
          {t("storefronts.delete.heading")}
        </h2>
        <p className="mt-1 mb-4 text-sm text-muted">{t("storefronts.delete.hint")}</p>
        <ConfirmDialog
          trigger={
            <Button variant="danger" loading={busy === "delete"}>
              {t("storefronts.editor.delete")}
            </Button>
          }
          title={t("storefronts.delete.title", { name: storefront.name })}
          description={plural(t, language, "storefronts.delete.body", { count: editor.productCount })}
          cancelLabel={t("common.cancel")}
          actionLabel={t("storefronts.delete.confirm")}
          onAction={remove}
        />
      </section>
    </>
  );
}

/** The param of a field the page shows, or the nearest enclosing one (`branding.theme` for a union's error). */
function closestField(param: string, form: EditorForm): string | null {
  const known = knownFields(form);
  let current = param;
  for (;;) {
    if (known.has(current)) return current;
    const cut = Math.max(current.lastIndexOf("."), current.lastIndexOf("["));
    if (cut <= 0) return null;
    current = current.slice(0, cut);
  }
}

const DAY_NAMES = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/** Every param that has a field of its own in some section (fields of a closed tab are not in the document). */
function knownFields(form: EditorForm): Set<string> {
  return new Set([
    ...["name", "language", "currency", "businessType", "slug", "hidden", "timeZone", "pickup", "dineIn"],
    ...["branding.logoUrl", "branding.backgroundUrl", "branding.theme", "branding.font"],
    ...["branding.theme.primary", "branding.theme.secondary", "branding.theme.tertiary"],
    ...["delivery", "delivery.type", "delivery.fixedPrice", "delivery.ranges"],
    ...["biography", "biography.title", "biography.description", "blocks", "categories"],
    ...DAY_NAMES.flatMap((day) => [`schedule.${day}.open`, `schedule.${day}.close`, `schedule.${day}`]),
    ...form.ranges.flatMap((_, i) =>
      ["fromKm", "toKm", "price"].map((key) => `delivery.ranges[${i}].${key}`),
    ),
    ...form.categories.map((_, i) => `categories[${i}].name`),
  ]);
}

function PageMessageView({
  message,
  editor,
  onReload,
  isReloading,
}: {
  message: PageMessage | null;
  editor: StorefrontEditorDto;
  onReload: () => void;
  isReloading: boolean;
}): ReactNode {
  const t = useT();
  if (!message) return null;
  if (message.kind === "upgrade")
    return <UpgradePrompt message={message.message} usage={editor.usage} upgradeUrl={message.upgradeUrl} />;
  return (
    <Notice tone="danger" role="alert" className="mb-4">
      <div data-testid={`editor-${message.kind}`} className="space-y-2">
        <p>{message.message}</p>
        {message.kind === "conflict" ? (
          <>
            <p>{t("storefronts.conflict.body")}</p>
            <Button size="sm" loading={isReloading} onClick={onReload}>
              {t("storefronts.conflict.reload")}
            </Button>
          </>
        ) : null}
        {message.kind === "verify" ? (
          <p>
            {t("storefronts.verify.body")}{" "}
            <a href="/dashboard/account" className="text-primary underline">
              {t("storefronts.verify.action")}
            </a>
          </p>
        ) : null}
      </div>
    </Notice>
  );
}
