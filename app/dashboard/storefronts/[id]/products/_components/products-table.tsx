"use client";

import "./products-table.css";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmDialog } from "@/app/_components/ui/alert-dialog";
import { Badge } from "@/app/_components/ui/badge";
import { Table, TableCaption, TableContainer, TBody, THead, Th, Tr } from "@/app/_components/ui/table";
import { useToast } from "@/app/_components/ui/toast";
import { useLanguage, useT } from "@/app/_i18n/client";
import { catalogueError, useTRPC } from "@/app/_trpc/client";
import { bodyParam, checkWithSchema, type FieldErrors } from "@/app/dashboard/_lib/catalog-forms";
import { type ProductDto, UpdateProductInput } from "@/server/products/schema";

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

type Save = (row: ProductRow, patch: Record<string, unknown>) => Promise<ProductDto>;

/**
 * The products table (docs/ui.md, "Products"): price, sale price, stock and hide edited in place, each row saved on
 * its own with the API's `UpdateProductInput` schema (checked here, then by the server); an error shows under the
 * field its `param` names. Delete asks first. Rows are light (native controls, a few short classes, one set of
 * mutations and one confirmation for the whole table): a page renders 50 of them on the server.
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
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const [rows, setRows] = useState(initialRows);
  const [deleting, setDeleting] = useState<ProductRow | null>(null);
  const [deleteError, setDeleteError] = useState<{ id: string; message: string } | null>(null);
  const update = useMutation(trpc.products.update.mutationOptions());
  const remove = useMutation(trpc.products.delete.mutationOptions());
  const base = `/dashboard/storefronts/${storefrontId}/products`;

  const save: Save = async (row, patch) => {
    const saved = await update.mutateAsync({ storefrontId, productId: row.id, patch });
    setRows((all) => all.map((r) => (r.id === row.id ? { ...r, ...pick(saved) } : r)));
    toast({ title: t("products.rowSaved", { title: row.title }), variant: "success" });
    return saved;
  };

  async function destroy(row: ProductRow) {
    try {
      await remove.mutateAsync({ storefrontId, productId: row.id });
      setRows((all) => all.filter((r) => r.id !== row.id));
      toast({ title: t("products.deleted", { title: row.title }) });
      router.refresh();
    } catch (error) {
      setDeleteError({ id: row.id, message: catalogueError(error)?.message ?? String(error) });
    }
  }

  return (
    <>
      <TableContainer label={t("products.caption")}>
        <Table className="pt">
          <TableCaption className="sr-only">{t("products.caption")}</TableCaption>
          <THead>
            <Tr>
              <Th>{t("products.colProduct")}</Th>
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
                row={row}
                href={`${base}/${row.id}`}
                save={save}
                onDelete={() => setDeleting(row)}
                deleteError={deleteError?.id === row.id ? deleteError.message : null}
              />
            ))}
          </TBody>
        </Table>
      </TableContainer>
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => {
          if (!open) setDeleting(null);
        }}
        title={t("products.deleteTitle", { title: deleting?.title ?? "" })}
        description={t("products.deleteBody")}
        cancelLabel={t("common.cancel")}
        actionLabel={t("common.delete")}
        onAction={() => {
          if (deleting) void destroy(deleting);
        }}
      />
    </>
  );
}

function pick(saved: ProductDto): Pick<ProductRow, "price" | "salePrice" | "stock" | "hide"> {
  return { price: saved.price, salePrice: saved.salePrice, stock: saved.stock, hide: saved.hide };
}

function EditableRow({
  row,
  href,
  save,
  onDelete,
  deleteError,
}: {
  row: ProductRow;
  href: string;
  save: Save;
  onDelete: () => void;
  deleteError: string | null;
}) {
  const t = useT();
  const language = useLanguage();
  const [draft, setDraft] = useState(() => draftOf(row));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [isSaving, setSaving] = useState(false);
  const patch = patchOf(row, draft);
  const isDirty = Object.keys(patch).length > 0;

  async function submit() {
    const found = checkWithSchema(UpdateProductInput, patch, language);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setSaving(true);
    try {
      const saved = await save(row, patch);
      setDraft(draftOf({ ...row, ...pick(saved) }));
    } catch (error) {
      const body = catalogueError(error);
      setErrors({ [bodyParam(body?.param, ["patch"]) ?? ""]: body?.message ?? String(error) });
    } finally {
      setSaving(false);
    }
  }

  const numberCell = (field: "price" | "salePrice" | "stock", label: string) => {
    const errorId = errors[field] ? `${row.id}-${field}-error` : undefined;
    return (
      <td>
        <input
          type="text"
          inputMode={field === "stock" ? "numeric" : "decimal"}
          aria-label={label}
          aria-invalid={errors[field] ? true : undefined}
          aria-describedby={errorId}
          value={draft[field]}
          placeholder={field === "stock" ? "–" : undefined}
          title={field === "stock" ? t("products.unlimitedStock") : undefined}
          onChange={(event) => setDraft({ ...draft, [field]: event.target.value })}
          onKeyDown={(event) => {
            if (event.key === "Enter" && isDirty) void submit();
          }}
        />
        {errorId ? (
          <p id={errorId} className="pt-e">
            {errors[field]}
          </p>
        ) : null}
      </td>
    );
  };

  const rowError = errors[""] ?? deleteError;
  return (
    <tr data-testid="product-row">
      <td>
        <div className="pt-p">
          {row.thumbnailUrl ? (
            // biome-ignore lint/performance/noImgElement: the 160 px variant (or the merchant's own URL), shown as it is
            <img
              src={row.thumbnailUrl}
              alt={t("products.thumbnailAlt", { title: row.title })}
              width={40}
              height={40}
              loading="lazy"
              decoding="async"
            />
          ) : (
            <span aria-hidden="true" />
          )}
          <div>
            <a href={href}>{row.title}</a>
            <div className="pt-m">
              {[
                row.sku ? t("products.sku", { sku: row.sku }) : null,
                row.category ?? t("products.noCategory"),
              ]
                .filter(Boolean)
                .join(" · ")}
            </div>
            {row.imageProcessingPending ? (
              <Badge tone="warning" className="mt-1">
                {t("products.imagePending")}
              </Badge>
            ) : null}
            {rowError ? <p className="pt-e">{rowError}</p> : null}
          </div>
        </div>
      </td>
      <td className="pt-n">{row.position ?? "–"}</td>
      {numberCell("price", t("products.priceOf", { title: row.title }))}
      {numberCell("salePrice", t("products.salePriceOf", { title: row.title }))}
      {numberCell("stock", t("products.stockOf", { title: row.title }))}
      <td>
        <input
          type="checkbox"
          aria-label={t("products.hideOf", { title: row.title })}
          checked={draft.hide}
          onChange={(event) => setDraft({ ...draft, hide: event.target.checked })}
        />
      </td>
      <td>
        <div className="pt-a">
          <button
            type="button"
            data-dirty={isDirty ? "" : undefined}
            disabled={!isDirty || isSaving}
            aria-busy={isSaving || undefined}
            aria-label={t("products.saveRowOf", { title: row.title })}
            onClick={() => void submit()}
          >
            {t("products.saveRow")}
          </button>
          <button type="button" aria-label={t("products.deleteOf", { title: row.title })} onClick={onDelete}>
            {t("common.delete")}
          </button>
        </div>
      </td>
    </tr>
  );
}
