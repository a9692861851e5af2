import { CATALOGUES, type Language, type Messages } from "@/app/_i18n/catalogue";

/**
 * The messages the public pages' client components need, in the storefront's language: the `storefront.*` and
 * `common.*` keys only, so a page does not carry the dashboard's whole catalogue to the browser twice.
 */
export function storefrontMessages(language: Language): Messages {
  const all = CATALOGUES[language];
  const picked: Partial<Messages> = {};
  for (const key of Object.keys(all) as Array<keyof Messages>) {
    if (key.startsWith("storefront.") || key.startsWith("common.")) picked[key] = all[key];
  }
  return picked as Messages;
}
