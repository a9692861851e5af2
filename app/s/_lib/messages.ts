import { CATALOGUES, type Language, type MessageKey, type Messages } from "@/app/_i18n/catalogue";

/** The keys each public page's client components use; an entry ending in "." takes every key under it. */
const CARDS: string[] = [
  "storefront.add",
  "storefront.addNamed",
  "storefront.added",
  "storefront.soldOut",
  "storefront.onlyLeft",
  "storefront.choose",
  "storefront.chooseNamed",
  "storefront.salePrice",
  "storefront.regularPrice",
  "storefront.discount",
  "storefront.openUntil",
  "storefront.closedOpensAt",
  "storefront.closedForNow",
  "storefront.cart.count",
  "storefront.cart.view",
];

export const PAGE_MESSAGES = {
  store: CARDS,
  product: [...CARDS, "storefront.product.", "storefront.option."],
  checkout: [
    "storefront.checkout.",
    "storefront.cart.",
    "storefront.option.",
    "storefront.delivery",
    "storefront.pickup",
    "storefront.dineIn",
    "storefront.soldOut",
  ],
  status: ["storefront.status.changed"],
} as const satisfies Record<string, readonly string[]>;

export type PageMessages = keyof typeof PAGE_MESSAGES;

/**
 * The messages a public page's client components need, in the storefront's language, and only those: the page
 * is cached and sent whole on every view, so it does not carry the rest of the catalogue.
 */
export function storefrontMessages(language: Language, page: PageMessages): Messages {
  const all = CATALOGUES[language];
  const wanted: readonly string[] = PAGE_MESSAGES[page];
  const picked: Partial<Messages> = {};
  for (const key of Object.keys(all) as MessageKey[]) {
    if (wanted.some((entry) => key === entry || (entry.endsWith(".") && key.startsWith(entry)))) {
      picked[key] = all[key];
    }
  }
  return picked as Messages;
}
