"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type ReactElement, useState } from "react";
import { ConfirmDialog } from "@/app/_components/ui/alert-dialog";
import { Badge } from "@/app/_components/ui/badge";
import { Button } from "@/app/_components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/app/_components/ui/card";
import { Checkbox } from "@/app/_components/ui/checkbox";
import { Field } from "@/app/_components/ui/field";
import { Input, Textarea } from "@/app/_components/ui/input";
import { Label } from "@/app/_components/ui/label";
import { Notice } from "@/app/_components/ui/notice";
import { useLanguage, useT } from "@/app/_i18n/client";
import { catalogueError, useTRPC } from "@/app/_trpc/client";
import { PhotoField } from "@/app/dashboard/_components/photo-field";
import { bodyParam, checkWithSchema, type FieldErrors } from "@/app/dashboard/_lib/catalog-forms";
import { type ProductDto, ProductManifest, UpdateProductInput } from "@/server/products/schema";

type OptionDraft = { title: string; price: string; available: boolean; stock: string };
type GroupDraft = {
  title: string;
  obligatory: boolean;
  multipleOption: boolean;
  minOptions: string;
  maxOptions: string;
  options: OptionDraft[];
};
type Draft = {
  title: string;
  price: string;
  salePrice: string;
  description: string;
  category: string;
  subcategory: string;
  tags: string;
  position: string;
  sku: string;
  slug: string;
  stock: string;
  hide: boolean;
  cartProduct: boolean;
  imageUrl: string;
  thumbnailUrl: string;
  groups: GroupDraft[];
};

const text = (value: string | null | undefined) => value ?? "";
const numberText = (value: number | null | undefined) =>
  value === null || value === undefined ? "" : String(value);

function draftOf(product: ProductDto | null): Draft {
  return {
    title: text(product?.title),
    price: numberText(product?.price),
    salePrice: numberText(product?.salePrice),
    description: text(product?.description),
    category: text(product?.category),
    subcategory: text(product?.subcategory),
    tags: (product?.tags ?? []).join(", "),
    position: numberText(product?.position),
    sku: text(product?.sku),
    slug: text(product?.slug),
    stock: numberText(product?.stock),
    hide: product?.hide === true,
    cartProduct: product?.cartProduct === true,
    imageUrl: text(product?.imageUrl),
    thumbnailUrl: text(product?.thumbnailUrl),
    groups: (product?.extraProductsCategory ?? []).map((group) => ({
      title: group.title,
      obligatory: group.obligatory,
      multipleOption: group.multipleOption,
      minOptions: String(group.minOptions),
      maxOptions: String(group.maxOptions),
      options: (group.extraProducts ?? []).map((option) => ({
        title: option.title,
        price: String(option.price),
        available: option.available,
        stock: numberText(option.stock),
      })),
    })),
  };
}

/** Empty is null; anything else a number (NaN and fractions stay, for the API's schema to name). */
function numberOrNull(value: string): number | null {
  return value.trim() === "" ? null : Number(value.trim().replace(",", "."));
}
const textOrNull = (value: string) => (value.trim() === "" ? null : value.trim());

/**
 * The form as the API's product fields. `hide` and `cartProduct` unticked stay null when they were never set, so
 * saving an untouched product sends nothing.
 */
function manifestOf(draft: Draft, initial: ProductDto | null): Record<string, unknown> {
  const flag = (isOn: boolean, stored: boolean | null | undefined) =>
    isOn ? true : stored == null ? null : false;
  const tags = draft.tags
    .split(",")
    .map((tag) => tag.trim())
    .filter(Boolean);
  return {
    title: draft.title.trim(),
    price: draft.price.trim() === "" ? undefined : numberOrNull(draft.price),
    salePrice: numberOrNull(draft.salePrice),
    description: textOrNull(draft.description),
    category: textOrNull(draft.category),
    subcategory: textOrNull(draft.subcategory),
    tags: tags.length > 0 ? tags : null,
    position: numberOrNull(draft.position),
    sku: textOrNull(draft.sku),
    slug: textOrNull(draft.slug),
    stock: numberOrNull(draft.stock),
    hide: flag(draft.hide, initial?.hide),
    cartProduct: flag(draft.cartProduct, initial?.cartProduct),
    imageUrl: textOrNull(draft.imageUrl),
    thumbnailUrl: textOrNull(draft.thumbnailUrl),
    extraProductsCategory:
      draft.groups.length === 0
        ? null
        : draft.groups.map((group) => ({
            title: group.title.trim(),
            obligatory: group.obligatory,
            multipleOption: group.multipleOption,
            minOptions: numberOrNull(group.minOptions),
            maxOptions: numberOrNull(group.maxOptions),
            extraProducts:
              group.options.length === 0
                ? null
                : group.options.map((option) => ({
                    title: option.title.trim(),
                    price: numberOrNull(option.price),
                    available: option.available,
                    stock: numberOrNull(option.stock),
                  })),
          })),
  };
}

/** The fields whose value changed (price and sale price together, so the schema compares them). */
function patchOf(draft: Draft, initial: ProductDto): Record<string, unknown> {
  const before = manifestOf(draftOf(initial), initial);
  const after = manifestOf(draft, initial);
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(after)) {
    if (JSON.stringify(after[key]) !== JSON.stringify(before[key])) patch[key] = after[key];
  }
  if ("price" in patch || "salePrice" in patch) {
    patch.price = after.price;
    patch.salePrice = after.salePrice;
  }
  return patch;
}

const emptyGroup = (): GroupDraft => ({
  title: "",
  obligatory: false,
  multipleOption: false,
  minOptions: "0",
  maxOptions: "1",
  options: [{ title: "", price: "0", available: true, stock: "" }],
});

/**
 * Every field of a product (docs/ui.md, "Products"), option groups included, checked with the API's own
 * `ProductManifest` / `UpdateProductInput` before sending; a catalogue error from the server lands on the field its
 * `param` names. A new product is created; an existing one sends only what changed.
 */
export function ProductEditor({
  storefrontId,
  currency,
  categories,
  product,
  justCreated,
}: {
  storefrontId: string;
  currency: string;
  categories: string[];
  product: ProductDto | null;
  justCreated?: boolean;
}) {
  const t = useT();
  const language = useLanguage();
  const trpc = useTRPC();
  const router = useRouter();
  const [initial, setInitial] = useState(product);
  const [draft, setDraft] = useState(() => draftOf(product));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [notice, setNotice] = useState<{ tone: "success" | "danger" | "info"; text: string } | null>(
    justCreated ? { tone: "success", text: t("editor.created") } : null,
  );
  const create = useMutation(trpc.products.create.mutationOptions());
  const update = useMutation(trpc.products.update.mutationOptions());
  const remove = useMutation(trpc.products.delete.mutationOptions());
  const base = `/dashboard/storefronts/${storefrontId}/products`;

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const setGroup = (index: number, change: Partial<GroupDraft>) =>
    setDraft((d) => ({ ...d, groups: d.groups.map((g, i) => (i === index ? { ...g, ...change } : g)) }));
  const setOption = (group: number, index: number, change: Partial<OptionDraft>) =>
    setDraft((d) => ({
      ...d,
      groups: d.groups.map((g, i) =>
        i === group ? { ...g, options: g.options.map((o, j) => (j === index ? { ...o, ...change } : o)) } : g,
      ),
    }));

  function showServerError(error: unknown) {
    const body = catalogueError(error);
    const param = bodyParam(body?.param, ["product", "patch"]);
    const message = body?.message ?? String(error);
    if (param && document.getElementById(`pf-${param}`)) {
      setErrors({ [param]: message });
      setNotice({ tone: "danger", text: t("editor.fixErrors") });
    } else {
      setErrors({});
      setNotice({ tone: "danger", text: message });
    }
  }

  function showCheck(found: FieldErrors): boolean {
    setErrors(found);
    if (Object.keys(found).length === 0) return true;
    const stray = Object.entries(found).find(([param]) => !document.getElementById(`pf-${param}`));
    setNotice({ tone: "danger", text: stray ? `${stray[0]}: ${stray[1]}` : t("editor.fixErrors") });
    return false;
  }

  async function submit() {
    setNotice(null);
    if (!initial) {
      const manifest = manifestOf(draft, null);
      if (!showCheck(checkWithSchema(ProductManifest, manifest, language))) return;
      try {
        const created = await create.mutateAsync({ storefrontId, product: manifest as ProductManifest });
        router.push(`${base}/${created.id}?created=1`);
      } catch (error) {
        showServerError(error);
      }
      return;
    }
    const patch = patchOf(draft, initial);
    if (Object.keys(patch).length === 0) {
      setNotice({ tone: "info", text: t("editor.nothingChanged") });
      return;
    }
    if (!showCheck(checkWithSchema(UpdateProductInput, patch, language))) return;
    try {
      const saved = await update.mutateAsync({ storefrontId, productId: initial.id, patch });
      setInitial(saved);
      setDraft(draftOf(saved));
      setNotice({ tone: "success", text: t("editor.saved") });
      router.refresh();
    } catch (error) {
      showServerError(error);
    }
  }

  async function destroy() {
    if (!initial) return;
    try {
      await remove.mutateAsync({ storefrontId, productId: initial.id });
      router.push(base);
    } catch (error) {
      showServerError(error);
    }
  }

  /** A Field whose id and error follow the API's JSON path of the field. */
  const field = (
    param: string,
    label: string,
    control: ReactElement<{ id?: string }>,
    options: { hint?: string; optional?: boolean; className?: string } = {},
  ) => (
    <Field
      id={`pf-${param}`}
      label={label}
      hint={options.hint}
      error={errors[param]}
      optionalLabel={options.optional ? t("common.optional") : undefined}
      className={options.className}
    >
      {control}
    </Field>
  );

  const check = (id: string, label: string, checked: boolean, onChange: (value: boolean) => void) => (
    <div className="flex items-center gap-2">
      <Checkbox id={id} checked={checked} onCheckedChange={(value) => onChange(value === true)} />
      <Label htmlFor={id} className="font-normal">
        {label}
      </Label>
    </div>
  );

  const isBusy = create.isPending || update.isPending;
  return (
    <form
      noValidate
      className="space-y-6"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      {notice ? (
        <Notice tone={notice.tone} role={notice.tone === "danger" ? "alert" : "status"}>
          {notice.text}
        </Notice>
      ) : null}
      <Card>
        <CardHeader>
          <CardTitle>{t("editor.basics")}</CardTitle>
        </CardHeader>
        <CardContent className="grid gap-4 sm:grid-cols-2">
          {field(
            "title",
            t("editor.title"),
            <Input
              value={draft.title}
              onChange={(e) => set("title", e.target.value)}
              required
              maxLength={200}
            />,
            { className: "sm:col-span-2" },
          )}
          {field(
            "price",
            t("editor.price"),
            <Input
              inputMode="decimal"
              value={draft.price}
              onChange={(e) => set("price", e.target.value)}
              required
            />,
            { hint: t("editor.priceHint", { currency }) },
          )}
          {field(
            "salePrice",
            t("editor.salePrice"),
            <Input
              inputMode="decimal"
              value={draft.salePrice}
              onChange={(e) => set("salePrice", e.target.value)}
            />,
            { hint: t("editor.salePriceHint"), optional: true },
          )}
          {field(
            "description",
            t("editor.productDescription"),
            <Textarea
              value={draft.description}
              onChange={(e) => set("description", e.target.value)}
              rows={3}
            />,
            { optional: true, className: "sm:col-span-2" },
          )}
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle>{t("editor.organization")}</CardTitle>
        </CardHeader>
        <CardContent className="grid gap-4 sm:grid-cols-2">
          {field(
            "category",
            t("editor.category"),
            <Input
              list="pf-categories"
              value={draft.category}
              onChange={(e) => set("category", e.target.value)}
            />,
            { hint: t("editor.categoryHint"), optional: true },
          )}
          <datalist id="pf-categories">
            {categories.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
          {field(
            "subcategory",
            t("editor.subcategory"),
            <Input value={draft.subcategory} onChange={(e) => set("subcategory", e.target.value)} />,
            { optional: true },
          )}
          {field(
            "tags",
            t("editor.tags"),
            <Input value={draft.tags} onChange={(e) => set("tags", e.target.value)} />,
            { hint: t("editor.tagsHint"), optional: true },
          )}
          {field(
            "position",
            t("editor.position"),
            <Input
              inputMode="numeric"
              value={draft.position}
              onChange={(e) => set("position", e.target.value)}
            />,
            { hint: t("editor.positionHint"), optional: true },
          )}
          {field(
            "sku",
            t("editor.sku"),
            <Input value={draft.sku} onChange={(e) => set("sku", e.target.value)} />,
            {
              optional: true,
            },
          )}
          {field(
            "slug",
            t("editor.slug"),
            <Input value={draft.slug} onChange={(e) => set("slug", e.target.value)} />,
            { optional: true },
          )}
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle>{t("editor.inventory")}</CardTitle>
        </CardHeader>
        <CardContent className="grid gap-4 sm:grid-cols-2">
          {field(
            "stock",
            t("editor.stock"),
            <Input inputMode="numeric" value={draft.stock} onChange={(e) => set("stock", e.target.value)} />,
            { hint: t("editor.stockHint"), optional: true },
          )}
          <div className="space-y-3 sm:pt-7">
            {check("pf-hide", t("editor.hide"), draft.hide, (value) => set("hide", value))}
            {check("pf-cartProduct", t("editor.cartProduct"), draft.cartProduct, (value) =>
              set("cartProduct", value),
            )}
          </div>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle>{t("editor.images")}</CardTitle>
        </CardHeader>
        <CardContent className="space-y-4">
          <PhotoField
            id="pf-photo"
            label={t("photo.photo")}
            previewUrl={draft.imageUrl}
            previewAlt={t("editor.preview")}
            onUploaded={(file) => set("imageUrl", file.url)}
          />
          <div className="space-y-4">
            {field(
              "imageUrl",
              t("editor.imageUrl"),
              <Input type="url" value={draft.imageUrl} onChange={(e) => set("imageUrl", e.target.value)} />,
              { hint: t("editor.imageUrlHint"), optional: true },
            )}
            {field(
              "thumbnailUrl",
              t("editor.thumbnailUrl"),
              <Input
                type="url"
                value={draft.thumbnailUrl}
                onChange={(e) => set("thumbnailUrl", e.target.value)}
              />,
              { optional: true },
            )}
            {initial?.imageProcessingPending && draft.imageUrl === (initial.imageUrl ?? "") ? (
              <Badge tone="warning" data-testid="image-pending">
                {t("editor.imagePending")}
              </Badge>
            ) : null}
          </div>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle>{t("editor.options")}</CardTitle>
          <CardDescription>{t("editor.optionsHint")}</CardDescription>
        </CardHeader>
        <CardContent className="space-y-4">
          {errors.extraProductsCategory ? (
            <p className="text-sm font-medium text-danger">{errors.extraProductsCategory}</p>
          ) : null}
          {draft.groups.map((group, g) => {
            const path = `extraProductsCategory[${g}]`;
            return (
              <fieldset
                // biome-ignore lint/suspicious/noArrayIndexKey: groups are edited in place; the index is their identity
                key={g}
                className="space-y-4 rounded-lg border border-border p-4"
                data-testid="option-group"
              >
                <legend className="px-1 text-sm font-semibold">{t("editor.group", { n: g + 1 })}</legend>
                <div className="grid gap-4 sm:grid-cols-2">
                  {field(
                    `${path}.title`,
                    t("editor.groupTitle"),
                    <Input value={group.title} onChange={(e) => setGroup(g, { title: e.target.value })} />,
                    { className: "sm:col-span-2" },
                  )}
                  {field(
                    `${path}.minOptions`,
                    t("editor.minOptions"),
                    <Input
                      inputMode="numeric"
                      value={group.minOptions}
                      onChange={(e) => setGroup(g, { minOptions: e.target.value })}
                    />,
                  )}
                  {field(
                    `${path}.maxOptions`,
                    t("editor.maxOptions"),
                    <Input
                      inputMode="numeric"
                      value={group.maxOptions}
                      onChange={(e) => setGroup(g, { maxOptions: e.target.value })}
                    />,
                  )}
                  {check(`pf-${path}.obligatory`, t("editor.obligatory"), group.obligatory, (value) =>
                    setGroup(g, { obligatory: value }),
                  )}
                  {check(
                    `pf-${path}.multipleOption`,
                    t("editor.multipleOption"),
                    group.multipleOption,
                    (value) => setGroup(g, { multipleOption: value }),
                  )}
                </div>
                <div className="space-y-3">
                  {group.options.map((option, o) => {
                    const at = `${path}.extraProducts[${o}]`;
                    return (
                      <fieldset
                        // biome-ignore lint/suspicious/noArrayIndexKey: options are edited in place
                        key={o}
                        className="grid gap-3 rounded-md border border-border bg-surface-muted p-3 sm:grid-cols-[2fr_1fr_1fr_auto_auto] sm:items-end"
                      >
                        <legend className="sr-only">{t("editor.option", { n: o + 1 })}</legend>
                        {field(
                          `${at}.title`,
                          t("editor.optionTitle"),
                          <Input
                            value={option.title}
                            onChange={(e) => setOption(g, o, { title: e.target.value })}
                          />,
                        )}
                        {field(
                          `${at}.price`,
                          t("editor.optionPrice"),
                          <Input
                            inputMode="decimal"
                            value={option.price}
                            onChange={(e) => setOption(g, o, { price: e.target.value })}
                          />,
                        )}
                        {field(
                          `${at}.stock`,
                          t("editor.optionStock"),
                          <Input
                            inputMode="numeric"
                            value={option.stock}
                            onChange={(e) => setOption(g, o, { stock: e.target.value })}
                          />,
                          { optional: true },
                        )}
                        <div className="pb-2">
                          {check(
                            `pf-${at}.available`,
                            t("editor.optionAvailable"),
                            option.available,
                            (value) => setOption(g, o, { available: value }),
                          )}
                        </div>
                        <Button
                          type="button"
                          variant="ghost"
                          size="sm"
                          className="mb-1"
                          aria-label={t("editor.removeOption", { option: o + 1, group: g + 1 })}
                          onClick={() => setGroup(g, { options: group.options.filter((_, j) => j !== o) })}
                        >
                          {t("editor.removeOptionShort")}
                        </Button>
                      </fieldset>
                    );
                  })}
                </div>
                <div className="flex flex-wrap gap-2">
                  <Button
                    type="button"
                    variant="secondary"
                    size="sm"
                    onClick={() =>
                      setGroup(g, {
                        options: [...group.options, { title: "", price: "0", available: true, stock: "" }],
                      })
                    }
                  >
                    {t("editor.addOption", { n: g + 1 })}
                  </Button>
                  <Button
                    type="button"
                    variant="ghost"
                    size="sm"
                    onClick={() => setDraft((d) => ({ ...d, groups: d.groups.filter((_, i) => i !== g) }))}
                  >
                    {t("editor.removeGroup", { n: g + 1 })}
                  </Button>
                </div>
              </fieldset>
            );
          })}
          <Button
            type="button"
            variant="secondary"
            onClick={() => setDraft((d) => ({ ...d, groups: [...d.groups, emptyGroup()] }))}
          >
            {t("editor.addGroup")}
          </Button>
        </CardContent>
      </Card>

      <div className="flex flex-col-reverse gap-3 sm:flex-row sm:justify-between">
        {initial ? (
          <ConfirmDialog
            trigger={
              <Button type="button" variant="danger">
                {t("editor.delete")}
              </Button>
            }
            title={t("products.deleteTitle", { title: initial.title })}
            description={t("products.deleteBody")}
            cancelLabel={t("common.cancel")}
            actionLabel={t("common.delete")}
            onAction={() => void destroy()}
          />
        ) : (
          <span />
        )}
        <Button type="submit" loading={isBusy}>
          {initial ? t("editor.save") : t("editor.create")}
        </Button>
      </div>
    </form>
  );
}
