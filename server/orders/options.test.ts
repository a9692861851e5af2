import { describe, expect, it } from "vitest";
import { checkOptionChoices, groupLimits, lineTitle, type OptionGroup } from "./options";

// docs/api.md, "Options": the rules the page checks before add-to-cart and placeOrder checks again.
const size: OptionGroup = {
  title: "Size",
  obligatory: true,
  multipleOption: false,
  minOptions: 0,
  maxOptions: 0,
  extraProducts: [
    { title: "Small", price: 0, available: true },
    { title: "Large", price: 20, available: true },
  ],
};
const extras: OptionGroup = {
  title: "Extras",
  obligatory: false,
  multipleOption: true,
  minOptions: 0,
  maxOptions: 2,
  extraProducts: [
    { title: "Cheese", price: 5.5, available: true, stock: 3 },
    { title: "Bacon", price: 8, available: false },
    { title: "Onion", price: 2, available: true, stock: null },
  ],
};
const sauces: OptionGroup = {
  title: "Sauces",
  obligatory: false,
  multipleOption: true,
  minOptions: 2,
  maxOptions: 0,
  extraProducts: [
    { title: "Red", price: 0, available: true },
    { title: "Green", price: 0, available: true },
    { title: "Mole", price: 1, available: true },
  ],
};
const groups = [size, extras, sauces];

describe("option groups", () => {
  it("valid choices resolve to titles and prices and add up per unit", () => {
    const check = checkOptionChoices(
      groups,
      [
        { group: 1, option: 2 },
        { group: 0, option: 1 },
        { group: 1, option: 0 },
      ],
      2,
    );
    expect(check.problems).toEqual([]);
    expect(check.options).toEqual([
      { group: 0, option: 1, groupTitle: "Size", title: "Large", price: 20 },
      { group: 1, option: 0, groupTitle: "Extras", title: "Cheese", price: 5.5 },
      { group: 1, option: 2, groupTitle: "Extras", title: "Onion", price: 2 },
    ]);
    expect(check.extraPrice).toBe(27.5);
  });

  it("an obligatory group left empty is required; an optional one may stay empty", () => {
    expect(checkOptionChoices(groups, [], 1).problems).toEqual([{ kind: "required", group: 0 }]);
    expect(checkOptionChoices(groups, undefined, 1).problems).toEqual([{ kind: "required", group: 0 }]);
  });

  it("multipleOption false allows one; maxOptions caps the others; 0 means no cap beyond the options", () => {
    expect(
      checkOptionChoices(
        groups,
        [
          { group: 0, option: 0 },
          { group: 0, option: 1 },
        ],
        1,
      ).problems,
    ).toEqual([{ kind: "too_many", group: 0, max: 1 }]);
    const tooManyExtras = checkOptionChoices(
      [
        size,
        {
          ...extras,
          extraProducts: [...(extras.extraProducts ?? []), { title: "Egg", price: 1, available: true }],
        },
      ],
      [
        { group: 0, option: 0 },
        { group: 1, option: 0 },
        { group: 1, option: 2 },
        { group: 1, option: 3 },
      ],
      1,
    );
    expect(tooManyExtras.problems).toEqual([{ kind: "too_many", group: 1, max: 2 }]);
    expect(groupLimits(sauces)).toEqual({ min: 2, max: 3, isRequired: false });
  });

  it("minOptions applies once a group is used; never more than the maximum", () => {
    const one = checkOptionChoices(
      groups,
      [
        { group: 0, option: 0 },
        { group: 2, option: 1 },
      ],
      1,
    );
    expect(one.problems).toEqual([{ kind: "too_few", group: 2, min: 2 }]);
    expect(groupLimits({ ...size, minOptions: 3 })).toEqual({ min: 1, max: 1, isRequired: true });
    // An obligatory group with no options cannot be satisfied: it does not block the product.
    expect(groupLimits({ ...size, extraProducts: [] }).isRequired).toBe(false);
  });

  it("unknown, repeated and unavailable options are refused; stock is checked against the line's amount", () => {
    expect(checkOptionChoices(groups, [{ group: 0, option: 9 }], 1).problems).toContainEqual({
      kind: "unknown",
      group: 0,
      option: 9,
    });
    expect(checkOptionChoices(groups, [{ group: 7, option: 0 }], 1).problems[0]).toEqual({
      kind: "unknown",
      group: 7,
      option: 0,
    });
    expect(
      checkOptionChoices(
        groups,
        [
          { group: 0, option: 0 },
          { group: 0, option: 0 },
        ],
        1,
      ).problems,
    ).toEqual([{ kind: "duplicate", group: 0, option: 0 }]);
    expect(
      checkOptionChoices(
        groups,
        [
          { group: 0, option: 0 },
          { group: 1, option: 1 },
        ],
        1,
      ).problems,
    ).toEqual([{ kind: "unavailable", group: 1, option: 1 }]);
    const cheese = [
      { group: 0, option: 0 },
      { group: 1, option: 0 },
    ];
    expect(checkOptionChoices(groups, cheese, 3).problems).toEqual([]);
    expect(checkOptionChoices(groups, cheese, 4).problems).toEqual([
      { kind: "sold_out", group: 1, option: 0, left: 3 },
    ]);
  });

  it("options on a product without groups are unknown", () => {
    expect(checkOptionChoices(null, [{ group: 0, option: 0 }], 1).problems).toEqual([
      { kind: "unknown", group: 0, option: 0 },
    ]);
    expect(checkOptionChoices(null, [], 1)).toEqual({ options: [], extraPrice: 0, problems: [] });
  });

  it("a line with options is named with them where only a title fits", () => {
    expect(lineTitle("Pizza", [{ title: "Large" }, { title: "Extra cheese" }])).toBe(
      "Pizza (Large, Extra cheese)",
    );
    expect(lineTitle("Pizza", [])).toBe("Pizza");
  });
});
