"use client";

import { useCallback, useSyncExternalStore } from "react";
import { PUBLIC_ORDER_LIMITS } from "@/server/orders/limits";
import type { OptionChoice } from "@/server/orders/options";

/**
 * The cart, kept in the browser (localStorage, one per storefront): it survives a reload and is shared by the
 * tabs of the same store. It holds what the customer chose (product ids, amounts, options) and, for display
 * only, the titles and price seen when adding; the checkout prices every line again from the page's current
 * catalog, and the server from the stored one.
 */
export type CartLine = {
  /** Product id plus its sorted choices: adding the same product with the same options adds to the line. */
  key: string;
  productId: string;
  title: string;
  options: OptionChoice[];
  optionTitles: string[];
  amount: number;
  /** Unit price when added (display only; never sent). */
  unitPrice: number;
};

export type Cart = { lines: CartLine[] };

const EMPTY: Cart = { lines: [] };
/** What the page's order takes per line (docs/api.md, "Public storefront"). */
const MAX_AMOUNT = PUBLIC_ORDER_LIMITS.maxUnitsPerLine;
const listeners = new Set<() => void>();
const snapshots = new Map<string, { raw: string | null; cart: Cart }>();

function storageKey(slug: string): string {
  return `marea.cart.${slug}`;
}

export function lineKey(productId: string, options: readonly OptionChoice[]): string {
  const choices = [...options]
    .sort((a, b) => a.group - b.group || a.option - b.option)
    .map((c) => `${c.group}.${c.option}`)
    .join(",");
  return `${productId}|${choices}`;
}

function isLine(value: unknown): value is CartLine {
  const line = value as CartLine;
  return (
    typeof line?.key === "string" &&
    typeof line.productId === "string" &&
    typeof line.title === "string" &&
    Number.isInteger(line.amount) &&
    line.amount > 0 &&
    Array.isArray(line.options) &&
    line.options.every((o) => Number.isInteger(o?.group) && Number.isInteger(o?.option))
  );
}

/** What is stored, read defensively: anything unreadable is an empty cart, never an error. */
export function readCart(slug: string): Cart {
  if (typeof window === "undefined") return EMPTY;
  let raw: string | null = null;
  try {
    raw = window.localStorage.getItem(storageKey(slug));
  } catch {
    return EMPTY;
  }
  const cached = snapshots.get(slug);
  if (cached && cached.raw === raw) return cached.cart;
  let cart = EMPTY;
  try {
    const parsed = raw ? (JSON.parse(raw) as { lines?: unknown[] }) : null;
    const lines = (parsed?.lines ?? []).filter(isLine).map((line) => ({
      ...line,
      optionTitles: Array.isArray(line.optionTitles) ? line.optionTitles.map(String) : [],
      unitPrice: Number.isFinite(line.unitPrice) ? line.unitPrice : 0,
      amount: Math.min(line.amount, MAX_AMOUNT),
    }));
    cart = { lines };
  } catch {
    cart = EMPTY;
  }
  snapshots.set(slug, { raw, cart });
  return cart;
}

function writeCart(slug: string, cart: Cart): void {
  try {
    if (cart.lines.length === 0) window.localStorage.removeItem(storageKey(slug));
    else window.localStorage.setItem(storageKey(slug), JSON.stringify(cart));
  } catch {
    // Storage full or blocked (private mode): the cart lives only as long as this page.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key?.startsWith("marea.cart.")) listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

export type CartActions = {
  add: (line: Omit<CartLine, "key">) => void;
  setAmount: (key: string, amount: number) => void;
  remove: (key: string) => void;
  clear: () => void;
};

/** The storefront's cart and what can be done to it; empty on the server and until hydration. */
export function useCart(slug: string): Cart & CartActions {
  const cart = useSyncExternalStore(
    subscribe,
    () => readCart(slug),
    () => EMPTY,
  );
  const add = useCallback(
    (line: Omit<CartLine, "key">) => {
      const current = readCart(slug);
      const key = lineKey(line.productId, line.options);
      const existing = current.lines.find((l) => l.key === key);
      const lines = existing
        ? current.lines.map((l) =>
            l.key === key ? { ...l, ...line, key, amount: Math.min(l.amount + line.amount, MAX_AMOUNT) } : l,
          )
        : [...current.lines, { ...line, key }];
      writeCart(slug, { lines });
    },
    [slug],
  );
  const setAmount = useCallback(
    (key: string, amount: number) => {
      const lines = readCart(slug)
        .lines.map((l) => (l.key === key ? { ...l, amount: Math.min(Math.max(amount, 0), MAX_AMOUNT) } : l))
        .filter((l) => l.amount > 0);
      writeCart(slug, { lines });
    },
    [slug],
  );
  const remove = useCallback(
    (key: string) => writeCart(slug, { lines: readCart(slug).lines.filter((l) => l.key !== key) }),
    [slug],
  );
  const clear = useCallback(() => writeCart(slug, EMPTY), [slug]);
  return { ...cart, add, setAmount, remove, clear };
}

/** True once the component runs in the browser (controls that need JavaScript stay disabled until then). */
export function useIsHydrated(): boolean {
  return useSyncExternalStore(
    () => () => {},
    () => true,
    () => false,
  );
}
