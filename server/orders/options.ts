/**
 * The option-group rules of an order line (docs/api.md, "Orders", "Options"): which choices a product's
 * `extraProductsCategory` allows and what they add to the unit price. Pure and free of server-only imports, so
 * the storefront page checks a choice with THIS function before adding it to the cart, and `placeOrder` checks
 * it again against the stored product.
 */

/** One chosen option: the index of the group in `extraProductsCategory` and of the option in its `extraProducts`. */
export type OptionChoice = { group: number; option: number };

/** A product's option group as stored (the ExtraProductsCategory shape). */
export type OptionGroup = {
  title: string;
  obligatory: boolean;
  multipleOption: boolean;
  maxOptions: number;
  minOptions: number;
  extraProducts?: Array<{ title: string; price: number; available: boolean; stock?: number | null }> | null;
};

/** A choice resolved against the product: what the order keeps for the line (title and price charged). */
export type ChosenOption = {
  group: number;
  option: number;
  groupTitle: string;
  title: string;
  price: number;
};

/** Why a line's choices are refused; `group`/`option` are indexes into the product's groups. */
export type OptionProblem =
  | { kind: "unknown"; group: number; option: number }
  | { kind: "duplicate"; group: number; option: number }
  | { kind: "required"; group: number }
  | { kind: "too_few"; group: number; min: number }
  | { kind: "too_many"; group: number; max: number }
  | { kind: "unavailable"; group: number; option: number }
  | { kind: "sold_out"; group: number; option: number; left: number };

export type OptionCheck = {
  /** The valid choices, in group then option order. */
  options: ChosenOption[];
  /** What the options add to one unit (4 decimals). */
  extraPrice: number;
  /** Every problem found: choices that name no option (or one twice) first, then by group; empty when acceptable. */
  problems: OptionProblem[];
};

/** Money is kept to 4 decimals (docs/api.md, "Orders"). */
export function roundMoney(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/**
 * How many options a group takes (docs/api.md, "Options"): `multipleOption: false` allows at most one;
 * otherwise `maxOptions` (0 means no limit beyond the group's options). The minimum is `minOptions`, never more
 * than the maximum; an obligatory group (with options) needs at least one. A group that is not obligatory may be left empty,
 * but once any option is chosen its minimum applies.
 */
export function groupLimits(group: OptionGroup): { min: number; max: number; isRequired: boolean } {
  const count = group.extraProducts?.length ?? 0;
  const max = group.multipleOption ? (group.maxOptions > 0 ? Math.min(group.maxOptions, count) : count) : 1;
  const min = Math.min(Math.max(group.minOptions, group.obligatory ? 1 : 0), Math.max(max, 0));
  // An obligatory group without options cannot be satisfied by anyone: it does not block the product.
  return { min, max, isRequired: group.obligatory && count > 0 };
}

/**
 * Checks the choices of one line of `amount` units against the product's groups: every choice names an existing
 * option, at most once; each group's minimum and maximum hold; a chosen option is `available` and, when its
 * `stock` is tracked, has at least `amount` left. The price of each chosen option is added to the unit price.
 */
export function checkOptionChoices(
  groups: readonly OptionGroup[] | null | undefined,
  choices: readonly OptionChoice[] | null | undefined,
  amount: number,
): OptionCheck {
  const problems: OptionProblem[] = [];
  const byGroup = new Map<number, number[]>();
  for (const choice of choices ?? []) {
    const option = groups?.[choice.group]?.extraProducts?.[choice.option];
    if (!option) {
      problems.push({ kind: "unknown", group: choice.group, option: choice.option });
      continue;
    }
    const chosen = byGroup.get(choice.group) ?? [];
    if (chosen.includes(choice.option)) {
      problems.push({ kind: "duplicate", group: choice.group, option: choice.option });
      continue;
    }
    byGroup.set(choice.group, [...chosen, choice.option]);
  }
  const options: ChosenOption[] = [];
  (groups ?? []).forEach((group, groupIndex) => {
    const chosen = [...(byGroup.get(groupIndex) ?? [])].sort((a, b) => a - b);
    const { min, max, isRequired } = groupLimits(group);
    if (chosen.length === 0 && isRequired) problems.push({ kind: "required", group: groupIndex });
    else if (chosen.length > 0 && chosen.length < min)
      problems.push({ kind: "too_few", group: groupIndex, min });
    if (chosen.length > max) problems.push({ kind: "too_many", group: groupIndex, max });
    for (const optionIndex of chosen) {
      const option = group.extraProducts?.[optionIndex];
      if (!option) continue;
      if (!option.available) {
        problems.push({ kind: "unavailable", group: groupIndex, option: optionIndex });
      } else if (option.stock != null && option.stock < amount) {
        problems.push({ kind: "sold_out", group: groupIndex, option: optionIndex, left: option.stock });
      }
      options.push({
        group: groupIndex,
        option: optionIndex,
        groupTitle: group.title,
        title: option.title,
        price: roundMoney(option.price),
      });
    }
  });
  return {
    options,
    extraPrice: roundMoney(options.reduce((sum, option) => sum + option.price, 0)),
    problems,
  };
}

/** The problem in words (en, es, pt), naming the group and option: the detail of the API's error. */
export function describeOptionProblem(
  problem: OptionProblem,
  groups: readonly OptionGroup[] | null,
): { en: string; es: string; pt: string } {
  const group = groups?.[problem.group];
  const groupName = group ? `"${group.title}"` : null;
  const optionName = (index: number) => {
    const option = group?.extraProducts?.[index];
    return option ? `"${option.title}"` : null;
  };
  const g = {
    en: groupName ?? `group ${problem.group}`,
    es: groupName ?? `el grupo ${problem.group}`,
    pt: groupName ?? `o grupo ${problem.group}`,
  };
  switch (problem.kind) {
    case "unknown":
      return {
        en: `there is no option ${problem.option} in group ${problem.group}.`,
        es: `no hay opción ${problem.option} en el grupo ${problem.group}.`,
        pt: `não há opção ${problem.option} no grupo ${problem.group}.`,
      };
    case "duplicate": {
      const o = optionName(problem.option) ?? String(problem.option);
      return {
        en: `${o} of ${g.en} is chosen twice.`,
        es: `${o} de ${g.es} está elegida dos veces.`,
        pt: `${o} de ${g.pt} foi escolhida duas vezes.`,
      };
    }
    case "required":
      return {
        en: `${g.en} is obligatory: choose an option.`,
        es: `${g.es} es obligatorio: elige una opción.`,
        pt: `${g.pt} é obrigatório: escolha uma opção.`,
      };
    case "too_few":
      return {
        en: `choose at least ${problem.min} of ${g.en}.`,
        es: `elige al menos ${problem.min} de ${g.es}.`,
        pt: `escolha pelo menos ${problem.min} de ${g.pt}.`,
      };
    case "too_many":
      return {
        en: `choose at most ${problem.max} of ${g.en}.`,
        es: `elige como máximo ${problem.max} de ${g.es}.`,
        pt: `escolha no máximo ${problem.max} de ${g.pt}.`,
      };
    case "unavailable": {
      const o = optionName(problem.option) ?? String(problem.option);
      return {
        en: `${o} of ${g.en} is not available.`,
        es: `${o} de ${g.es} no está disponible.`,
        pt: `${o} de ${g.pt} não está disponível.`,
      };
    }
    case "sold_out": {
      const o = optionName(problem.option) ?? String(problem.option);
      return {
        en: `only ${problem.left} of ${o} (${g.en}) left.`,
        es: `solo quedan ${problem.left} de ${o} (${g.es}).`,
        pt: `restam só ${problem.left} de ${o} (${g.pt}).`,
      };
    }
  }
}

/** "Pizza (Large, Extra cheese)": how an order line with options is named where only a title fits. */
export function lineTitle(title: string, options: readonly { title: string }[]): string {
  return options.length === 0 ? title : `${title} (${options.map((option) => option.title).join(", ")})`;
}
