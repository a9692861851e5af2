"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmDialog } from "@/app/_components/ui/alert-dialog";
import { Badge } from "@/app/_components/ui/badge";
import { Button, buttonClasses } from "@/app/_components/ui/button";
import { Checkbox } from "@/app/_components/ui/checkbox";
import { Input } from "@/app/_components/ui/input";
import { Table, TableCaption, TableContainer, TBody, Td, THead, Th, Tr } from "@/app/_components/ui/table";
import { useToast } from "@/app/_components/ui/toast";
import { useLanguage, useT } from "@/app/_i18n/client";
import { catalogueError, useTRPC } from "@/app/_trpc/client";
import { bodyParam, checkWithSchema, type FieldErrors } from "@/app/dashboard/_lib/catalog-forms";
import { UpdateProductInput } from "@/server/products/schema";

export type ProductRow = {
  id: string;
  title: string;
  sku: string | null;
  category: string | null;
  position: number | null;
  price: number;
  salePrice: number | null;
  stock: number | null;
  hide: boolean | null;
  thumbnailUrl: string | null;
  imageProcessingPending: boolean;
};

/** The inline-editable fields of a row, as typed. */
type Draft = { price: string; salePrice: string; stock: string; hide: boolean };

function draftOf(row: ProductRow): Draft {
  return {
    price: String(row.price),
    salePrice: row.salePrice === null ? "" : String(row.salePrice),
    stock: row.stock === null ? "" : String(row.stock),
    hide: row.hide === true,
  };
}

/** Empty is null (no sale price, stock not tracked); anything else a number, or NaN for the schema to name. */
function numberOrNull(value: string): number | null {
  return value.trim() === "" ? null : Number(value.replace(",", "."));
}

/** Only the fields that changed; price and sale price travel together so the schema checks salePrice < price. */
function patchOf(row: ProductRow, draft: Draft): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const price = numberOrNull(draft.price);
  const salePrice = numberOrNull(draft.salePrice);
  if (price !== row.price || salePrice !== row.salePrice) {
    patch.price = price;
    patch.salePrice = salePrice;
  }
  const stock = numberOrNull(draft.stock);
  if (stock !== row.stock) patch.stock = stock;
  if (draft.hide !== (row.hide === true)) patch.hide = draft.hide;
  return patch;
}

/**
 * The products table (docs/ui.md, "Products"): price, sale price, stock and hide edited in place, each row saved on
 * its own with the API's `UpdateProductInput` schema (checked here, then by the server); an error shows under the
 * field its `param` names. Delete asks first.
 */
export function ProductsTable({
  storefrontId,
  currency,
  rows: initialRows,
}: {
  storefrontId: string;
  currency: string;
  rows: ProductRow[];
}) {
  const t = useT();
  const [rows, setRows] = useState(initialRows);
  return (
    <TableContainer label={t("products.caption")}>
      <Table>
        <TableCaption className="sr-only">{t("products.caption")}</TableCaption>
        <THead>
          <Tr>
            <Th>{t("products.colProduct")}</Th>
            <Th>{t("products.colCategory")}</Th>
            <Th className="text-right">{t("products.colPosition")}</Th>
            <Th>
              {t("products.colPrice")} ({currency})
            </Th>
            <Th>
              {t("products.colSalePrice")} ({currency})
            </Th>
            <Th>{t("products.colStock")}</Th>
            <Th>{t("products.colHidden")}</Th>
            <Th>
              <span className="sr-only">{t("products.colActions")}</span>
            </Th>
          </Tr>
        </THead>
        <TBody>
          {rows.map((row) => (
            <EditableRow
              key={row.id}
              storefrontId={storefrontId}
              row={row}
              onSaved={(next) => setRows((all) => all.map((r) => (r.id === next.id ? next : r)))}
              onDeleted={() => setRows((all) => all.filter((r) => r.id !== row.id))}
            />
          ))}
        </TBody>
      </Table>
    </TableContainer>
  );
}

function EditableRow({
  storefrontId,
  row,
  onSaved,
  onDeleted,
}: {
  storefrontId: string;
  row: ProductRow;
  onSaved: (row: ProductRow) => void;
  onDeleted: () => void;
}) {
  const t = useT();
  const language = useLanguage();
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const [draft, setDraft] = useState(() => draftOf(row));
  const [errors, setErrors] = useState<FieldErrors>({});
  const update = useMutation(trpc.products.update.mutationOptions());
  const remove = useMutation(trpc.products.delete.mutationOptions());
  const patch = patchOf(row, draft);
  const isDirty = Object.keys(patch).length > 0;
  const editHref = `/dashboard/storefronts/${storefrontId}/products/${row.id}`;
  const fieldId = (field: string) => `p-${row.id}-${field}`;

  async function save() {
    const found = checkWithSchema(UpdateProductInput, patch, language);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    try {
      const saved = await update.mutateAsync({ storefrontId, productId: row.id, patch });
      const next: ProductRow = {
        ...row,
        price: saved.price,
        salePrice: saved.salePrice,
        stock: saved.stock,
        hide: saved.hide,
      };
      onSaved(next);
      setDraft(draftOf(next));
      toast({ title: t("products.rowSaved", { title: row.title }), variant: "success" });
    } catch (error) {
      const body = catalogueError(error);
      const param = bodyParam(body?.param, ["patch"]) ?? "";
      setErrors({ [param]: body?.message ?? String(error) });
    }
  }

  async function destroy() {
    try {
      await remove.mutateAsync({ storefrontId, productId: row.id });
      onDeleted();
      toast({ title: t("products.deleted", { title: row.title }) });
      router.refresh();
    } catch (error) {
      setErrors({ "": catalogueError(error)?.message ?? String(error) });
    }
  }

  const numberCell = (field: "price" | "salePrice" | "stock", label: string) => (
    <Td>
      <Input
        id={fieldId(field)}
        inputMode={field === "stock" ? "numeric" : "decimal"}
        aria-label={label}
        aria-invalid={errors[field] ? true : undefined}
        aria-describedby={errors[field] ? `${fieldId(field)}-error` : undefined}
        value={draft[field]}
        placeholder={field === "stock" ? t("products.unlimitedStock") : undefined}
        onChange={(event) => setDraft({ ...draft, [field]: event.target.value })}
        onKeyDown={(event) => {
          if (event.key === "Enter" && isDirty) void save();
        }}
        className="h-9 w-28"
      />
      {errors[field] ? (
        <p id={`${fieldId(field)}-error`} className="mt-1 max-w-48 text-xs font-medium text-danger">
          {errors[field]}
        </p>
      ) : null}
    </Td>
  );

  return (
    <Tr data-testid="product-row">
      <Td>
        <div className="flex min-w-48 items-start gap-3">
          {row.thumbnailUrl ? (
            // biome-ignore lint/performance/noImgElement: the merchant's own URL, shown as it is
            <img
              src={row.thumbnailUrl}
              alt=""
              className="size-10 shrink-0 rounded border border-border object-cover"
            />
          ) : (
            <div
              className="size-10 shrink-0 rounded border border-dashed border-border-strong"
              aria-hidden="true"
            />
          )}
          <div className="min-w-0">
            <Link href={editHref} className="font-medium text-primary underline-offset-2 hover:underline">
              {row.title}
            </Link>
            {row.sku ? <div className="text-xs text-muted">{t("products.sku", { sku: row.sku })}</div> : null}
            {row.imageProcessingPending ? (
              <Badge tone="warning" className="mt-1">
                {t("products.imagePending")}
              </Badge>
            ) : null}
            {errors[""] ? <p className="mt-1 text-xs font-medium text-danger">{errors[""]}</p> : null}
          </div>
        </div>
      </Td>
      <Td className="whitespace-nowrap">
        {row.category ?? <span className="text-muted">{t("products.noCategory")}</span>}
      </Td>
      <Td className="text-right tabular-nums">{row.position ?? "–"}</Td>
      {numberCell("price", t("products.priceOf", { title: row.title }))}
      {numberCell("salePrice", t("products.salePriceOf", { title: row.title }))}
      {numberCell("stock", t("products.stockOf", { title: row.title }))}
      <Td>
        <Checkbox
          aria-label={t("products.hideOf", { title: row.title })}
          checked={draft.hide}
          onCheckedChange={(checked) => setDraft({ ...draft, hide: checked === true })}
          className="mt-2"
        />
      </Td>
      <Td>
        <div className="flex items-center gap-2">
          <Button
            size="sm"
            variant={isDirty ? "primary" : "secondary"}
            disabled={!isDirty}
            loading={update.isPending}
            aria-label={t("products.saveRowOf", { title: row.title })}
            onClick={() => void save()}
          >
            {t("products.saveRow")}
          </Button>
          <Link
            href={editHref}
            className={buttonClasses("ghost", "sm")}
            aria-label={t("products.editOf", { title: row.title })}
          >
            {t("products.edit")}
          </Link>
          <ConfirmDialog
            trigger={
              <Button size="sm" variant="ghost" aria-label={t("products.deleteOf", { title: row.title })}>
                {t("common.delete")}
              </Button>
            }
            title={t("products.deleteTitle", { title: row.title })}
            description={t("products.deleteBody")}
            cancelLabel={t("common.cancel")}
            actionLabel={t("common.delete")}
            onAction={() => void destroy()}
          />
        </div>
      </Td>
    </Tr>
  );
}
