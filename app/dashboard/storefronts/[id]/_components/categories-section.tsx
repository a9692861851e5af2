"use client";

import { useState } from "react";
import { Button } from "@/app/_components/ui/button";
import { Field } from "@/app/_components/ui/field";
import { Input } from "@/app/_components/ui/input";
import { Notice } from "@/app/_components/ui/notice";
import { plural } from "@/app/_i18n/catalogue";
import { useLanguage, useT } from "@/app/_i18n/client";
import { type CategoryForm, fieldIdOf, rowKey } from "../../_lib/form";
import type { SectionProps } from "./editor";
import { Fieldset } from "./general-section";

function moved(list: CategoryForm[], from: number, to: number): CategoryForm[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  if (item) next.splice(to, 0, item);
  return next;
}

/**
 * Categories: add, rename, reorder (drag, or the move buttons from the keyboard), remove. The array replaces the
 * stored one (PATCH rule 2), and positions follow this order. Products keep the name they have: the editor says
 * which products a removed or renamed category leaves with an orphan category.
 */
export function CategoriesSection({ form, update, errorFor, editor }: SectionProps) {
  const t = useT();
  const language = useLanguage();
  const [newName, setNewName] = useState("");
  const [dragged, setDragged] = useState<number | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const usage = new Map(editor.categoryUsage.map((entry) => [entry.name, entry.products]));
  const categories = form.categories;
  const names = new Set(categories.map((category) => category.name));
  const loadedNames = new Set(
    categories.map((c) => c.loadedAs).concat((editor.storefront.categories ?? []).map((c) => c.name)),
  );
  const leftBehind = (editor.storefront.categories ?? [])
    .map((c) => c.name)
    .filter((name) => !names.has(name) && (usage.get(name) ?? 0) > 0);
  const orphansAlready = editor.categoryUsage.filter((entry) => !loadedNames.has(entry.name));

  const move = (from: number, to: number) => {
    if (to < 0 || to >= categories.length) return;
    const item = categories[from];
    update({ categories: moved(categories, from, to) });
    if (item) {
      setAnnouncement(t("storefronts.categories.movedTo", { name: item.name, position: to + 1 }));
      const direction = to < from ? "up" : "down";
      setTimeout(() => {
        const button = document.getElementById(
          `category-${direction}-${item.key}`,
        ) as HTMLButtonElement | null;
        (button && !button.disabled
          ? button
          : document.getElementById(`category-handle-${item.key}`)
        )?.focus();
      }, 0);
    }
  };
  const add = () => {
    const name = newName.trim();
    if (!name) return;
    update({ categories: [...categories, { key: rowKey(), name, loadedAs: null }] });
    setNewName("");
  };

  return (
    <Fieldset legend={t("storefronts.section.categories")}>
      <p className="text-sm text-muted">{t("storefronts.categories.hint")}</p>
      {errorFor("categories") ? (
        <p id={fieldIdOf("categories")} tabIndex={-1} className="text-sm font-medium text-danger">
          {errorFor("categories")}
        </p>
      ) : null}
      {categories.length === 0 ? <p className="text-sm">{t("storefronts.categories.empty")}</p> : null}
      <ol className="space-y-2" aria-label={t("storefronts.section.categories")}>
        {categories.map((category, index) => (
          <li
            key={category.key}
            draggable
            onDragStart={(event) => {
              setDragged(index);
              event.dataTransfer.effectAllowed = "move";
            }}
            onDragOver={(event) => event.preventDefault()}
            onDrop={(event) => {
              event.preventDefault();
              if (dragged !== null && dragged !== index) move(dragged, index);
              setDragged(null);
            }}
            onDragEnd={() => setDragged(null)}
            data-testid="category-row"
            className={`flex flex-wrap items-end gap-2 rounded-md border [overflow-wrap:anywhere] bg-surface p-2 ${dragged === index ? "border-primary" : "border-border"}`}
          >
            <span
              id={`category-handle-${category.key}`}
              tabIndex={-1}
              aria-hidden="true"
              className="flex h-10 w-6 cursor-grab items-center justify-center text-muted select-none"
              title={t("storefronts.categories.drag")}
            >
              ⠿
            </span>
            <Field
              id={fieldIdOf(`categories[${index}].name`)}
              label={t("storefronts.categories.name", { n: index + 1 })}
              error={errorFor(`categories[${index}].name`)}
              hint={
                (usage.get(category.loadedAs ?? "") ?? 0) > 0 && category.loadedAs !== category.name
                  ? plural(t, language, "storefronts.categories.renamed", {
                      count: usage.get(category.loadedAs ?? "") ?? 0,
                      name: category.loadedAs ?? "",
                    })
                  : undefined
              }
              className="min-w-40 flex-1"
            >
              <Input
                value={category.name}
                onChange={(e) =>
                  update({
                    categories: categories.map((c) =>
                      c.key === category.key ? { ...c, name: e.target.value } : c,
                    ),
                  })
                }
              />
            </Field>
            <div className="flex gap-1">
              <Button
                id={`category-up-${category.key}`}
                variant="secondary"
                size="sm"
                className="h-10"
                disabled={index === 0}
                onClick={() => move(index, index - 1)}
                aria-label={t("storefronts.categories.moveUp", { name: category.name })}
              >
                ↑
              </Button>
              <Button
                id={`category-down-${category.key}`}
                variant="secondary"
                size="sm"
                className="h-10"
                disabled={index === categories.length - 1}
                onClick={() => move(index, index + 1)}
                aria-label={t("storefronts.categories.moveDown", { name: category.name })}
              >
                ↓
              </Button>
              <Button
                variant="ghost"
                size="sm"
                className="h-10"
                onClick={() => update({ categories: categories.filter((c) => c.key !== category.key) })}
                aria-label={t("storefronts.categories.remove", { name: category.name })}
              >
                {t("storefronts.categories.removeShort")}
              </Button>
            </div>
          </li>
        ))}
      </ol>
      <p className="sr-only" aria-live="polite">
        {announcement}
      </p>
      {leftBehind.length > 0 ? (
        <Notice role="status">
          <p data-testid="orphan-warning">
            {t("storefronts.categories.orphans", {
              list: leftBehind.map((name) => `“${name}” (${usage.get(name) ?? 0})`).join(", "),
            })}
          </p>
        </Notice>
      ) : null}
      {orphansAlready.length > 0 ? (
        <p className="text-sm text-muted">
          {t("storefronts.categories.existingOrphans", {
            list: orphansAlready.map((entry) => `“${entry.name}” (${entry.products})`).join(", "),
          })}
        </p>
      ) : null}
      <div className="flex flex-wrap items-end gap-2">
        <Field id="category-new" label={t("storefronts.categories.newLabel")} className="min-w-40 flex-1">
          <Input
            value={newName}
            onChange={(e) => setNewName(e.target.value)}
            onKeyDown={(event) => {
              if (event.key === "Enter") {
                event.preventDefault();
                add();
              }
            }}
          />
        </Field>
        <Button variant="secondary" className="h-10" onClick={add}>
          {t("storefronts.categories.add")}
        </Button>
      </div>
    </Fieldset>
  );
}
