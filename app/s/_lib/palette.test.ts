import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { THEME_PRESETS } from "@/server/storefronts/schema";
import { contrast, fontStack, type Palette, storefrontPalette } from "./palette";

// docs/ui.md, "Public storefront": the merchant's colours, with our contrast floor (WCAG AA) whatever they are.
const TEXT_PAIRS: Array<[keyof Palette, keyof Palette]> = [
  ["--text", "--bg"],
  ["--text", "--surface"],
  ["--text", "--surface-muted"],
  ["--text", "--primary-soft"],
  ["--text-muted", "--bg"],
  ["--text-muted", "--surface"],
  ["--text-muted", "--surface-muted"],
  ["--on-primary", "--primary"],
  ["--on-primary", "--primary-hover"],
  ["--on-danger", "--danger"],
  ["--primary", "--bg"],
  ["--primary", "--surface"],
  ["--primary", "--primary-soft"],
  ["--primary-hover", "--surface"],
  ["--danger", "--surface"],
  ["--danger", "--danger-soft"],
  ["--success", "--surface"],
  ["--success", "--success-soft"],
  ["--warning", "--surface"],
  ["--warning", "--warning-soft"],
  ["--accent", "--surface"],
  ["--accent", "--bg"],
  ["--accent", "--accent-soft"],
];
const NON_TEXT_PAIRS: Array<[keyof Palette, keyof Palette]> = [
  ["--border-strong", "--surface"],
  ["--border-strong", "--bg"],
  ["--focus", "--bg"],
  ["--focus", "--surface"],
];

function failures(palette: Palette): string[] {
  const low: string[] = [];
  for (const [fg, bg] of TEXT_PAIRS) {
    const ratio = contrast(palette[fg], palette[bg]);
    if (ratio < 4.5) low.push(`${fg} on ${bg}: ${ratio.toFixed(2)}`);
  }
  for (const [fg, bg] of NON_TEXT_PAIRS) {
    const ratio = contrast(palette[fg], palette[bg]);
    if (ratio < 3) low.push(`${fg} on ${bg}: ${ratio.toFixed(2)}`);
  }
  return low;
}

const hex = fc
  .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
  .map(([r, g, b]) => `#${[r, g, b].map((v) => v.toString(16).padStart(2, "0")).join("")}`);

describe("the storefront palette", () => {
  it.each(Object.entries(THEME_PRESETS))("preset %s keeps every pair at AA", (_, theme) => {
    expect(failures(storefrontPalette(theme))).toEqual([]);
  });

  it("no theme is our light look; a dark background gives light text", () => {
    expect(storefrontPalette(null)).toMatchObject({
      "--bg": "#f6f7f9",
      "--text": "#111827",
      "color-scheme": "light",
    });
    expect(storefrontPalette(THEME_PRESETS.midnight)).toMatchObject({
      "color-scheme": "dark",
      "--text": "#f3f4f6",
    });
  });

  it("any colours at all keep every pair at AA", () => {
    fc.assert(
      fc.property(hex, hex, hex, (primary, secondary, tertiary) => {
        expect(failures(storefrontPalette({ primary, secondary, tertiary }))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("what is not a hex colour is ignored: nothing but #rgb / #rrggbb reaches CSS", () => {
    const palette = storefrontPalette({
      primary: "red; background: url(x)",
      secondary: "#fff",
      tertiary: "#abc",
    });
    expect(palette["--primary"]).toMatch(/^#[0-9a-f]{6}$/);
    expect(palette["--bg"]).toBe("#ffffff");
    for (const value of Object.values(palette)) expect(value).toMatch(/^(#[0-9a-f]{6}|light|dark)$/);
  });

  it("the font name is used only when it is a plain name", () => {
    expect(fontStack("Playfair Display")).toBe('"Playfair Display", var(--font-sans)');
    expect(fontStack('x"; } body { display:none')).toBeNull();
    expect(fontStack(null)).toBeNull();
  });
});
