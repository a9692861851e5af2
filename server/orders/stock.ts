import { and, eq, isNull, ne, or, sql } from "drizzle-orm";
import type { Db } from "@/server/db/client";
import { AppError, type Language } from "@/server/errors";
import { products } from "@/server/products/tables";
import { type OrderRow, toOrderDto } from "./dto";
import { checkOptionChoices, describeOptionProblem, roundMoney as money, type OptionGroup } from "./options";
import type { CreateOrderInput, OrderDto } from "./schema";

/**
 * An order's stock: taken atomically when it is placed (products and options with stock never go below zero,
 * however many orders race for them), put back when it is cancelled.
 */

/** An order line as charged: the title and unit price, the chosen options with their group's title. */
type OrderLine = OrderDto["items"][number];

export type OrderSource = "api" | "public";

/**
 * The products an order of this source may take: the storefront's own, and on the public page only those it
 * shows (docs/api.md, "Public storefront": a product with `hide: true` is `product_not_found` there, as on the
 * page). The merchant's own /v1 orders may still take hidden products (phone and counter orders of items kept off
 * the page).
 */
export function orderableProducts(storefrontId: string, source: OrderSource) {
  return and(
    eq(products.storefrontId, storefrontId),
    source === "public" ? or(isNull(products.hide), ne(products.hide, true)) : undefined,
  );
}

type StoredOptionGroups = OptionGroup[] | null;

/**
 * Takes stock for every line, product by product in id order (so concurrent orders lock rows in the same order):
 * one conditional UPDATE takes the product's stock (all its lines together) and locks the row; the lines'
 * options are then checked against the product as stored (`checkOptionChoices`), and options with stock have it
 * taken in a second UPDATE of the still-locked row. Untracked stock (null) is not limited. Each line's unit price
 * is the product's salePrice (else price) plus its options' prices.
 */
export async function takeStock(
  db: Db,
  storefrontId: string,
  lines: CreateOrderInput["items"],
  source: OrderSource,
): Promise<{ items: OrderLine[]; isStockTaken: boolean }> {
  const byProduct = new Map<string, number[]>();
  lines.forEach((line, index) => {
    byProduct.set(line.productId, [...(byProduct.get(line.productId) ?? []), index]);
  });
  const items = new Array<OrderLine>(lines.length);
  let isStockTaken = false;
  for (const [productId, indexes] of [...byProduct.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const first = indexes[0] ?? 0;
    const amount = indexes.reduce((sum, index) => sum + (lines[index]?.amount ?? 0), 0);
    const [row] = await db
      .update(products)
      .set({
        stock: sql`case when ${products.stock} is null then null else ${products.stock} - ${amount} end`,
      })
      .where(
        and(
          eq(products.id, productId),
          orderableProducts(storefrontId, source),
          sql`(${products.stock} is null or ${products.stock} >= ${amount})`,
        ),
      )
      .returning({
        title: products.title,
        price: products.price,
        salePrice: products.salePrice,
        stock: products.stock,
        extraProductsCategory: products.extraProductsCategory,
      });
    if (!row) {
      const [exists] = await db
        .select({ title: products.title, stock: products.stock })
        .from(products)
        .where(and(eq(products.id, productId), orderableProducts(storefrontId, source)));
      if (!exists) throw new AppError("product_not_found", { param: `items[${first}].productId` });
      throw shortage(`items[${first}].amount`, `"${exists.title}"`, exists.stock ?? 0);
    }
    if (row.stock !== null) isStockTaken = true;
    const groups = row.extraProductsCategory as StoredOptionGroups;
    const basePrice = money(row.salePrice ?? row.price);
    const optionAmounts = new Map<string, { group: number; option: number; amount: number; index: number }>();
    for (const index of indexes) {
      const line = lines[index];
      if (!line) continue;
      const check = checkOptionChoices(groups, line.options, line.amount);
      const problem = check.problems[0];
      if (problem?.kind === "sold_out") {
        const option = groups?.[problem.group]?.extraProducts?.[problem.option]?.title ?? "";
        throw shortage(`items[${index}].options`, `"${option}" (${row.title})`, problem.left);
      }
      if (problem) {
        const words = describeOptionProblem(problem, groups);
        const param = `items[${index}].options`;
        throw new AppError("invalid_request", {
          param,
          detail: { en: `${param}: ${words.en}`, es: `${param}: ${words.es}`, pt: `${param}: ${words.pt}` },
        });
      }
      for (const option of check.options) {
        const key = `${option.group}:${option.option}`;
        const taken = optionAmounts.get(key);
        optionAmounts.set(key, {
          ...option,
          amount: (taken?.amount ?? 0) + line.amount,
          index: taken?.index ?? index,
        });
      }
      items[index] = {
        productId,
        title: row.title,
        amount: line.amount,
        price: money(basePrice + check.extraPrice),
        options: check.options,
      };
    }
    const updatedGroups = takeOptionStock(row.title, groups, [...optionAmounts.values()]);
    if (updatedGroups) {
      await db
        .update(products)
        .set({ extraProductsCategory: updatedGroups })
        .where(eq(products.id, productId));
      isStockTaken = true;
    }
  }
  return { items, isStockTaken };
}

/**
 * 400 `insufficient_stock` naming what ran short and how many are left, in every language: the customer's page
 * shows it next to the line (`param`).
 */
function shortage(param: string, what: string, left: number): AppError {
  const message: Record<Language, string> =
    left > 0
      ? {
          en: `There is not enough stock of ${what}: ${left} left.`,
          es: `No hay existencias suficientes de ${what}: quedan ${left}.`,
          pt: `Não há estoque suficiente de ${what}: restam ${left}.`,
        }
      : { en: `${what} is sold out.`, es: `${what} está agotado.`, pt: `${what} está esgotado.` };
  return new AppError("insufficient_stock", { param, message });
}

/**
 * The groups with each taken option's stock lowered (null when no chosen option tracks stock). The row is
 * locked by this transaction, so nothing changes between the read and this write. Several lines choosing the
 * same option count together: short of stock, the first such line is named.
 */
function takeOptionStock(
  productTitle: string,
  groups: StoredOptionGroups,
  taken: Array<{ group: number; option: number; amount: number; index: number }>,
): StoredOptionGroups {
  if (!groups) return null;
  let isChanged = false;
  const next = groups.map((group) => ({
    ...group,
    extraProducts: group.extraProducts?.map((option) => ({ ...option })) ?? group.extraProducts,
  }));
  for (const { group, option, amount, index } of taken) {
    const stored = next[group]?.extraProducts?.[option];
    if (!stored || stored.stock == null) continue;
    if (stored.stock < amount) {
      throw shortage(`items[${index}].options`, `"${stored.title}" (${productTitle})`, stored.stock);
    }
    stored.stock -= amount;
    isChanged = true;
  }
  return isChanged ? next : null;
}

/**
 * Puts a cancelled order's stock back: each product's tracked stock, and each chosen option's tracked stock while
 * the option is still where it was (same group and position, same title); an option the merchant has since
 * removed or moved gets nothing back.
 */
export async function restock(db: Db, order: OrderRow): Promise<void> {
  for (const item of toOrderDto(order).items) {
    const [row] = await db
      .update(products)
      // A stock raised meanwhile to the column's maximum stays there rather than overflow the integer.
      .set({
        stock: sql`case when ${products.stock} is null then null
          else least(${products.stock}::bigint + ${item.amount}, 2147483647)::int end`,
      })
      .where(eq(products.id, item.productId))
      .returning({ extraProductsCategory: products.extraProductsCategory });
    const groups = row?.extraProductsCategory as StoredOptionGroups | undefined;
    if (!groups || item.options.length === 0) continue;
    let isChanged = false;
    const next = groups.map((group) => ({
      ...group,
      extraProducts: group.extraProducts?.map((option) => ({ ...option })) ?? group.extraProducts,
    }));
    for (const chosen of item.options) {
      const stored = next[chosen.group]?.extraProducts?.[chosen.option];
      if (!stored || stored.stock == null || stored.title !== chosen.title) continue;
      stored.stock = Math.min(stored.stock + item.amount, 2147483647);
      isChanged = true;
    }
    if (isChanged) {
      await db.update(products).set({ extraProductsCategory: next }).where(eq(products.id, item.productId));
    }
  }
}
