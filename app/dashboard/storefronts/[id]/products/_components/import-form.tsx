"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Badge } from "@/app/_components/ui/badge";
import { Button, buttonClasses } from "@/app/_components/ui/button";
import { Field } from "@/app/_components/ui/field";
import { Input } from "@/app/_components/ui/input";
import { Notice } from "@/app/_components/ui/notice";
import { Table, TableCaption, TableContainer, TBody, Td, THead, Th, Tr } from "@/app/_components/ui/table";
import { type Language, plural, type Translate } from "@/app/_i18n/catalogue";
import { useLanguage, useT } from "@/app/_i18n/client";
import { catalogueError, useTRPC } from "@/app/_trpc/client";
import { ProductManifest } from "@/server/products/schema";
import { validationIssues } from "@/server/validation";
import { decodeFile, ImportFileError, type ImportProblem, rowsFromFile } from "../_lib/import-file";

/** The batch operation's limit per call (docs/api.md, "Products"). */
const BATCH_SIZE = 100;

/** A problem of the file in the page's words: the column's name first, as the schema's issues are shown. */
function problemText(t: Translate, language: Language, problem: ImportProblem): string {
  const text = (() => {
    switch (problem.reason) {
      case "unclosedQuote":
        return t("import.problem.unclosedQuote");
      case "badQuote":
        return t("import.problem.badQuote");
      case "tooManyCells":
        return plural(t, language, "import.problem.tooManyCells", {
          cells: problem.cells ?? 0,
          count: problem.columns ?? 0,
        });
      case "badNumber":
        return t("import.problem.badNumber", { value: problem.value ?? "" });
      case "ambiguousNumber":
        return t("import.problem.ambiguousNumber", { value: problem.value ?? "" });
      case "mixedDecimalMarks":
        return t("import.problem.mixedDecimalMarks", {
          value: problem.value ?? "",
          firstRow: problem.firstRow ?? 0,
          firstColumn: problem.firstColumn ?? "",
        });
    }
  })();
  return problem.column ? `${problem.column}: ${text}` : text;
}

type Row = { row: number; product: Record<string, unknown>; problem: string | null };
type Outcome =
  | { row: number; title: string; kind: "created"; productId: string }
  | { row: number; title: string; kind: "rejected" | "invalid"; message: string; upgradeUrl?: string };

/**
 * Bulk import (docs/ui.md, "Products"): a CSV (`,` `;` or tab, decimal point or comma) or JSON file read in the
 * browser, rows numbered as the spreadsheet shows them (header = 1), each row checked with the API's
 * `ProductManifest`, the valid rows sent through the batch operation 100 at a time, and the answer shown row by
 * row: created, rejected by the plan's limit (the 207's `products_over_limit`), or not sent (the field at fault).
 */
export function ImportForm({ storefrontId }: { storefrontId: string }) {
  const t = useT();
  const language = useLanguage();
  const trpc = useTRPC();
  const router = useRouter();
  const [file, setFile] = useState<{ name: string; rows: Row[] } | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [outcomes, setOutcomes] = useState<Outcome[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const batch = useMutation(trpc.products.importBatch.mutationOptions());
  const base = `/dashboard/storefronts/${storefrontId}/products`;

  async function read(selected: File | undefined) {
    setOutcomes(null);
    setFailure(null);
    setFileError(null);
    setFile(null);
    if (!selected) return;
    try {
      const parsed = rowsFromFile(selected.name, decodeFile(await selected.arrayBuffer()));
      if (parsed.length === 0) {
        setFileError(t("import.empty"));
        return;
      }
      const rows = parsed.map(({ row, product, problem }) => {
        if (problem) return { row, product, problem: problemText(t, language, problem) };
        const [issue] = validationIssues(ProductManifest, product, language);
        return {
          row,
          product,
          problem: issue ? (issue.param ? `${issue.param}: ${issue.message}` : issue.message) : null,
        };
      });
      setFile({ name: selected.name, rows });
    } catch (error) {
      const reason =
        error instanceof ImportFileError
          ? t("import.problemAtRow", {
              row: error.problem.row,
              problem: problemText(t, language, error.problem),
            })
          : error instanceof Error
            ? error.message
            : String(error);
      setFileError(t("import.unreadable", { reason }));
    }
  }

  async function send() {
    if (!file) return;
    setFailure(null);
    const results: Outcome[] = file.rows
      .filter((row) => row.problem)
      .map((row) => ({
        row: row.row,
        title: String(row.product.title ?? ""),
        kind: "invalid",
        message: row.problem ?? "",
      }));
    const valid = file.rows.filter((row) => !row.problem);
    try {
      for (let start = 0; start < valid.length; start += BATCH_SIZE) {
        const chunk = valid.slice(start, start + BATCH_SIZE);
        const answer = await batch.mutateAsync({
          storefrontId,
          products: chunk.map((row) => row.product as ProductManifest),
        });
        const rejected = new Map(answer.rejected.map((r) => [r.index, r.error]));
        let created = 0;
        chunk.forEach((row, index) => {
          const title = String(row.product.title ?? "");
          const error = rejected.get(index);
          if (error) {
            results.push({
              row: row.row,
              title,
              kind: "rejected",
              message: error.message,
              upgradeUrl: error.upgrade?.upgradeUrl,
            });
          } else {
            const product = answer.products[created++];
            results.push({ row: row.row, title, kind: "created", productId: product?.id ?? "" });
          }
        });
      }
    } catch (error) {
      setFailure(catalogueError(error)?.message ?? String(error));
    }
    setOutcomes(results.sort((a, b) => a.row - b.row));
    router.refresh();
  }

  const invalid = file?.rows.filter((row) => row.problem).length ?? 0;
  const sendable = (file?.rows.length ?? 0) - invalid;
  const count = (kind: Outcome["kind"]) => outcomes?.filter((o) => o.kind === kind).length ?? 0;
  return (
    <div className="space-y-6">
      <Field id="import-file" label={t("import.file")} hint={t("import.fileHint")} error={fileError}>
        <Input
          type="file"
          accept=".csv,.tsv,.txt,.json,text/csv,text/tab-separated-values,application/json"
          className="h-auto py-2"
          onChange={(event) => void read(event.target.files?.[0])}
        />
      </Field>
      {file ? (
        <div className="space-y-3">
          <p className="text-sm text-fg" role="status">
            {plural(t, language, "import.rowsRead", { count: file.rows.length, file: file.name })}
            {invalid > 0 ? ` ${plural(t, language, "import.invalidRows", { count: invalid })}` : ""}
          </p>
          <Button
            onClick={() => void send()}
            loading={batch.isPending}
            disabled={sendable === 0 || outcomes !== null}
          >
            {plural(t, language, "import.send", { count: sendable })}
          </Button>
        </div>
      ) : null}
      {failure ? (
        <Notice tone="danger" role="alert">
          {failure}
        </Notice>
      ) : null}
      {outcomes ? (
        <section className="space-y-3" aria-labelledby="import-summary">
          <p
            id="import-summary"
            className="text-sm font-medium text-fg"
            role="status"
            data-testid="import-summary"
          >
            {t("import.summary", {
              created: count("created"),
              rejected: count("rejected"),
              invalid: count("invalid"),
            })}
          </p>
          <TableContainer label={t("import.caption")}>
            <Table>
              <TableCaption className="sr-only">{t("import.caption")}</TableCaption>
              <THead>
                <Tr>
                  <Th className="text-right">{t("import.colRow")}</Th>
                  <Th>{t("import.colTitle")}</Th>
                  <Th>{t("import.colResult")}</Th>
                </Tr>
              </THead>
              <TBody>
                {outcomes.map((outcome) => (
                  <Tr key={outcome.row} data-testid="import-row" data-result={outcome.kind}>
                    <Td className="text-right tabular-nums">{outcome.row}</Td>
                    <Td>
                      {outcome.kind === "created" ? (
                        <Link
                          href={`${base}/${outcome.productId}`}
                          className="text-primary underline underline-offset-2"
                        >
                          {outcome.title}
                        </Link>
                      ) : (
                        outcome.title
                      )}
                    </Td>
                    <Td>
                      {outcome.kind === "created" ? (
                        <Badge tone="success">{t("import.created")}</Badge>
                      ) : (
                        <div className="space-y-1">
                          <Badge tone="danger">
                            {outcome.kind === "rejected" ? t("import.rejected") : t("import.invalid")}
                          </Badge>
                          <p className="text-sm text-fg">{outcome.message}</p>
                          {outcome.kind === "rejected" && outcome.upgradeUrl ? (
                            <a
                              href={outcome.upgradeUrl}
                              className="text-sm text-primary underline underline-offset-2"
                            >
                              {t("import.upgrade")}
                            </a>
                          ) : null}
                        </div>
                      )}
                    </Td>
                  </Tr>
                ))}
              </TBody>
            </Table>
          </TableContainer>
          <Link href={base} className={buttonClasses("secondary")}>
            {t("editor.backToProducts")}
          </Link>
        </section>
      ) : null}
    </div>
  );
}
