import type { Translate } from "@/app/_i18n/catalogue";
import type { OptionGroup, OptionProblem } from "@/server/orders/options";

/** An option-group problem (server/orders/options.ts) in the customer's words. */
export function optionProblemMessage(
  t: Translate,
  problem: OptionProblem,
  groups: readonly OptionGroup[],
): string {
  const group = groups[problem.group]?.title ?? "";
  const option = (index: number) => groups[problem.group]?.extraProducts?.[index]?.title ?? "";
  switch (problem.kind) {
    case "required":
      return t("storefront.option.required", { group });
    case "too_few":
      return t("storefront.option.tooFew", { group, min: problem.min });
    case "too_many":
      return t("storefront.option.tooMany", { group, max: problem.max });
    case "unavailable":
      return t("storefront.option.unavailable", { option: option(problem.option) });
    case "sold_out":
      return t("storefront.option.soldOut", { option: option(problem.option), left: problem.left });
    case "unknown":
    case "duplicate":
      return t("storefront.option.unknown");
  }
}
